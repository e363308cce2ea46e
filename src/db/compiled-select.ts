/**
 * Hot reads (API key lookup, get by id, batch get, list pages) without TypeORM's query
 * building on every request. A SELECT is built by the query builder once per *shape* (which
 * filters are present, how many values an IN list has), its SQL and parameter order are kept,
 * and later requests of the same shape send that SQL with their own values and hydrate the
 * rows with TypeORM's own conversions. Profiling showed query building (select expressions,
 * property-name rewriting, escaping) at about a third of a REST read's CPU.
 *
 * Hydration is planned once per shape too (`planHydration`): for a one-table select (every
 * hot read) each row becomes an entity by a precomputed list of (raw key, column), through
 * the driver's `prepareHydratedValue` (types and column transformers, as TypeORM does). A
 * shape the plan does not cover (joins, inheritance, lazy relations, embedded columns, load
 * listeners) is run by the builder's own `getMany()` on every request instead.
 *
 * Only TypeORM's public API is used: the builder's `getQuery`/`getParameters`, the driver's
 * `escapeQueryWithParameters` and `prepareHydratedValue`, `EntityMetadata#create`, and
 * `EntityManager#query` to send the SQL (on MySQL/MariaDB mysql2's `execute` instead: a
 * prepared statement, src/db/prepared.ts).
 *
 * The parameter order is learnt by building once with a unique sentinel per named value:
 * the driver's positional array then says which name sits at each `?`. The SQL is the
 * builder's (or, for a list, the builder's with index hints: `EditedSelect`), so what the
 * database sees is unchanged (EXPLAIN tests still hold), and statements still pass through
 * the query runner (counted and logged as before).
 */
import { SelectQueryBuilder, type Driver, type EntityManager, type EntityMetadata, type ObjectLiteral } from 'typeorm';
import { BoundedMemo } from '../domain/bounded-memo';
import { preparedRead } from './prepared';

type Value = string | number | bigint | boolean | null;
export type SelectValues = Record<string, Value | readonly Value[]>;

/**
 * A SELECT whose text its maker finished after the builder wrote it, with what the builder
 * cannot write (an index hint, a UNION ALL of branches): `sql` is `qb.getQuery()` edited, its
 * named parameters (`:name`, `:...list`) those of `qb`. The builder stays as it was, so
 * `qb.getMany()` runs the same query without the edits (same rows, another plan).
 */
export interface EditedSelect<E extends ObjectLiteral> {
  qb: SelectQueryBuilder<E>;
  sql: string;
}

/** What a hot read runs: a query builder, or one with its SQL text edited. */
export type Select<E extends ObjectLiteral> = SelectQueryBuilder<E> | EditedSelect<E>;

function parts<E extends ObjectLiteral>(select: Select<E>): { qb: SelectQueryBuilder<E>; sql: string } {
  return select instanceof SelectQueryBuilder ? { qb: select, sql: select.getQuery() } : select;
}

/** Raw rows to entities, as the builder's `getMany()` makes them. */
export type Hydrate = (raw: ObjectLiteral[], driver: Driver) => ObjectLiteral[];

type Column = EntityMetadata['columns'][number];

/**
 * How the rows of a query become entities, planned once: for a select from one table without
 * joins, inheritance, lazy relations, embedded or relation columns, a query cache, or load
 * listeners (null for any other query: run it with `getMany()`). `getMany()` then groups the
 * raw rows by primary key (one table: every row is its own group), creates the entity and
 * sets each selected column from its raw key (`<alias>_<column>`) through the driver's
 * `prepareHydratedValue`; the plan does exactly the last two. `sql` is the query's text: every
 * planned key must be one of its select aliases, or there is no plan. The test
 * test/db/compiled-select.test.ts compares the plan with `getMany()` on every entity.
 */
export function planHydration(qb: SelectQueryBuilder<ObjectLiteral>, sql = qb.getQuery()): Hydrate | null {
  const { expressionMap: map, connection } = qb;
  const alias = map.mainAlias;
  if (!alias?.hasMetadata) return null;
  const { metadata } = alias;
  if (
    map.joinAttributes.length > 0 ||
    map.relationIdAttributes.length > 0 ||
    map.cache ||
    map.options.includes('create-pojo') ||
    metadata.tableType === 'view' ||
    metadata.discriminatorColumn ||
    metadata.childEntityMetadatas.length > 0 ||
    metadata.lazyRelations.length > 0 ||
    metadata.afterLoadListeners.length > 0 ||
    connection.subscribers.some((s) => typeof s.afterLoad === 'function')
  )
    return null;
  const selections = new Set(map.selects.map((s) => s.selection));
  const selected = metadata.columns.filter((c) => !c.isVirtual && (selections.has(alias.name) || selections.has(`${alias.name}.${c.propertyPath}`)));
  if (selected.some((c) => c.embeddedMetadata || c.isVirtualProperty || c.relationMetadata || c.referencedColumn)) return null;
  const plan: [key: string, property: string, column: Column][] = selected.map((c) => [`${alias.name}_${c.databaseName}`, c.propertyName, c]);
  // Longer keys are hashed by the builder; a key the SQL does not select would hydrate nothing.
  const max = connection.driver.maxAliasLength;
  if (plan.some(([key]) => (max && key.length > max) || !sql.includes(` AS ${qb.escape(key)}`))) return null;
  return (raw, driver) => {
    const out: ObjectLiteral[] = [];
    for (const row of raw) {
      const entity = metadata.create(undefined, { fromDeserializer: true }) as ObjectLiteral;
      let hasData = false;
      for (const [key, property, column] of plan) {
        const value: unknown = row[key];
        if (value === undefined) continue;
        if (value !== null) hasData = true;
        entity[property] = driver.prepareHydratedValue(value, column) as unknown;
      }
      // As getMany: a row whose selected columns are all NULL is no entity.
      if (hasData) out.push(entity);
    }
    return out;
  };
}

/**
 * Runs `select` once (no shape cache): its SQL through `em` (the unit of work the builder was
 * made by), hydrated by the plan; a query the plan does not cover runs as `qb.getMany()`
 * (without the edits of an `EditedSelect`).
 */
export async function runSelect<E extends ObjectLiteral>(em: EntityManager, select: Select<E>): Promise<E[]> {
  const { qb, sql } = parts(select);
  const hydrate = planHydration(qb, sql);
  if (!hydrate) return qb.getMany();
  return hydrate(await rawRows(em, qb, sql), em.connection.driver) as E[];
}

/** `select`'s rows as the driver reads them (keys `<alias>_<column>`), no entities: through `em`, with the edits of an `EditedSelect`. */
export function runRawSelect<E extends ObjectLiteral>(em: EntityManager, select: Select<E>): Promise<ObjectLiteral[]> {
  const { qb, sql } = parts(select);
  return rawRows(em, qb, sql);
}

function rawRows(em: EntityManager, qb: SelectQueryBuilder<ObjectLiteral>, sql: string): Promise<ObjectLiteral[]> {
  const [text, params] = em.connection.driver.escapeQueryWithParameters(sql, qb.getParameters());
  return em.query(text, params);
}

interface Compiled {
  sql: string;
  /** For each positional parameter: [name] or [name, index in the array]. */
  order: [string, number?][];
  /** Raw rows to entities; null: the shape runs as `getMany()` on each request. */
  hydrate: Hydrate | null;
}

const SENTINEL = '\u0000cs:';
/** Shapes are few (a handful per list); the bound only guards against a bug that makes keys unbounded. */
const MAX_SHAPES = 2_000;
const compiled = new BoundedMemo<Compiled>(MAX_SHAPES);

/** The cache key: the caller's name for the query plus the length of every array value. */
function shapeOf(name: string, values: SelectValues): string {
  let key = name;
  for (const k of Object.keys(values)) {
    const v = values[k];
    key += Array.isArray(v) ? `|${k}[${v.length}]` : `|${k}`;
  }
  return key;
}

function compile(select: Select<ObjectLiteral>, values: SelectValues): Compiled {
  const { qb, sql: named } = parts(select);
  const sentinels: Record<string, unknown> = {};
  const byToken = new Map<string, [string, number?]>();
  for (const [name, v] of Object.entries(values)) {
    if (Array.isArray(v)) {
      sentinels[name] = v.map((_, i) => {
        const token = `${SENTINEL}${name}:${i}`;
        byToken.set(token, [name, i]);
        return token;
      });
    } else {
      const token = `${SENTINEL}${name}`;
      byToken.set(token, [name]);
      sentinels[name] = token;
    }
  }
  const [sql, positional] = qb.connection.driver.escapeQueryWithParameters(named, { ...qb.getParameters(), ...sentinels });
  const order = positional.map((p) => {
    const at = typeof p === 'string' ? byToken.get(p) : undefined;
    if (!at) throw new Error('compiledSelect: a parameter of the query is not among its values');
    return at;
  });
  if (sql.includes(SENTINEL)) throw new Error('compiledSelect: a value was inlined into the SQL');
  return { sql, order, hydrate: planHydration(qb, named) };
}

/**
 * Runs the SELECT that `build` makes (named parameters taken from `values`, every one of
 * them; no other parameter), building it only the first time this shape is seen.
 * `name` must identify the query's structure apart from `values` (e.g. `payout.get`).
 */
export async function compiledSelect<E extends ObjectLiteral>(
  em: EntityManager,
  name: string,
  values: SelectValues,
  build: (em: EntityManager) => Select<E>,
  options: { shareLock?: boolean } = {},
): Promise<E[]> {
  const key = `${em.connection.options.type}:${shapeOf(name, values)}${options.shareLock ? ':share' : ''}`;
  const entry = compiled.get(key, () => {
    const built = compile(build(em), values);
    if (!built.hydrate && options.shareLock) throw new Error(`compiledSelect: ${name} locks rows, and only a one-table select can`);
    // A shared row lock on MySQL/MariaDB (TypeORM's pessimistic_read writes FOR SHARE, which
    // MariaDB does not parse; LOCK IN SHARE MODE is understood by both). SQLite has no row locks.
    return options.shareLock && em.connection.options.type === 'mysql' ? { ...built, sql: `${built.sql} LOCK IN SHARE MODE` } : built;
  });
  if (!entry.hydrate) {
    // Not a one-table select: the builder runs it, with this request's values.
    return parts(build(em)).qb.setParameters(values).getMany();
  }
  const params = entry.order.map(([n, i]) => {
    const v = values[n];
    const one = i === undefined ? v : (v as readonly Value[])[i];
    // As the drivers' own escaping does for SQLite (which has no boolean); MySQL takes 1/0 alike.
    return typeof one === 'boolean' ? +one : one;
  });
  const raw = await preparedRead(em, entry.sql, params);
  return entry.hydrate(raw, em.connection.driver) as E[];
}
