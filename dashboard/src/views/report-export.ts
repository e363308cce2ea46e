/** Run a report and fetch its file: createReportRun, then poll the run until it has a result, then download result.url (the session cookie is enough). */
import type { Api } from '../api';
import type { CreateReportRunInput, ReportRunFieldsFragment } from '../gql/graphql';
import { CreateReportRunDocument, ReportRunDocument } from '../operations/finance';

export async function runReport(api: Api, input: CreateReportRunInput, onUpdate?: (run: ReportRunFieldsFragment) => void): Promise<ReportRunFieldsFragment> {
  let run = (await api.mutate(CreateReportRunDocument, { input })).createReportRun;
  if (!run) throw new Error('The report run was not created.');
  onUpdate?.(run);
  for (let wait = 500; run.status === 'PENDING'; wait = Math.min(wait * 1.5, 5000)) {
    await new Promise((r) => setTimeout(r, wait));
    run = (await api.query(ReportRunDocument, { id: run.id })).reportRun ?? run;
    onUpdate?.(run);
  }
  if (run.status === 'FAILED') throw new Error(`The report failed: ${run.error ?? 'no reason given'}`);
  return run;
}

/** Starts the browser's download of a run's file. */
export function download(run: ReportRunFieldsFragment): void {
  if (!run.result?.url) throw new Error('The file is no longer kept (files are deleted after 7 days).');
  const a = document.createElement('a');
  a.href = run.result.url;
  a.download = `${run.id}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
}

/** The first of this month and the first of the next, as datetime-local values. */
export function thisMonth(): [string, string] {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const at = (y: number, m: number) => `${new Date(y, m, 1).getFullYear()}-${pad(new Date(y, m, 1).getMonth() + 1)}-01T00:00`;
  return [at(now.getFullYear(), now.getMonth()), at(now.getFullYear(), now.getMonth() + 1)];
}
