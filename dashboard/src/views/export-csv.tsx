/**
 * What the four finance lists share (balance transactions, payments, payouts, refunds): the
 * interval and currency filter fields, and "Export CSV", which runs the list's itemized report
 * for the applied interval and currency, learns live that it is done, and downloads the file.
 * A report takes an interval and a currency only: a list's other filters (status, reference,
 * type) are not applied to the file, and the button says so.
 */
import { useState } from 'preact/hooks';
import type { ReportType } from '../gql/graphql';
import { useAction, useApp } from '../ui';
import { isoOf } from './amount';
import { download, runReport } from './report-export';

/** The interval (datetime-local values, `to` exclusive) and currency a list is filtered by. */
export interface Interval {
  from: string;
  to: string;
  currency: string;
}

export const NO_INTERVAL: Interval = { from: '', to: '', currency: '' };

/** The GraphQL list filter of an interval: createdGte, createdLt, currency (only those set). */
export function intervalFilter(i: Interval): { createdGte?: string; createdLt?: string; currency?: string } {
  const start = isoOf(i.from);
  const end = isoOf(i.to);
  const currency = i.currency.trim().toUpperCase();
  return { ...(start ? { createdGte: start } : {}), ...(end ? { createdLt: end } : {}), ...(currency ? { currency } : {}) };
}

/** From, To (exclusive) and Currency fields of a filter form. */
export function IntervalFields({ value, onChange }: { value: Interval; onChange: (v: Interval) => void }) {
  const set = (k: keyof Interval) => (e: Event) => onChange({ ...value, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <>
      <label>
        From
        <input type="datetime-local" value={value.from} onInput={set('from')} data-testid="filter-from" />
      </label>
      <label>
        To (exclusive)
        <input type="datetime-local" value={value.to} onInput={set('to')} data-testid="filter-to" />
      </label>
      <label>
        Currency
        <input value={value.currency} onInput={set('currency')} maxLength={6} size={6} data-testid="filter-currency" />
      </label>
    </>
  );
}

/** "Export CSV" of `reportType` for the applied interval; `ignored` names the list's filters the file does not apply. */
export function ExportCsv({ reportType, interval, ignored }: { reportType: ReportType; interval: Interval; ignored: string }) {
  const ctx = useApp();
  const [state, setState] = useState('');
  const exporting = useAction();
  if (!ctx.can('report_runs:write')) return null;
  const exportCsv = () =>
    exporting.run(async () => {
      const { createdGte, createdLt, currency } = intervalFilter(interval);
      if (!createdGte || !createdLt) throw new Error('Choose the interval to export (from and to), then Apply.');
      setState('Generating the report…');
      const run = await runReport(ctx, { reportType, intervalStart: createdGte, intervalEnd: createdLt, ...(currency ? { currency } : {}) });
      download(run);
      setState(`Downloaded ${run.result?.rows ?? 0} rows.`);
    });
  return (
    <div class="export">
      <button type="button" onClick={() => void exportCsv()} disabled={exporting.busy} data-testid="export-csv" aria-describedby="export-note">
        Export CSV
      </button>
      <span id="export-note" class="muted">
        The file has the applied interval and currency; {ignored} filters are not applied.
      </span>
      <p class={exporting.error ? 'error' : 'muted'} role="status" data-testid="export-state">
        {exporting.error ?? state}
      </p>
    </div>
  );
}
