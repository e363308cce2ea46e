/**
 * Reports: request a report run for an interval and download the CSV. Every pending run in
 * view is watched live by its `reportRun(id:)` subscription (from the last event seen when
 * the list loaded, so one that finished meanwhile is replayed): pending turns succeeded or
 * failed without a reload and without polling.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ReportRunFieldsFragment, ReportType } from '../gql/graphql';
import { label, objectIdOf, when } from '../format';
import { CreateReportRunDocument, ReportRunsDocument } from '../operations/finance';
import { ListState, Pager, Status, Table, useAction, useApp, useLive, usePaged } from '../ui';
import { isoOf } from './amount';
import { thisMonth, watchRun } from './report-export';

const TYPES: ReportType[] = ['BALANCE_SUMMARY', 'BALANCE_TRANSACTIONS_ITEMIZED', 'PAYMENTS_ITEMIZED', 'PAYOUTS_ITEMIZED', 'REFUNDS_ITEMIZED'];

export function Reports() {
  const { api, can, live } = useApp();
  const [month] = useState(thisMonth);
  const [form, setForm] = useState({ type: 'BALANCE_SUMMARY', from: month[0], to: month[1], currency: '' });
  const action = useAction();
  const [since, setSince] = useState<string | null>(null);
  const paged = usePaged<ReportRunFieldsFragment>(async (after) => {
    setSince(live.lastEventId());
    return (await api.query(ReportRunsDocument, { after })).reportRuns;
  }, 'reports');
  const replace = (run: ReportRunFieldsFragment) => paged.update((rows) => rows.map((r) => (r.id === run.id ? run : r)));
  const put = (run: ReportRunFieldsFragment) => paged.update((rows) => [run, ...rows.filter((r) => r.id !== run.id)]);
  // The listed runs still pending, a run requested here included.
  const pending = paged.nodes
    .filter((r) => r.status === 'PENDING')
    .map((r) => r.id)
    .join(',');
  useEffect(() => {
    const stops = pending ? pending.split(',').map((id) => watchRun(live, id, since, replace, () => undefined)) : [];
    return () => stops.forEach((stop) => stop());
  }, [pending, since]);
  // A run this page does not list (requested elsewhere) appears when it finishes.
  useLive((e) => {
    if (e.type.startsWith('report_run.') && paged.page === 1 && !paged.nodes.some((r) => r.id === objectIdOf(e))) paged.refresh();
  });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const start = isoOf(form.from);
      const end = isoOf(form.to);
      if (!start || !end) throw new Error('Choose the interval (from and to).');
      const currency = form.currency.trim().toUpperCase();
      const input = { reportType: form.type as ReportType, intervalStart: start, intervalEnd: end, ...(currency ? { currency } : {}) };
      const run = (await api.mutate(CreateReportRunDocument, { input })).createReportRun;
      if (run) put(run);
    });
  };
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title">Reports</h1>
      {can('report_runs:write') && (
        <form class="filters" onSubmit={submit} data-testid="report-form">
          <label>
            Report
            <select value={form.type} onChange={set('type')} data-testid="report-type">
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
          <label>
            Currency (optional)
            <input value={form.currency} onInput={set('currency')} maxLength={3} size={4} />
          </label>
          <button type="submit" class="primary" disabled={action.busy} data-testid="run-report">
            Run report
          </button>
        </form>
      )}
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
      <ListState paged={paged} empty="No reports yet.">
        <Table testId="reports" caption="Report runs, newest first" head={['Report', 'Status', ['Interval', 'wide'], 'File']}>
          {paged.nodes.map((r) => (
            <tr key={r.id} data-testid={`report-${r.id}`} data-status={r.status}>
              <td>{label(r.reportType)}</td>
              <td>
                <Status value={r.status} />
                {r.error && <div class="error">{r.error}</div>}
              </td>
              <td class="wide">
                {when(r.parameters.intervalStart)} – {when(r.parameters.intervalEnd)}
                {r.parameters.currency ? ` (${r.parameters.currency})` : ''}
              </td>
              <td>
                {r.result?.url ? (
                  <a href={r.result.url} download={`${r.id}.csv`} data-testid="download">
                    Download CSV<span class="sr"> of {label(r.reportType)}</span> ({r.result.rows} rows)
                  </a>
                ) : r.status === 'SUCCEEDED' ? (
                  'Deleted after 7 days'
                ) : (
                  ''
                )}
              </td>
            </tr>
          ))}
        </Table>
        <Pager paged={paged} />
      </ListState>
    </section>
  );
}
