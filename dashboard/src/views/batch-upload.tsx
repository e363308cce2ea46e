/** Upload a payout batch CSV: read and checked in the browser, rows and errors shown, nothing sent until it is clean; then createPayoutBatch. */
import { useState } from 'preact/hooks';
import type { BatchFieldsFragment } from '../gql/graphql';
import { CreatePayoutBatchDocument, CurrencyExponentsDocument } from '../operations/batches';
import { FeeScheduleDocument } from '../operations/finance';
import { fromMinor, money } from '../format';
import { Table, useAction, useApp, useRecord } from '../ui';
import { columnOf, COLUMNS, readCsv, TEMPLATE_HREF, type ParsedCsv } from './batch-csv';
import { RowErrors } from './batch-errors';

/**
 * A minor-unit amount of the file in major units, with the exponent the server gives the
 * currency's balance (`Money.exponent`); as written when the merchant holds no such balance.
 */
function major(amount: string, currency: string, exponents: Map<string, number>): string {
  const exponent = exponents.get(currency.toUpperCase());
  if (exponent === undefined || !/^\d+$/.test(amount)) return `${amount} (minor units)`;
  return money(fromMinor(amount, currency.toUpperCase(), exponent));
}

/** Per-currency totals of the rows that pass (BigInt: never a JavaScript number), and how many rows each has. */
function totals(rows: string[][], bad: Set<number>): [string, bigint, number][] {
  const by = new Map<string, [bigint, number]>();
  rows.forEach((cells, i) => {
    const [amount, currency] = [cells[0] ?? '', (cells[1] ?? '').toUpperCase()];
    if (bad.has(i + 1) || !/^\d+$/.test(amount)) return;
    const [sum, n] = by.get(currency) ?? [0n, 0];
    by.set(currency, [sum + BigInt(amount), n + 1]);
  });
  return [...by].map(([c, [sum, n]]) => [c, sum, n]);
}

/**
 * What one payout pays in fees under the operator's schedule: the payout fee (minor units of
 * the payout's currency) and the tax on it, rounded half-up as the server does
 * (src/domain/fees.ts). BigInt only.
 */
export function payoutFee(payoutFixed: string, taxBps: number): bigint {
  if (!/^\d+$/.test(payoutFixed)) return 0n;
  const fee = BigInt(payoutFixed);
  return fee + (fee * BigInt(taxBps) + 5_000n) / 10_000n;
}

export function BatchUpload({ onCreated }: { onCreated: (batch: BatchFieldsFragment) => void }) {
  const { api } = useApp();
  const currencies = useRecord(() => api.query(CurrencyExponentsDocument, {}), 'exponents');
  const schedule = useRecord(() => api.query(FeeScheduleDocument, {}), 'batch-fees');
  const fee = schedule.data?.feeSchedule ? payoutFee(schedule.data.feeSchedule.payoutFixed, schedule.data.feeSchedule.taxBps) : 0n;
  const exponents = new Map((currencies.data?.balances ?? []).map((b) => [b.currency.toUpperCase(), b.availableMoney.exponent]));
  const action = useAction();
  const [name, setName] = useState('');
  const [parsed, setParsed] = useState<ParsedCsv | null>(null);
  // A batch the server found invalid: nothing was created; its row errors stay shown here.
  const [invalid, setInvalid] = useState<BatchFieldsFragment | null>(null);

  const choose = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    setParsed(null);
    setInvalid(null);
    // The previous file's create error says nothing about this one.
    action.clear();
    if (!file) return;
    setName(file.name);
    setParsed(await readCsv(await file.text()));
  };
  const submit = () =>
    action.run(async () => {
      if (!parsed || parsed.errors.length > 0) return;
      const r = await api.mutate(CreatePayoutBatchDocument, { items: parsed.items });
      const batch = r.createPayoutBatch;
      if (!batch) return;
      if (batch.status === 'INVALID') return setInvalid(batch);
      setParsed(null);
      onCreated(batch);
    });

  return (
    <section class="stack" aria-labelledby="upload-title" data-testid="batch-upload">
      <h2 id="upload-title">Upload a CSV</h2>
      <p class="muted">
        Header <code>{COLUMNS.join(',')}</code>; amounts in the file are in minor units (15000050 THB is 150,000.50 THB), shown here in major units. Nothing is
        created until every row passes.{' '}
        <a href={TEMPLATE_HREF} download="payout-batch-template.csv" data-testid="template">
          Download the template CSV
        </a>
      </p>
      <label>
        CSV file
        <input type="file" accept=".csv,text/csv" onChange={(e) => void choose(e)} data-testid="batch-file" />
      </label>
      {parsed && (
        <>
          <p role="status" data-testid="batch-summary">
            {name}: {parsed.rows.length} row{parsed.rows.length === 1 ? '' : 's'},{' '}
            {parsed.errors.length === 0
              ? 'no errors found'
              : `${parsed.errors.length} error${parsed.errors.length === 1 ? '' : 's'}: fix the file and choose it again`}
            .
          </p>
          <RowErrors errors={parsed.errors} testid="csv-errors" />
          {parsed.rows.length > 0 && (
            <>
              <Table testId="csv-rows" caption="Rows of the file; rows with errors are marked" head={['Row', 'Check', ...COLUMNS]}>
                {parsed.rows.map((cells, i) => {
                  const bad = parsed.errors.some((e) => e.row === i + 1);
                  return (
                    <tr key={i} class={bad ? 'invalid' : ''} data-testid={bad ? 'bad-row' : undefined}>
                      <td>{i + 1}</td>
                      <td>{bad ? <strong class="bad">Error</strong> : 'OK'}</td>
                      {COLUMNS.map((c, j) => (
                        <td key={c} class={c === 'amount' ? 'num' : undefined}>
                          {c === 'amount' ? major(cells[0] ?? '', cells[1] ?? '', exponents) : (cells[j] ?? '')}
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </Table>
              <ul data-testid="batch-totals">
                {totals(parsed.rows, new Set(parsed.errors.map((e) => e.row))).map(([currency, sum, n]) => (
                  <li key={currency}>
                    {currency}: {n} payout{n === 1 ? '' : 's'}, total {major(sum.toString(), currency, exponents)}
                    {fee > 0n && (
                      <>
                        , fees {major((fee * BigInt(n)).toString(), currency, exponents)} ({major(fee.toString(), currency, exponents)} a payout, tax included),
                        taken from available with the amounts: {major((sum + fee * BigInt(n)).toString(), currency, exponents)}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
          <div class="actions">
            <button
              type="button"
              class="primary"
              onClick={() => void submit()}
              disabled={action.busy || parsed.errors.length > 0 || invalid !== null}
              data-testid="create-batch"
            >
              Create batch of {parsed.items.length}
            </button>
          </div>
        </>
      )}
      {invalid && (
        <>
          <p role="status" data-testid="batch-invalid">
            The server refused {invalid.errors.length} row{invalid.errors.length === 1 ? '' : 's'}: nothing was created.
          </p>
          <RowErrors errors={invalid.errors.map((x) => ({ row: x.row, column: columnOf(x.param), message: x.message }))} testid="batch-errors" />
        </>
      )}
      {action.error && (
        <p class="error" role="alert" data-testid="batch-create-error">
          {action.error}
        </p>
      )}
    </section>
  );
}
