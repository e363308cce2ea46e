/**
 * Hot reads (API key lookup, get by id, batch get, list pages) without TypeORM's query
 * building on every request. A SELECT is built by the query builder once per *shape* (which
 * filters are present, how many values an IN list has), its SQL and parameter order are kept,
 * and later requests of the same shape send that SQL with their own values and map the rows
 * to entities. Profiling showed query building (select expressions, property-name rewriting,
 * escaping) at about a third of a REST read's CPU.
 *
 * Rows become entities by a row mapper (`rowMapper`), made once per query text from the
 * entity's public column metadata: for each column the SQL selects, its raw key
 * (`<alias>_<column>`), its property and its declared transformer. The entities declare only
 * column types that both drivers hand over as the entity holds them before the transformer
 * (`AS_READ`); a column of any other type, a join, an entity with relations, embedded columns
 * or inheritance, or a DataSource with load subscribers has no mapper, and the query runs as
 * the builder's own `getMany()` on every request instead. Entities declare no `@AfterLoad`
 * listeners (test/architecture.spec.ts keeps it so): the mapper would not call them.
 *
 * Only TypeORM's public API is used: the builder's `getQuery`/`getParameters`/`alias`/
 * `escape`, the driver's `escapeQueryWithParameters` and `maxAliasLength`, the DataSource's
 * `entityMetadatas` (`tableName`, `target`, `columns`: `databaseName`, `propertyName`,
 * `type`, `transformer`) and `subscribers`, and `EntityManager#query` to send the SQL (on
 * MySQL/MariaDB mysql2's `execute` instead: a prepared statement, src/db/prepared.ts). The
 * entity of a builder is found from the SQL it writes: `FROM <table> <alias>`, the text the
 * list queries already write their index hints into (src/db/list-query.ts).
 *
 * The parameter order is learnt by building once with a unique sentinel per named value:
 * the driver's positional array then says which name sits at each `?`. The SQL is the
 * builder's (or, for a list, the builder's with index hints: `EditedSelect`), so what the
 * database sees is unchanged (EXPLAIN tests still hold), and statements still pass through
 * the query runner (counted and logged as before).
 */
import { SelectQueryBuilder, type EntityManager, type ObjectLiteral, type ValueTransformer } from 'typeorm';
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

/** Raw rows (keys `<alias>_<column>`) to entities, as the builder's `getMany()` makes them. */
export type RowMapper = (raw: ObjectLiteral[]) => ObjectLiteral[];

/**
 * Column types whose values both drivers hand over as the entity holds them, before the
 * column's transformer (TypeORM's drivers convert only booleans, dates, times, JSON, enums,
 * arrays and `Number` columns): strings, `int` as a number, `bigint` as a number while it is a
 * safe integer and a string beyond (both drivers, decision 0187), which every `bigint` column of
 * the entities turns into what it holds by its transformer (src/db/columns.ts). Every type the
 * entities declare.
 */
const AS_READ: ReadonlySet<unknown> = new Set(['varchar', 'text', 'int', 'bigint']);

/** The table a builder's query reads, as the builder wrote it: `FROM <table> <alias>`. */
export interface MainTable {
  /** The table's name, unquoted. */
  name: string;
  /** `FROM <table> <alias>`, quoted as in the SQL. */
  from: string;
}

const fromPatterns = new BoundedMemo<RegExp>(100);

/**
 * The table `qb` reads, found in `sql` (its query, or the query edited: the first
 * `FROM <table> <alias>` with the builder's own quoting); undefined when there is none.
 */
export function mainTable(qb: SelectQueryBuilder<ObjectLiteral>, sql: string): MainTable | undefined {
  const alias = qb.escape(qb.alias);
  const [open, close] = qb.escape('');
  const pattern = fromPatterns.get(`${open}${alias}`, () => {
    const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(` FROM ${re(open)}([^${re(close)}]+)${re(close)} ${re(alias)}(?= |$)`);
  });
  const found = pattern.exec(sql);
  return found ? { name: found[1], from: found[0].slice(1) } : undefined;
}

/** A column's value read from the database to the entity's, by its declared transformer(s) (TypeORM applies a list last to first). */
function fromDatabase(transformer: ValueTransformer | ValueTransformer[] | undefined): ((value: unknown) => unknown) | undefined {
  if (!transformer) return undefined;
  if (!Array.isArray(transformer)) return (value) => transformer.from(value) as unknown;
  const reversed = [...transformer].reverse();
  return (value) => reversed.reduce((v, t) => t.from(v) as unknown, value);
}

const mappers = new BoundedMemo<RowMapper | null>(2_000);

/**
 * How the rows of `qb`'s query (its text `sql`: the builder's, or the builder's edited) become
 * entities, made once per query text: null where `getMany()` must run it instead (a join, an
 * entity with relations, embedded columns, inheritance or a column type outside `AS_READ`,
 * a DataSource with load subscribers or entity options the mapper does not follow). For a
 * one-table select `getMany()` groups the raw rows by primary key (every row its own group),
 * creates the entity (its constructor) and sets each selected column from its raw key
 * through the column's transformer; the mapper does the same. A row whose selected columns are
 * all NULL is no entity, as there. test/db/compiled-select.suite.ts compares it with
 * `getMany()` on every entity.
 */
export function rowMapper(qb: SelectQueryBuilder<ObjectLiteral>, sql = qb.getQuery()): RowMapper | null {
  const ds = qb.connection;
  return mappers.get(`${ds.options.type}:${qb.alias}:${sql}`, () => {
    if (ds.options.entitySkipConstructor || ds.options.typename) return null;
    if (ds.subscribers.some((s) => typeof s.afterLoad === 'function')) return null;
    if (/\bJOIN\b/.test(sql)) return null;
    const table = mainTable(qb, sql);
    const entities = table ? ds.entityMetadatas.filter((m) => m.tableName === table.name) : [];
    if (entities.length !== 1) return null;
    const [metadata] = entities;
    const Entity = metadata.target;
    if (typeof Entity !== 'function' || metadata.tableType !== 'regular' || metadata.discriminatorColumn) return null;
    if (metadata.relations.length > 0 || metadata.embeddeds.length > 0) return null;
    // Longer keys are hashed by the builder; a key the SQL does not select is not set.
    const max = ds.driver.maxAliasLength;
    const plan: [key: string, property: string, from: ((value: unknown) => unknown) | undefined][] = [];
    for (const column of metadata.columns) {
      const key = `${qb.alias}_${column.databaseName}`;
      if (max && key.length > max) return null;
      if (column.isVirtual || !sql.includes(` AS ${qb.escape(key)}`)) continue;
      if (column.isVirtualProperty || !AS_READ.has(column.type)) return null;
      plan.push([key, column.propertyName, fromDatabase(column.transformer)]);
    }
    if (plan.length === 0) return null;
    const make = Entity as new () => ObjectLiteral;
    return (raw) => {
      const out: ObjectLiteral[] = [];
      for (const row of raw) {
        const entity = new make();
        let hasData = false;
        for (const [key, property, from] of plan) {
          const value: unknown = row[key];
          if (value === undefined) continue;
          if (value !== null) hasData = true;
          entity[property] = from ? from(value) : value;
        }
        // As getMany: a row whose selected columns are all NULL is no entity.
        if (hasData) out.push(entity);
      }
      return out;
    };
  });
}

/**
 * Runs `select` once (no shape cache): its SQL through `em` (the unit of work the builder was
 * made by), its rows mapped by `rowMapper`; a query without a mapper runs as `qb.getMany()`
 * (without the edits of an `EditedSelect`).
 */
export async function runSelect<E extends ObjectLiteral>(em: EntityManager, select: Select<E>): Promise<E[]> {
  const { qb, sql } = parts(select);
  const toEntities = rowMapper(qb, sql);
  if (!toEntities) return qb.getMany();
  return toEntities(await rawRows(em, qb, sql)) as E[];
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
  toEntities: RowMapper | null;
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
  return { sql, order, toEntities: rowMapper(qb, named) };
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
    if (!built.toEntities && options.shareLock) throw new Error(`compiledSelect: ${name} locks rows, and only a one-table select can`);
    // A shared row lock on MySQL/MariaDB (TypeORM's pessimistic_read writes FOR SHARE, which
    // MariaDB does not parse; LOCK IN SHARE MODE is understood by both). SQLite has no row locks.
    return options.shareLock && em.connection.options.type === 'mysql' ? { ...built, sql: `${built.sql} LOCK IN SHARE MODE` } : built;
  });
  if (!entry.toEntities) {
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
  return entry.toEntities(raw) as E[];
}
