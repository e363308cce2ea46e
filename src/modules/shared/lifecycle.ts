/**
 * The lifecycle engine: the one place where a record changes state. `apply` takes a
 * transition by name from the resource's state table and, in the caller's transaction,
 * refuses it with the table's code when the record is elsewhere, makes the conditional
 * update (`... WHERE status = :from`, so a concurrent change can never be applied twice),
 * posts the table's ledger effect, and records the event. `create` does the same for a
 * new record: insert, entry ledger effect, `created` event. The ledger effect and the event
 * take the merchant's hot locks (balance row, event counter): each method returns them, in
 * this order, with the wire record (`Written`), and its caller passes them up to the end of
 * the unit of work, where they run after its other writes (src/ops/phases.ts, src/db/tx.ts).
 * A ledger effect with fees (a payment's success, a payout's) reads the merchant's fee
 * schedule first, in the transaction (src/modules/balances/fee.service.ts).
 */
import type { Actor } from '../../domain/scope';
import type { EndWork, Written } from '../../db/batch';
import { insertRows } from '../../db/compiled-write';
import type { Tx } from '../../db/tx';
import type { StateMachine } from '../../domain/state-machine';
import type { LedgerService, LedgerSource } from '../balances/ledger.service';
import type { EventService } from '../events/event.service';
import type { IntentRow, IntentStore } from './intent-store';

/** What the engine needs of a record: a state, and an amount in a currency when it moves money. */
export interface LifecycleRow extends IntentRow {
  amount: bigint;
  currency: string;
}

/** A payment's method, whose rate its fee follows (null for the other records). */
function methodOf(row: LifecycleRow): string | null {
  const method: unknown = row.paymentMethod;
  return typeof method === 'string' ? method : null;
}

export interface LifecycleDeps {
  ledger: LedgerService;
  events: EventService;
}

export class Lifecycle<E extends LifecycleRow, S extends E['status'], T extends string, W extends { object: string; id: string }> {
  constructor(
    private readonly deps: LifecycleDeps,
    readonly machine: StateMachine<S, T>,
    readonly store: IntentStore<E, W>,
    private readonly toWire: (row: E) => W,
  ) {}

  /** Inserts a new record in the table's entry state, with its ledger effect and `created` event. */
  async create(tx: Tx, actor: Actor, row: E, now: Date): Promise<Written<W>> {
    await insertRows(tx, this.store.entity, [row]);
    const { ledger } = this.machine.entry;
    const end: EndWork[] = [];
    if (ledger) end.push(await this.deps.ledger.effect(tx, actor, row.currency, row.amount, ledger, this.source(row), now, methodOf(row)));
    const recorded = await this.record(tx, actor, row, 'created', now);
    return { value: recorded.value, end: [...end, ...recorded.end] };
  }

  /** Applies transition `name` to a row already locked in `tx`; returns the new wire record. */
  async apply(tx: Tx, actor: Actor, row: E, name: T, changes: Partial<E> = {}, now = new Date()): Promise<Written<W>> {
    const t = this.machine.check(name, row.status as S);
    await this.store.transition(tx, actor, row, t.to, changes, now);
    const end: EndWork[] = [];
    if (t.ledger) end.push(await this.deps.ledger.effect(tx, actor, row.currency, row.amount, t.ledger, this.source(row), now, methodOf(row)));
    const recorded = await this.record(tx, actor, row, t.event ?? t.to, now);
    return { value: recorded.value, end: [...end, ...recorded.end] };
  }

  /** Locks the record `id` of the actor's scope (404 when it is not there) and applies `name` to it. */
  async applyTo(tx: Tx, actor: Actor, id: string, name: T, changes: Partial<E> = {}, now = new Date()): Promise<Written<W>> {
    return this.apply(tx, actor, await this.store.lock(tx, actor, id), name, changes, now);
  }

  /** Records `<object>.<suffix>` for the row as it is now: the wire record, and the event's write for the end of `tx`. */
  async record(tx: Tx, actor: Actor, row: E, suffix: string, now: Date): Promise<Written<W>> {
    const wire = this.toWire(row);
    return { value: wire, end: [await this.deps.events.prepare(tx, actor, suffix, wire, actor.requestId, now)] };
  }

  private source(row: E): Omit<LedgerSource, 'entryType'> {
    return { sourceType: this.machine.name as LedgerSource['sourceType'], sourceId: row.id };
  }
}
