/**
 * Atomic phases (Brandur Leach): each phase is one transaction; between two phases a
 * provider call runs outside any transaction (`Db.outside`). `onDone` runs in the last
 * phase's transaction, so what it writes commits with the final change.
 */
import type { EntityManager } from 'typeorm';
import { Done, isDone, Step } from '../domain/operation';
import type { Db } from '../db/db';

export async function runPhases<T>(
  db: Db,
  first: (em: EntityManager) => Promise<Step<T>>,
  onDone?: (em: EntityManager, done: Done<T>) => Promise<void>,
): Promise<Done<T>> {
  const phase = (fn: (em: EntityManager) => Promise<Step<T>>) => db.tx(async (em) => {
    const step = await fn(em);
    if (onDone && isDone(step)) await onDone(em, step);
    return step;
  });
  let step = await phase(first);
  while (!isDone(step)) {
    const external = step;
    const answer = await db.outside(external.call);
    step = await phase((em) => external.finish(em, answer));
  }
  return step;
}
