/**
 * Scoped persistence shared by every intent resource (payouts, topups, payments):
 * every query is bounded by (merchant_id, environment), row locks for transitions, and
 * conditional updates (`... WHERE status = :from`) so a concurrent transition can never
 * be applied twice.
 */
import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { EndWork } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import { isId, type IdKind } from '../../domain/ids';
import { ListParams, ListSpec, ListTotal, Page, parseListQuery, toPage } from '../../domain/listing';
import { applyList, countListRows, listIndexesOf, listValues, prepareListRows } from '../../db/list-query';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import { lockedOne } from '../../db/locking-read';

export interface IntentRow extends ObjectLiteral {
  id: string;
  merchantId: string;
  environment: string;
  status: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface IntentStoreOptions<E> {
  /**
   * Columns the wire record never shows (e.g. a sealed account number, a scheduler deadline):
   * not selected by the reads that only map rows to the wire (`get`, `getMany`, `list`).
   * Transitions and the scheduler read whole rows.
   */
  wireOmits?: (keyof E & string)[];
}

export class IntentStore<E extends IntentRow, W> {
  private wireColumns: string[] | null | undefined;

  constructor(
    private readonly db: Db,
    readonly entity: EntityTarget<E>,
    /** The kind of id its records carry: any other shape is unknown without a query. */
    readonly idKind: IdKind,
    /** Human name for messages, e.g. "payout intent". */
    readonly noun: string,
    readonly listSpec: ListSpec,
    readonly toWire: (row: E) => W,
    private readonly options: IntentStoreOptions<E> = {},
  ) {}

  /** A scoped read of the columns the wire record needs. */
  private forWire(qb: SelectQueryBuilder<E>): SelectQueryBuilder<E> {
    if (this.wireColumns === undefined) {
      const omit = new Set<string>(this.options.wireOmits ?? []);
      const { columns } = qb.connection.getMetadata(this.entity);
      this.wireColumns = omit.size === 0 ? null : columns.filter((c) => !omit.has(c.propertyName)).map((c) => `r.${c.propertyName}`);
    }
    return this.wireColumns ? qb.select(this.wireColumns) : qb;
  }

  scoped(em: EntityManager, scope: Scope): SelectQueryBuilder<E> {
    return em.createQueryBuilder(this.entity, 'r').where('r.merchant_id = :merchantId AND r.environment = :environment', {
      merchantId: scope.merchantId,
      environment: scope.environment,
    });
  }

  async findLocked(em: EntityManager, scope: Scope, id: string): Promise<E | null> {
    if (!isId(this.idKind, id)) return null;
    return lockedOne(em, this.scoped(em, scope).andWhere('r.id = :id', { id }));
  }

  /** Loads and row-locks a record for a transition, or 404s. */
  async lock(em: EntityManager, scope: Scope, id: string): Promise<E> {
    const row = await this.findLocked(em, scope, id);
    if (!row) throw ApiError.notFound(this.noun);
    return row;
  }

  /**
   * `locking` reads the latest committed row under a shared lock (needed after an INSERT
   * met the reference on the unique index: the transaction's snapshot may predate that row).
   */
  async findByReference(em: EntityManager, scope: Scope, reference: string, locking = false): Promise<E | null> {
    const [row] = await compiledSelect(
      em,
      `${this.idKind}.byReference`,
      { merchantId: scope.merchantId, environment: scope.environment, reference },
      () => this.scoped(em, scope).andWhere('r.merchant_reference = :reference', { reference }),
      { shareLock: locking },
    );
    return row ?? null;
  }

  /** Applies `changes` only if the record is still in `from`; throws invalid_state otherwise. */
  async transition(em: EntityManager, scope: Scope, row: E, to: string, changes: Partial<E>, now: Date): Promise<void> {
    const from = row.status;
    const result = await em
      .createQueryBuilder()
      .update(this.entity)
      .set({ ...changes, status: to, updatedAt: now })
      .where('id = :id AND merchant_id = :merchantId AND environment = :environment AND status = :from', {
        id: row.id,
        merchantId: scope.merchantId,
        environment: scope.environment,
        from,
      })
      .execute();
    if (result.affected !== 1) {
      throw new ApiError('invalid_state', `This ${this.noun} changed concurrently; it is no longer ${from}.`);
    }
    Object.assign(row, changes, { status: to, updatedAt: now });
  }

  /** Changes fields other than the state of a row locked in `em`'s transaction (the state stays as it is). */
  async patch(em: EntityManager, scope: Scope, row: E, changes: Partial<E>, now: Date): Promise<void> {
    const result = await em
      .createQueryBuilder()
      .update(this.entity)
      .set({ ...changes, updatedAt: now })
      .where('id = :id AND merchant_id = :merchantId AND environment = :environment AND status = :status', {
        id: row.id,
        merchantId: scope.merchantId,
        environment: scope.environment,
        status: row.status,
      })
      .execute();
    if (result.affected !== 1) throw new ApiError('invalid_state', `This ${this.noun} changed concurrently; reload it.`);
    Object.assign(row, changes, { updatedAt: now });
  }

  async get(scope: Scope, id: string): Promise<W> {
    if (!isId(this.idKind, id)) throw ApiError.notFound(this.noun);
    const [row] = await this.db.read((em) =>
      compiledSelect(em, `${this.idKind}.get`, { merchantId: scope.merchantId, environment: scope.environment, id }, () =>
        this.forWire(this.scoped(em, scope)).andWhere('r.id = :id', { id }),
      ),
    );
    if (!row) throw ApiError.notFound(this.noun);
    return this.toWire(row);
  }

  /** Batch lookup for DataLoader: one statement for any number of ids. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, W>> {
    const wellFormed = ids.filter((id) => isId(this.idKind, id));
    if (wellFormed.length === 0) return new Map();
    const rows = await this.db.read((em) =>
      compiledSelect(em, `${this.idKind}.getMany`, { merchantId: scope.merchantId, environment: scope.environment, ids: wellFormed }, () =>
        this.forWire(this.scoped(em, scope)).andWhere('r.id IN (:...ids)', { ids: wellFormed }),
      ),
    );
    return new Map(rows.map((r) => [r.id, this.toWire(r)]));
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, this.listSpec, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<W>> {
    // The SQL is built once per shape (filters present, page size); see compiledSelect.
    // The order is part of the shape: a sort, its direction and `last` change the SQL, not only its values.
    const order = `${params.sort?.name ?? 'created_at'}:${params.reverse ? 'asc' : 'desc'}${params.fromEnd ? ':last' : ''}`;
    const rows = await this.db.read(async (em) => {
      // Every intent table has ix_<table>_list and ix_<table>_status_list (migration 1733700000000),
      // and the sorted ones ix_<table>_<sort>_sort (migration 1741617900000).
      const indexes = listIndexesOf(em.connection.getMetadata(this.entity).tableName, true, Object.keys(this.listSpec.sorts ?? {}));
      const build = () => this.forWire(applyList(em.createQueryBuilder(this.entity, 'r'), 'r', scope, params));
      const page: E[] & { total?: ListTotal } = await compiledSelect(em, `${this.idKind}.list:${params.limit}:${order}`, listValues(scope, params), () =>
        prepareListRows(build(), 'r', params, indexes),
      );
      if (params.count) page.total = await countListRows(em, build(), 'r', params, indexes);
      return page;
    });
    return toPage(rows, params, this.listSpec.resource, scope, this.toWire);
  }

  /**
   * Rows whose deadline column has passed while in `status`, across all merchants, for
   * the scheduler. Each is then transitioned under its own scope and row lock.
   */
  async due(column: string, status: string, now: Date, limit = 50): Promise<{ id: string; scope: Scope }[]> {
    // Built once per column and limit (every scheduler pass of every job asks, idle or not).
    const rows = await this.db.read((em) =>
      compiledSelect(em, `${this.idKind}.due:${column}:${limit}`, { status, now: now.getTime() }, (m) =>
        m
          .createQueryBuilder(this.entity, 'r')
          .select(['r.id', 'r.merchantId', 'r.environment'])
          .where(`r.status = :status AND r.${column} IS NOT NULL AND r.${column} <= :now`)
          .orderBy(`r.${column}`, 'ASC')
          .limit(limit),
      ),
    );
    return rows.map((r) => ({ id: r.id, scope: { merchantId: r.merchantId, environment: r.environment as Scope['environment'] } }));
  }

  /**
   * The scheduler's loop over `due` rows: each is re-read under its row lock in its own
   * transaction and handed to `step` only if it is still in `status`; `step` moves it and
   * returns the writes for the end of the unit (sent with its COMMIT), or declines (false).
   * Returns how many rows `step` moved.
   *
   * With `call` (a provider call), each row is first read without a lock, `call` runs
   * outside any transaction, and its answer goes to `step` in the transaction that follows:
   * a slow provider holds no lock, and a row that moved on meanwhile is left alone.
   */
  async processDue<X = undefined>(
    column: string,
    status: string,
    now: Date,
    step: (tx: Tx, row: E, scope: Scope, answer: X) => Promise<EndWork[] | false>,
    call?: (row: E, scope: Scope) => Promise<X>,
  ): Promise<number> {
    let moved = 0;
    for (const { id, scope } of await this.due(column, status, now)) {
      let answer = undefined as X;
      if (call) {
        const row = await this.db.read((em) => this.scoped(em, scope).andWhere('r.id = :id', { id }).getOne());
        if (row === null || row.status !== status) continue;
        answer = await this.db.outside(() => call(row, scope));
      }
      const done = await this.db.unit(async (em) => {
        const row = await this.findLocked(em, scope, id);
        const end = row !== null && row.status === status ? await step(em, row, scope, answer) : false;
        return end === false ? { value: false, end: [] } : { value: true, end };
      });
      if (done) moved++;
    }
    return moved;
  }
}

/** The reads every intent service offers, served by its scoped store. */
export abstract class IntentReads<E extends IntentRow, W> {
  constructor(protected readonly store: IntentStore<E, W>) {}

  get(scope: Scope, id: string): Promise<W> {
    return this.store.get(scope, id);
  }

  getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, W>> {
    return this.store.getMany(scope, ids);
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return this.store.parseList(scope, query);
  }

  list(scope: Scope, params: ListParams): Promise<Page<W>> {
    return this.store.list(scope, params);
  }
}
