/**
 * Atomic phases (Brandur Leach): each phase is one transaction; between two phases a
 * provider call runs outside any transaction (`Db.outside`). `onDone` runs in the last
 * phase's transaction, so what it writes commits with the final change. The work that
 * takes a merchant's hot locks (ledger effects, events; src/db/late.ts) runs last in each
 * phase, after `onDone`, so those locks are held only for the end of the transaction: on
 * MySQL its last round trip, which also carries the COMMIT.
 * `afterFirst` runs once the first phase committed without being the last (its writes, an
 * idempotency key held in flight among them, are then durable).
 */
import type { EntityManager } from 'typeorm';
import { Done, isDone, Step } from '../domain/operation';
import type { Db } from '../db/db';
import { openLate, runLate } from '../db/late';

export async function runPhases<T>(
  db: Db,
  first: (em: EntityManager) => Promise<Step<T>>,
  onDone?: (em: EntityManager, done: Done<T>) => Promise<void>,
  afterFirst?: () => void,
): Promise<Done<T>> {
  const phase = (fn: (em: EntityManager) => Promise<Step<T>>) => db.tx(async (em) => {
    openLate(em);
    const step = await fn(em);
    if (onDone && isDone(step)) await onDone(em, step);
    await runLate(em, { commit: true });
    return step;
  });
  let step = await phase(first);
  if (!isDone(step)) afterFirst?.();
  while (!isDone(step)) {
    const external = step;
    const answer = await db.outside(external.call);
    step = await phase((em) => external.finish(em, answer));
  }
  return step;
}
