/** Balance transactions: every movement of the balance, filtered by type and interval; "Export CSV" runs the itemized report for the interval and downloads it. */
import { useState } from 'preact/hooks';
import type { BalanceTransactionsQuery, BalanceTransactionType } from '../gql/graphql';
import { label, money, when } from '../format';
import { BalanceTransactionsDocument } from '../operations/finance';
import { ListState, Pager, Status, useAction, useApp, useLive, usePaged } from '../ui';
import { isoOf } from './amount';
import { download, runReport, thisMonth } from './report-export';

type Row = BalanceTransactionsQuery['balanceTransactions']['nodes'][number];
const TYPES: BalanceTransactionType[] = ['PAYMENT', 'PAYMENT_FEE', 'REFUND', 'TOPUP', 'PAYOUT', 'PAYOUT_FEE', 'PAYOUT_REVERSAL', 'ADJUSTMENT'];

export function BalanceTransactions() {
  const { api, can } = useApp();
  const [month] = useState(thisMonth);
  const [form, setForm] = useState({ type: '', from: month[0], to: month[1] });
  const [applied, setApplied] = useState(form);
  const [exportState, setExportState] = useState('');
  const exporting = useAction();
  const filter = {
    ...(applied.type ? { type: [applied.type as BalanceTransactionType] } : {}),
    ...(isoOf(applied.from) ? { createdGte: isoOf(applied.from) } : {}),
    ...(isoOf(applied.to) ? { createdLt: isoOf(applied.to) } : {}),
  };
  const paged = usePaged<Row>(async (after) => (await api.query(BalanceTransactionsDocument, { after, filter })).balanceTransactions, JSON.stringify(filter));
  useLive((e) => {
    if (/^(payment_intent|payout_intent|refund|topup_intent)\./.test(e.type) && paged.page === 1) paged.refresh();
  });
  const exportCsv = () =>
    exporting.run(async () => {
      const start = isoOf(form.from);
      const end = isoOf(form.to);
      if (!start || !end) throw new Error('Choose the interval to export (from and to).');
      setExportState('Generating the report…');
      const run = await runReport(api, { reportType: 'BALANCE_TRANSACTIONS_ITEMIZED', intervalStart: start, intervalEnd: end });
      download(run);
      setExportState(`Downloaded ${run.result?.rows ?? 0} rows.`);
    });
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section aria-labelledby="txn-title">
      <h1 id="txn-title">Balance transactions</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(form);
        }}
      >
        <label>
          Type
          <select value={form.type} onChange={set('type')} data-testid="filter-type">
            <option value="">All</option>
            {TYPES.map((t) => (
              <option value={t} key={t}>
                {label(t)}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={form.from} onInput={set('from')} />
        </label>
        <label>
          To (exclusive)
          <input type="datetime-local" value={form.to} onInput={set('to')} />
        </label>
        <button type="submit">Apply</button>
        {can('report_runs:write') && (
          <button type="button" onClick={() => void exportCsv()} disabled={exporting.busy} data-testid="export-csv">
            Export CSV
          </button>
        )}
      </form>
      <p class={exporting.error ? 'error' : 'muted'} role="status" data-testid="export-state">
        {exporting.error ?? exportState}
      </p>
      <ListState paged={paged} empty="No balance transactions match.">
        <div class="table-wrap">
          <table data-testid="transactions">
            <caption class="sr">Balance transactions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col" class="num">
                  Net
                </th>
                <th scope="col">Status</th>
                <th scope="col" class="wide">
                  Source
                </th>
                <th scope="col" class="wide">
                  Created
                </th>
              </tr>
            </thead>
            <tbody>
              {paged.nodes.map((t) => (
                <tr key={t.id} data-testid={`txn-${t.id}`}>
                  <td>{label(t.type)}</td>
                  <td class="num">{money(t.netMoney)}</td>
                  <td>
                    <Status value={t.status} />
                  </td>
                  <td class="wide">
                    <code>{t.source.id}</code>
                  </td>
                  <td class="wide">{when(t.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
