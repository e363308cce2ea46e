/**
 * Hot locks last. A merchant's writes all meet on two rows: its event counter
 * (`event_sequences`) and, when money moves, its balance. Whatever locks them holds the lock
 * until COMMIT, so every statement a transaction runs after taking them lengthens the time
 * the merchant's other writes wait. A unit of work that opens a late queue (`openLate`; the
 * atomic phases of src/ops/phases.ts do) has the work that takes those locks (ledger
 * effects, events) queued by `late` and run by `runLate` at its very end, after its own
 * rows, the audit entry and the idempotency answer are written: the locks are then held for
 * the last few statements and the COMMIT only. Without a queue, `late` runs the work at once.
 *
 * The queued work still runs in the same transaction: a refusal it raises (e.g.
 * insufficient_balance) rolls back everything, exactly as before.
 */
import type { EntityManager } from 'typeorm';

const queues = new WeakMap<EntityManager, (() => Promise<unknown>)[]>();

export function openLate(em: EntityManager): void {
  queues.set(em, []);
}

/** Runs `fn` at the end of `em`'s unit of work if it has a late queue, now otherwise. */
export async function late(em: EntityManager, fn: () => Promise<unknown>): Promise<void> {
  const queue = queues.get(em);
  if (queue) queue.push(fn);
  else await fn();
}

/** Runs the queued work in order (work may queue more); the queue is closed afterwards. */
export async function runLate(em: EntityManager): Promise<void> {
  const queue = queues.get(em);
  if (!queue) return;
  try {
    for (let fn = queue.shift(); fn; fn = queue.shift()) await fn();
  } finally {
    queues.delete(em);
  }
}
