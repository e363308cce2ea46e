/**
 * Atomic phases (Brandur Leach): each phase is one unit of work (`Db.tx`, a `Tx`); between two
 * phases a provider call runs outside any transaction (`Db.outside`). `onDone` runs in the
 * last phase, so what it writes commits with the final change. The work that takes a
 * merchant's hot locks (ledger effects, events) is queued with `tx.atEnd` and runs after
 * `onDone`, at the end of the phase, just before its COMMIT: on MySQL in one round trip
 * (src/db/tx.ts).
 */
import type { Db } from '../db/db';
import type { Tx } from '../db/tx';
import { Done, isDone, type Step } from '../domain/operation';
import type { Statement } from '../db/batch';

/** What the pipeline adds around an operation's phases. */
export interface PhaseHooks<T> {
  /** Runs in the last phase, after the operation's own work, before the end-of-unit work. */
  onDone?: (tx: Tx, done: Done<T>) => Promise<void>;
  /** Runs once the first phase committed without being the last (its writes are durable). */
  afterFirst?: () => void;
  /** The first phase's first statement, sent with its START TRANSACTION (src/db/tx.ts `opening`). */
  opening?: Statement;
}

export async function runPhases<T>(db: Db, first: (tx: Tx) => Promise<Step<T>>, hooks: PhaseHooks<T> = {}): Promise<Done<T>> {
  const phase = (fn: (tx: Tx) => Promise<Step<T>>, opening?: Statement) =>
    db.tx(
      async (tx) => {
        const step = await fn(tx);
        if (hooks.onDone && isDone(step)) await hooks.onDone(tx, step);
        return step;
      },
      { opening },
    );
  let step = await phase(first, hooks.opening);
  if (!isDone(step)) hooks.afterFirst?.();
  while (!isDone(step)) {
    const external = step;
    const answer: unknown = await db.outside(external.call);
    step = await phase((tx) => external.finish(tx, answer));
  }
  return step;
}
