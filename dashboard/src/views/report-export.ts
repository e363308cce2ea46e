/**
 * Run a report and learn live when it is done: createReportRun, then the `reportRun(id:)`
 * subscription with `after` = the last event the dashboard had seen before the create, so a
 * run that finished before the subscription started is replayed, not missed. Nothing polls.
 * The file is a download of result.url (the session cookie is enough).
 */
import type { CreateReportRunInput, ReportRunFieldsFragment, ReportRunWatchSubscription } from '../gql/graphql';
import { CreateReportRunDocument, ReportRunWatchDocument } from '../operations/finance';
import type { Ctx } from '../ui';

type Run = ReportRunFieldsFragment;

/** Calls `onUpdate` with the run at each of its events until it is no longer pending; returns the stop. */
export function watchRun(live: Ctx['live'], id: string, after: string | null, onUpdate: (run: Run) => void, onError: (message: string) => void): () => void {
  const stop = live.watch<ReportRunWatchSubscription>(
    ReportRunWatchDocument,
    () => ({ id, after }),
    (data) => {
      after = data.reportRun.event.id;
      onUpdate(data.reportRun.reportRun);
      if (data.reportRun.reportRun.status !== 'PENDING') stop();
    },
    onError,
  );
  return stop;
}

/** Creates the run and resolves with it once it succeeded (rejects when it failed). */
export async function runReport(ctx: Pick<Ctx, 'api' | 'live'>, input: CreateReportRunInput): Promise<Run> {
  const after = ctx.live.lastEventId();
  const created = (await ctx.api.mutate(CreateReportRunDocument, { input })).createReportRun;
  if (!created) throw new Error('The report run was not created.');
  const run =
    created.status !== 'PENDING'
      ? created
      : await new Promise<Run>((resolve, reject) =>
          watchRun(
            ctx.live,
            created.id,
            after,
            (r) => r.status !== 'PENDING' && resolve(r),
            (message) => reject(new Error(message)),
          ),
        );
  if (run.status === 'FAILED') throw new Error(`The report failed: ${run.error ?? 'no reason given'}`);
  return run;
}

/** Starts the browser's download of a run's file. */
export function download(run: Run): void {
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
