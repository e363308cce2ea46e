/**
 * A unit of work on MySQL: its own pooled connection, under hard limits (waiting for the
 * connection, each statement, the whole unit) and the outage gate. A long wait has the
 * server probed (src/db/outage.ts). A missed limit or an outage destroys the connection; that
 * and every unavailability error become DatabaseUnavailableError.
 *
 * The statement limit is kept through TypeORM's query events: `StatementTimers`, a subscriber
 * in the DataSource's `subscribers` option (src/db/data-source.ts), starts the statement's
 * timer in `beforeQuery` for a runner of a running unit and stops it in `afterQuery`; a
 * statement sent past TypeORM (a prepared one) is timed by `watchedStatement`.
 */
import { EventSubscriber, type AfterQueryEvent, type BeforeQueryEvent, type DataSource, type EntitySubscriberInterface, type QueryRunner } from 'typeorm';
import type { DbSettings } from '../config';
import { connectRunner, destroyConnection, within } from './deadline';
import { DatabaseUnavailableError, isDatabaseUnavailable, reasonOf } from './errors';
import type { OutageProbe } from './outage';

/** The timers of one running unit's statements, oldest first (a connection runs them in order). */
interface Watch {
  start(): void;
  stop(): void;
  /** The unit ended: no timer of it may fire any more. */
  clear(): void;
}

/** The statement timers of each running unit, by its query runner. */
const watches = new WeakMap<QueryRunner, Watch>();

/**
 * Runs `statement`, sent on `runner`'s connection without the query runner (a prepared
 * statement, src/db/prepared.ts), under the unit's statement limit as TypeORM's queries are.
 */
export async function watchedStatement<T>(runner: QueryRunner, statement: () => Promise<T>): Promise<T> {
  const watch = watches.get(runner);
  watch?.start();
  try {
    return await statement();
  } finally {
    watch?.stop();
  }
}

/**
 * Times each statement TypeORM sends on a running unit's query runner (MySQL/MariaDB): a
 * subscriber of the DataSource, named in its `subscribers` option (TypeORM makes one).
 */
@EventSubscriber()
export class StatementTimers implements EntitySubscriberInterface {
  beforeQuery(event: BeforeQueryEvent): void {
    if (event.queryRunner) watches.get(event.queryRunner)?.start();
  }

  afterQuery(event: AfterQueryEvent): void {
    if (event.queryRunner) watches.get(event.queryRunner)?.stop();
  }
}

export class Units {
  private closed = false;

  constructor(
    private readonly ds: DataSource,
    private readonly settings: DbSettings,
    private readonly probe: OutageProbe,
  ) {
    // Without the subscriber no statement of a unit would be timed: refused, not left unbounded.
    const subscribers = ds.options.subscribers;
    if (ds.options.type === 'mysql' && !(Array.isArray(subscribers) && subscribers.includes(StatementTimers))) {
      throw new Error('Units: the DataSource has no StatementTimers subscriber (make it with createDataSource)');
    }
  }

  /** New units are refused (the pool is closing). */
  close(): void {
    this.closed = true;
  }

  /** Runs `body` on a connection of its own, under `deadline` and the acquire and statement limits. */
  async run<T>(deadline: number, body: (runner: QueryRunner) => Promise<T>): Promise<T> {
    if (this.closed && !this.ds.isInitialized) throw new DatabaseUnavailableError('closed');
    const refused = this.probe.refusal();
    if (refused) throw refused;
    if (deadline <= Date.now()) throw new DatabaseUnavailableError('timeout: unit of work');
    const s = this.settings;
    const runner = this.ds.createQueryRunner();
    let aborted: DatabaseUnavailableError | undefined;
    let rejectAborted!: (err: Error) => void;
    const abortedPromise = new Promise<never>((_, reject) => (rejectAborted = reject));
    abortedPromise.catch(() => undefined);
    const abort = (reason: string): DatabaseUnavailableError => {
      if (!aborted) {
        aborted = new DatabaseUnavailableError(reason);
        destroyConnection(runner, new DatabaseUnavailableError(reason));
        rejectAborted(aborted);
      }
      return aborted;
    };
    const slow = (what: string) => ({ afterMs: s.probeAfterMs, then: () => this.probe.suspect(`slow: ${what}`) });
    const untrack = this.probe.track(abort);
    const acquiring = connectRunner(runner);
    const work = (async () => {
      await within(
        acquiring,
        Math.min(s.acquireTimeoutMs, deadline - Date.now()),
        () => abort('timeout: waiting for a connection'),
        slow('waiting for a connection'),
      );
      if (aborted) throw aborted;
      watches.set(runner, this.statementWatch(deadline, abort));
      return body(runner);
    })();
    try {
      const result = await within(Promise.race([work, abortedPromise]), deadline - Date.now(), () => abort('timeout: unit of work'));
      if (aborted) throw aborted;
      return result;
    } catch (err) {
      const unavailable = aborted ?? (isDatabaseUnavailable(err) ? new DatabaseUnavailableError(reasonOf(err)) : undefined);
      if (!unavailable) throw err;
      if (!aborted) destroyConnection(runner, unavailable);
      this.probe.suspect(unavailable.reason);
      throw unavailable;
    } finally {
      untrack();
      watches.get(runner)?.clear();
      watches.delete(runner);
      // A connection that arrives after the unit gave up goes back to the pool (or, destroyed, nowhere).
      acquiring.then(
        () => runner.release(),
        () => undefined,
      );
      work.catch(() => undefined);
    }
  }

  /** Each statement: aborted after DB_QUERY_TIMEOUT_MS (or the unit's deadline), the server probed after DB_PROBE_AFTER_MS. */
  private statementWatch(deadline: number, abort: (reason: string) => void): Watch {
    const running: (() => void)[] = [];
    return {
      start: () => {
        const ms = Math.max(0, Math.min(this.settings.queryTimeoutMs, deadline - Date.now()));
        const timer = setTimeout(() => abort('timeout: statement'), ms);
        const slowTimer = this.settings.probeAfterMs < ms ? setTimeout(() => this.probe.suspect('slow: statement'), this.settings.probeAfterMs) : undefined;
        running.push(() => {
          clearTimeout(timer);
          if (slowTimer) clearTimeout(slowTimer);
        });
      },
      stop: () => running.shift()?.(),
      clear: () => {
        for (const stop of running.splice(0)) stop();
      },
    };
  }
}
