/**
 * Writes events into the outbox inside the caller's transaction. Event types are
 * `<resource>.created` and `<resource>.<new status>` (docs/contract.md "Events and webhooks").
 *
 * Ordering: every event gets `seq`, its position in the (merchant, environment) stream,
 * from a counter row incremented inside the event's own transaction. The counter row stays
 * locked until that transaction ends, so a later event of the same scope can only take the
 * next number after the earlier one committed (or rolled back, taking its number with it):
 * the committed events of a scope are always exactly 1..N, in commit order, with no gaps.
 * A reader that has seen up to N and asks for `seq > N` can never miss a late commit.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { isId, newId } from '../../domain/ids';
import { encodeCursor, ListParams, listQuerySchema, Page, parseListQuery, toPage } from '../../domain/listing';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import { check } from '../../domain/schema';
import type { Scope } from '../../domain/scope';
import { actorOf, type ActingScope } from './event.wire';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import { insertOf } from '../../db/compiled-write';
import type { Batch, Statement } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { ApiKey } from '../auth/api-key.entity';
import { EventRecord } from './event.entity';
import { EVENT_LIST } from './event.schemas';
import { eventToWire, type CommittedEvent, type EventWire, type WireRecord } from './event.wire';

export { parseTypeFilter, typeMatches, type CommittedEvent, type EventWire, type WireRecord } from './event.wire';

/**
 * Plans what an event is written with in its own transaction (the webhook fan-out's delivery
 * rows, src/modules/webhook-fan-out). Called before the scope's counter is taken, with the event
 * rows (all but their `seq`); the statements it returns are sent after the event rows', in the
 * same round trip, so its reads happen before the counter row is locked, not while it is held.
 */
export interface EventFanOut {
  plan(em: EntityManager, events: readonly EventRecord[]): Promise<Statement[]>;
}

export class EventService {
  private readonly committedListeners: ((events: CommittedEvent[]) => void)[] = [];

  constructor(
    private readonly db: Db,
    readonly fanOut: EventFanOut,
  ) {}

  /**
   * Listeners told of events once their unit of work commits (`tx.afterCommit`): a fast path
   * only, subscribers also poll the database, which stays the source of truth.
   */
  onCommitted(listener: (events: CommittedEvent[]) => void): void {
    this.committedListeners.push(listener);
  }

  /** Tells the listeners of committed events (src/modules/events/event-bulk.ts calls it too). */
  announce(events: CommittedEvent[]): void {
    for (const listener of this.committedListeners) {
      try {
        listener(events);
      } catch {
        /* a listener's failure never affects the unit of work */
      }
    }
  }

  /**
   * Records `<record.object>.<suffix>` with a snapshot of the record, now, in `tx`. The event's
   * `actor` is the scope's principal (the key or member of the request); none for the scheduler,
   * a provider's settlement and the payer's page, whose scopes carry no principal.
   */
  async record(tx: Tx, scope: ActingScope, suffix: string, record: WireRecord, requestId: string | null, now = new Date()): Promise<EventRecord> {
    return tx.now(await this.prepare(tx, scope, suffix, record, requestId, now));
  }

  /**
   * `record` in two steps: the fan-out's reads now, and the batch (src/db/batch.ts) that takes
   * the scope's next number and writes the event and what the fan-out writes: the part that
   * holds the counter row until commit, which the caller returns for the end of the unit of
   * work (src/db/batch.ts `EndWork`). Its
   * statements need no answer from each other (the event row reads its `seq` from the
   * counter row in the INSERT itself), so they go in the same round trip.
   */
  async prepare(tx: Tx, scope: ActingScope, suffix: string, record: WireRecord, requestId: string | null, now = new Date()): Promise<Batch<EventRecord>> {
    const type = `${record.object}.${suffix}`;
    const event = Object.assign(new EventRecord(), {
      id: newId('event', now.getTime()),
      merchantId: scope.merchantId,
      environment: scope.environment,
      type,
      resourceId: record.id,
      data: record as unknown as Record<string, unknown>,
      requestId,
      actor: actorOf(scope),
      createdAt: now,
      seq: null as number | null,
    });
    const statements = [
      this.nextSeq(tx, scope),
      insertOf(tx, EventRecord, [event], {
        property: 'seq',
        sql: 'SELECT last_seq FROM event_sequences WHERE merchant_id = ? AND environment = ?',
        values: [scope.merchantId, scope.environment],
      }),
    ];
    statements.push(...(await this.fanOut.plan(tx, [event])));
    return {
      // From the first statement on the counter row stays locked until the transaction ends.
      statements,
      after: ([counted]: unknown[]) => {
        const seq = this.counted(tx, counted);
        event.seq = seq;
        tx.afterCommit(() => this.announce([{ merchantId: scope.merchantId, environment: scope.environment, seq }]));
        return event;
      },
    };
  }

  /**
   * Takes the next number of the scope's stream in one statement; the counter row stays
   * locked until commit. MySQL/MariaDB: the upsert hands the new value back through
   * LAST_INSERT_ID(expr) (the OK packet's insert id); a first insert sets no insert id (the
   * table has no AUTO_INCREMENT column), which reads 0 and means 1. SQLite: RETURNING.
   */
  private nextSeq(em: EntityManager, scope: Scope): Statement {
    const sql =
      em.connection.options.type === 'mysql'
        ? 'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1)'
        : 'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, 1) ON CONFLICT (merchant_id, environment) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq';
    return { sql, params: [scope.merchantId, scope.environment] };
  }

  /** The number `nextSeq`'s statement answered. */
  private counted(em: EntityManager, result: unknown): number {
    if (em.connection.options.type === 'mysql') {
      const id = Number((result as { insertId?: number | string }).insertId ?? 0);
      return id > 0 ? id : 1;
    }
    return Number((result as { last_seq: string | number }[])[0].last_seq);
  }

  // ---- reads ----

  async get(scope: Scope, id: string): Promise<EventWire> {
    const row = await this.find(scope, id);
    if (!row) throw ApiError.notFound('event');
    return EventService.toWire(row);
  }

  async find(scope: Scope, id: string): Promise<EventRecord | null> {
    if (!isId('event', id)) return null;
    return this.db.read((em) => em.findOneBy(EventRecord, { id, merchantId: scope.merchantId, environment: scope.environment }));
  }

  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, EventWire>> {
    const rows = await findManyInScope(this.db, EventRecord, 'event', scope, ids);
    return new Map([...rows].map(([id, r]) => [id, EventService.toWire(r)]));
  }

  /** Listing rules plus `type`; `cursor` also accepts an event id (docs/contract.md): the page after that event. */
  async parseList(scope: Scope, query: Record<string, unknown>): Promise<ListParams> {
    const cursor = query.cursor;
    if (typeof cursor === 'string' && cursor.startsWith('evt_')) {
      check(listQuerySchema(EVENT_LIST), query, 'query'); // a malformed query is named before the event is looked up
      const event = await this.find(scope, cursor);
      if (!event) throw ApiError.validation('cursor', 'cursor is not an event of this API key, nor a cursor returned by this list.');
      query = { ...query, cursor: encodeCursor(EVENT_LIST.resource, scope, { t: event.createdAt.getTime(), id: event.id }) };
    }
    return parseListQuery(query, EVENT_LIST, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<EventWire>> {
    const rows = await this.db.read((em) => {
      const qb = applyList(em.createQueryBuilder(EventRecord, 'e'), 'e', scope, params);
      const types = params.extra.type?.split(',');
      if (types) {
        const exact = types.filter((t) => !t.endsWith('.*'));
        const prefixes = types.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
        if (prefixes.length === 0) {
          // Exact types: a range of ix_events_type_list (merchant_id, environment, type, created_at, id)
          // per type from the cursor down, limit + 1 entries each at any depth (listRows).
          const clause = 'e.type IN (:...exactTypes)';
          qb.andWhere(clause, { exactTypes: exact });
          return listRows(em, qb, 'e', params, {
            list: 'ix_events_list',
            byValue: { clause, column: 'type', values: exact, index: 'ix_events_type_list' },
          });
        }
        const clauses: string[] = [];
        const args: Record<string, unknown> = {};
        if (exact.length) {
          clauses.push('e.type IN (:...exactTypes)');
          args.exactTypes = exact;
        }
        prefixes.forEach((p, i) => {
          clauses.push(`e.type LIKE :typePrefix${i}`);
          args[`typePrefix${i}`] = `${p}%`;
        });
        qb.andWhere(`(${clauses.join(' OR ')})`, args);
        // A wildcard: the list index from the cursor down until the page is full, rows read in
        // proportion to how rare the matching types are, not to the depth (an index on type would
        // read every matching event below the cursor, and sort them).
      }
      return listRows(em, qb, 'e', params, listIndexesOf('events', false));
    });
    return toPage(rows, params, EVENT_LIST.resource, scope, EventService.toWire);
  }

  /** The seq of an event of this scope, for `after`; 404-style validation error when unknown. */
  async seqOf(scope: Scope, id: string, param = 'after'): Promise<number> {
    const event = await this.find(scope, id);
    if (!event || event.seq === null) throw ApiError.validation(param, `${param} must be the id of an event of this API key's merchant and environment.`);
    return event.seq;
  }

  /** The newest seq of a scope (0 when it has no events). */
  async lastSeq(scope: Scope): Promise<number> {
    const rows: { last_seq: string | number }[] = await this.db.read((em) =>
      em.query('SELECT last_seq FROM event_sequences WHERE merchant_id = ? AND environment = ?', [scope.merchantId, scope.environment]),
    );
    return rows.length ? Number(rows[0].last_seq) : 0;
  }

  /** Committed events of a scope with seq > `afterSeq`, oldest first; none once `readerKeyId` is revoked. */
  async since(scope: Scope, afterSeq: number, limit = 200, readerKeyId?: string): Promise<EventRecord[]> {
    return this.db.read((em) => {
      const qb = em.createQueryBuilder(EventRecord, 'e').where('e.merchant_id = :merchantId AND e.environment = :environment AND e.seq > :afterSeq', {
        merchantId: scope.merchantId,
        environment: scope.environment,
        afterSeq,
      });
      // In the same statement (one snapshot): if it sees an event committed after the
      // reader's key was revoked, it also sees the revocation, and returns nothing.
      if (readerKeyId) {
        qb.andWhere(
          (sub) => `NOT EXISTS ${sub.subQuery().select('1').from(ApiKey, 'k').where('k.id = :readerKeyId AND k.revoked_at IS NOT NULL').getQuery()}`,
          { readerKeyId },
        );
      }
      return qb.orderBy('e.seq', 'ASC').limit(limit).getMany();
    });
  }

  /**
   * `since` for a scope's shared live reader (EventHub): committed events with seq >
   * `afterSeq`, oldest first, and which of `readerKeyIds` are revoked, in ONE statement
   * (one snapshot): if it sees an event committed after a key's revocation, it also sees
   * the revocation, and the hub hands that key's streams nothing. The revoked ids ride on
   * every row as a scalar subquery column (no rows: nothing to hand out, nothing to check).
   */
  async sinceShared(scope: Scope, afterSeq: number, limit: number, readerKeyIds: readonly string[]): Promise<{ rows: EventRecord[]; revoked: Set<string> }> {
    return this.db.read(async (em) => {
      const qb = em.createQueryBuilder(EventRecord, 'e').where('e.merchant_id = :merchantId AND e.environment = :environment AND e.seq > :afterSeq', {
        merchantId: scope.merchantId,
        environment: scope.environment,
        afterSeq,
      });
      if (readerKeyIds.length > 0) {
        qb.addSelect(
          (sub) => sub.select('GROUP_CONCAT(k.id)').from(ApiKey, 'k').where('k.id IN (:...readerKeyIds) AND k.revoked_at IS NOT NULL', { readerKeyIds }),
          'revoked_keys',
        );
      }
      const { entities, raw } = await qb.orderBy('e.seq', 'ASC').limit(limit).getRawAndEntities();
      const revoked = new Set<string>();
      const list = (raw[0] as { revoked_keys?: string | null } | undefined)?.revoked_keys;
      if (list) for (const id of String(list).split(',')) revoked.add(id);
      return { rows: entities, revoked };
    });
  }

  /** The newest seq of several scopes at once (one statement; subscriptions' shared poller). */
  async lastSeqs(scopes: Scope[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (scopes.length === 0) return out;
    const merchants = [...new Set(scopes.map((s) => s.merchantId))];
    const rows: { merchant_id: string; environment: string; last_seq: string | number }[] = await this.db.read((em) =>
      em.query(`SELECT merchant_id, environment, last_seq FROM event_sequences WHERE merchant_id IN (${merchants.map(() => '?').join(',')})`, merchants),
    );
    for (const r of rows) out.set(`${r.merchant_id}/${r.environment}`, Number(r.last_seq));
    return out;
  }

  static toWire(this: void, event: EventRecord): EventWire {
    return eventToWire(event);
  }
}
