/** Balance transactions: every movement of the balance, filtered by type, interval and currency; "Export CSV" runs the itemized report for the interval. */
import { useState } from 'preact/hooks';
import type { BalanceTransactionsQuery, BalanceTransactionType } from '../gql/graphql';
import { label, money, when } from '../format';
import { BalanceTransactionsDocument } from '../operations/finance';
import { ListState, Pager, Status, Table, useApp, useLive, usePaged } from '../ui';
import { ExportCsv, intervalFilter, IntervalFields } from './export-csv';
import { thisMonth } from './report-export';

type Row = NonNullable<BalanceTransactionsQuery['balanceTransactions']>['nodes'][number];
const TYPES: BalanceTransactionType[] = ['PAYMENT', 'PAYMENT_FEE', 'REFUND', 'TOPUP', 'PAYOUT', 'PAYOUT_FEE', 'PAYOUT_REVERSAL', 'ADJUSTMENT'];

export function BalanceTransactions() {
  const { api } = useApp();
  const [month] = useState(thisMonth);
  const [form, setForm] = useState({ type: '', from: month[0], to: month[1], currency: '' });
  const [applied, setApplied] = useState(form);
  const filter = { ...(applied.type ? { type: [applied.type as BalanceTransactionType] } : {}), ...intervalFilter(applied) };
  const paged = usePaged<Row>(async (after) => (await api.query(BalanceTransactionsDocument, { after, filter })).balanceTransactions, JSON.stringify(filter));
  useLive((e) => {
    if (/^(payment_intent|payout_intent|refund|topup_intent)\./.test(e.type) && paged.page === 1) paged.refresh();
  });
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
          <select value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value })} data-testid="filter-type">
            <option value="">All</option>
            {TYPES.map((t) => (
              <option value={t} key={t}>
                {label(t)}
              </option>
            ))}
          </select>
        </label>
        <IntervalFields value={form} onChange={(i) => setForm({ ...form, ...i })} />
        <button type="submit">Apply</button>
      </form>
      <ExportCsv reportType="BALANCE_TRANSACTIONS_ITEMIZED" interval={applied} ignored="type" />
      <ListState paged={paged} empty="No balance transactions match.">
        <Table
          testId="transactions"
          caption="Balance transactions, newest first"
          head={['Type', ['Net', 'num'], 'Status', ['Source', 'wide'], ['Created', 'wide']]}
        >
          {paged.nodes.map((t) => (
            <tr key={t.id} data-testid={`txn-${t.id}`}>
              <td>{label(t.type)}</td>
              <td class="num">{money(t.netMoney)}</td>
              <td>
                <Status value={t.status} />
              </td>
              <td class="wide">
                <code class="id">{t.source.id}</code>
              </td>
              <td class="wide">{when(t.createdAt)}</td>
            </tr>
          ))}
        </Table>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
