/**
 * The lifecycle engine: the one place where a record changes state. `apply` takes a
 * transition by name from the resource's state table and, in the caller's transaction,
 * refuses it with the table's code when the record is elsewhere, makes the conditional
 * update (`... WHERE status = :from`, so a concurrent change can never be applied twice),
 * posts the table's ledger effect, and records the event. `create` does the same for a
 * new record: insert, entry ledger effect, `created` event.
 */
import type { EntityManager } from 'typeorm';
import type { Actor } from '../../domain/scope';
import { late } from '../../db/late';
import { insertRows } from '../../db/compiled-write';
import type { StateMachine } from '../../domain/state-machine';
import type { LedgerService, LedgerSource } from '../balances/ledger.service';
import type { EventService } from '../events/event.service';
import type { IntentRow, IntentStore } from './intent-store';

/** What the engine needs of a record: a state, and an amount in a currency when it moves money. */
export interface LifecycleRow extends IntentRow {
  amount: bigint;
  currency: string;
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
  async create(em: EntityManager, actor: Actor, row: E, now: Date): Promise<W> {
    await insertRows(em, this.store.entity, [row]);
    const { ledger } = this.machine.entry;
    if (ledger) await late(em, this.deps.ledger.effect(em, actor, row.currency, row.amount, ledger, this.source(row), now));
    return this.record(em, actor, row, 'created', now);
  }

  /** Applies transition `name` to a row already locked in `em`'s transaction; returns the new wire record. */
  async apply(em: EntityManager, actor: Actor, row: E, name: T, changes: Partial<E> = {}, now = new Date()): Promise<W> {
    const t = this.machine.check(name, row.status as S);
    await this.store.transition(em, actor, row, t.to, changes, now);
    if (t.ledger) await late(em, this.deps.ledger.effect(em, actor, row.currency, row.amount, t.ledger, this.source(row), now));
    return this.record(em, actor, row, t.event ?? t.to, now);
  }

  /** Locks the record `id` of the actor's scope (404 when it is not there) and applies `name` to it. */
  async applyTo(em: EntityManager, actor: Actor, id: string, name: T, changes: Partial<E> = {}, now = new Date()): Promise<W> {
    return this.apply(em, actor, await this.store.lock(em, actor, id), name, changes, now);
  }

  /**
   * Records `<object>.<suffix>` for the row as it is now. The ledger effect and the event
   * take the merchant's hot locks (balance row, event counter): in an atomic phase they run
   * at the end of the transaction (src/db/late.ts), in this order.
   */
  async record(em: EntityManager, actor: Actor, row: E, suffix: string, now: Date): Promise<W> {
    const wire = this.toWire(row);
    await late(em, await this.deps.events.prepare(em, actor, suffix, wire, actor.requestId, now));
    return wire;
  }

  private source(row: E): Omit<LedgerSource, 'entryType'> {
    return { sourceType: this.machine.name as LedgerSource['sourceType'], sourceId: row.id };
  }
}
