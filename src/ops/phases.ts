/**
 * Atomic phases (Brandur Leach): each phase is one unit of work (`Db.unit`, a `Tx`); between two
 * phases a provider call runs outside any transaction (`Db.outside`). A phase's step carries the
 * writes it leaves for the phase's end (`end`: the ledger effects and events, which take the
 * merchant's hot locks), as its services returned them; `onDone` runs in the last phase and adds
 * its own (the audit entry, the key's answer) after them. The phase returns them all to
 * `Db.unit`, which sends them, in that order, just before its COMMIT: on MySQL in one round trip
 * with the COMMIT (src/db/tx.ts `commitWith`).
 */
import type { Db } from '../db/db';
import type { Tx } from '../db/tx';
import { isDone, type Done, type Step } from '../domain/operation';
import type { EndWork, Statement } from '../db/batch';

/** What the pipeline adds around an operation's phases. */
export interface PhaseHooks<T> {
  /** Runs in the last phase, after the operation's own work; the writes it adds to the phase's end, after the operation's. */
  onDone?: (tx: Tx, done: Done<T, EndWork>) => Promise<EndWork[]>;
  /** Runs once the first phase committed without being the last (its writes are durable). */
  afterFirst?: () => void;
  /** The first phase's first statement, sent with its START TRANSACTION (src/db/tx.ts `opening`). */
  opening?: Statement;
}

export async function runPhases<T>(db: Db, first: (tx: Tx) => Promise<Step<T, Tx>>, hooks: PhaseHooks<T> = {}): Promise<Done<T>> {
  const phase = (fn: (tx: Tx) => Promise<Step<T, Tx>>, opening?: Statement) =>
    db.unit(
      async (tx) => {
        const step = await fn(tx);
        const end = [...(step.end ?? [])];
        if (hooks.onDone && isDone(step)) end.push(...(await hooks.onDone(tx, step)));
        return { value: step, end };
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
  // Its end writes are committed: what goes on is the outcome and the value.
  return { outcome: step.outcome, value: step.value };
}
