/** Upload a payout batch CSV: read and checked in the browser, rows and errors shown, nothing sent until it is clean; then createPayoutBatch. */
import { useState } from 'preact/hooks';
import type { BatchFieldsFragment } from '../gql/graphql';
import { CreatePayoutBatchDocument } from '../operations/batches';
import { Table, useAction, useApp } from '../ui';
import { columnOf, COLUMNS, readCsv, TEMPLATE_HREF, type ParsedCsv } from './batch-csv';
import { RowErrors } from './batch-errors';

export function BatchUpload({ onCreated }: { onCreated: (batch: BatchFieldsFragment) => void }) {
  const { api } = useApp();
  const action = useAction();
  const [name, setName] = useState('');
  const [parsed, setParsed] = useState<ParsedCsv | null>(null);
  // A batch the server found invalid: nothing was created; its row errors stay shown here.
  const [invalid, setInvalid] = useState<BatchFieldsFragment | null>(null);

  const choose = async (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    setParsed(null);
    setInvalid(null);
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
        Header <code>{COLUMNS.join(',')}</code>; amounts in minor units. Nothing is created until every row passes.{' '}
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
            <Table testId="csv-rows" caption="Rows of the file" head={['Row', ...COLUMNS]}>
              {parsed.rows.map((cells, i) => (
                <tr key={i} class={parsed.errors.some((e) => e.row === i + 1) ? 'invalid' : ''}>
                  <td>{i + 1}</td>
                  {COLUMNS.map((c, j) => (
                    <td key={c}>{cells[j] ?? ''}</td>
                  ))}
                </tr>
              ))}
            </Table>
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
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
    </section>
  );
}
