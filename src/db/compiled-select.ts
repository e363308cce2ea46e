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
 * the driver's `prepareHydratedValue` (types and column transformers, as TypeORM does). TypeORM's
 * transformer, built per call, rebuilt its alias and column caches and a grouping key string per
 * row on every request; it is still used for any shape the plan does not cover (joins,
 * inheritance, lazy relations, embedded columns).
 *
 * The parameter order is learnt by building once with a unique sentinel per named value:
 * the driver's positional array then says which name sits at each `?`. The SQL is the
 * builder's, so what the database sees is unchanged (EXPLAIN tests still hold), and
 * statements still pass through the query runner (counted and logged as before).
 */
import type { Driver, EntityManager, ObjectLiteral, QueryRunner, SelectQueryBuilder } from 'typeorm';
import type { Alias } from 'typeorm/query-builder/Alias';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { RawSqlResultsToEntityTransformer } from 'typeorm/query-builder/transformer/RawSqlResultsToEntityTransformer';
import { BoundedMemo } from '../domain/bounded-memo';

type Value = string | number | bigint | boolean | null;
export type SelectValues = Record<string, Value | readonly Value[]>;

interface Compiled {
  sql: string;
  /** For each positional parameter: [name] or [name, index in the array]. */
  order: [string, number?][];
  /** Raw rows to entities, as TypeORM's transformer makes them. */
  hydrate: Hydrate;
}

export type Hydrate = (raw: ObjectLiteral[], driver: Driver, queryRunner: QueryRunner | undefined) => ObjectLiteral[];

/** TypeORM's transformer, whose column list (raw key, column) the plan reuses. */
interface ColumnsOf { getColumnsToProcess(aliasName: string, metadata: Alias['metadata']): Map<string, ColumnMetadata> }

/**
 * How the rows of a query become entities, planned once: for a select from one table without
 * joins, inheritance, lazy relations or embedded columns (null for any other query, which
 * keeps TypeORM's transformer). Per row, the transformer groups by primary key (one table:
 * every row is its own group), creates the entity and sets each selected column from its raw
 * key through the driver's `prepareHydratedValue`; the plan does exactly the last two, with
 * the (raw key, column) list the transformer itself computes. test/db/compiled-select.test.ts
 * compares both on every entity's rows.
 */
export function planHydration(qb: SelectQueryBuilder<ObjectLiteral>): Hydrate | null {
  const { expressionMap } = qb;
  const alias = expressionMap.mainAlias!;
  const { metadata } = alias;
  if (expressionMap.joinAttributes.length > 0 || expressionMap.relationIdAttributes.length > 0 || metadata.discriminatorColumn
    || metadata.lazyRelations.length > 0 || metadata.tableType === 'view' || expressionMap.options.includes('create-pojo')) return null;
  const transformer = new RawSqlResultsToEntityTransformer(expressionMap, qb.connection.driver, [], undefined) as unknown as ColumnsOf;
  const columns = [...transformer.getColumnsToProcess(alias.name, metadata)];
  if (columns.some(([, c]) => c.embeddedMetadata || c.isVirtual || c.isVirtualProperty || c.referencedColumn)) return null;
  const plan = columns.map(([key, c]) => [key, c.propertyName, c] as const);
  return (raw, driver) => {
    const out: ObjectLiteral[] = [];
    for (const row of raw) {
      const entity: ObjectLiteral = metadata.create(undefined, { fromDeserializer: true });
      let hasData = false;
      for (const [key, property, column] of plan) {
        const value = row[key];
        if (value === undefined) continue;
        if (value !== null) hasData = true;
        entity[property] = driver.prepareHydratedValue(value, column);
      }
      // As the transformer: a row whose selected columns are all NULL is no entity.
      if (hasData) out.push(entity);
    }
    return out;
  };
}

/** TypeORM's own way, for the shapes `planHydration` does not cover. */
function transformerOf(qb: SelectQueryBuilder<ObjectLiteral>): Hydrate {
  const { expressionMap } = qb;
  return (raw, driver, queryRunner) =>
    new RawSqlResultsToEntityTransformer(expressionMap, driver, [], queryRunner).transform(raw, expressionMap.mainAlias!);
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

function compile(qb: SelectQueryBuilder<ObjectLiteral>, values: SelectValues): Compiled {
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
  qb.setParameters({ ...qb.getParameters(), ...sentinels });
  const [sql, positional] = qb.getQueryAndParameters();
  const order = positional.map((p) => {
    const at = typeof p === 'string' ? byToken.get(p) : undefined;
    if (!at) throw new Error('compiledSelect: a parameter of the query is not among its values');
    return at;
  });
  if (sql.includes(SENTINEL)) throw new Error('compiledSelect: a value was inlined into the SQL');
  return { sql, order, hydrate: planHydration(qb) ?? transformerOf(qb) };
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
  build: (em: EntityManager) => SelectQueryBuilder<E>,
  options: { shareLock?: boolean } = {},
): Promise<E[]> {
  const key = `${em.connection.options.type}:${shapeOf(name, values)}${options.shareLock ? ':share' : ''}`;
  const entry = compiled.get(key, () => {
    const built = compile(build(em) as SelectQueryBuilder<ObjectLiteral>, values);
    // A shared row lock on MySQL/MariaDB (TypeORM's pessimistic_read writes FOR SHARE, which
    // MariaDB does not parse; LOCK IN SHARE MODE is understood by both). SQLite has no row locks.
    return options.shareLock && em.connection.options.type === 'mysql' ? { ...built, sql: `${built.sql} LOCK IN SHARE MODE` } : built;
  });
  const params = entry.order.map(([n, i]) => {
    const v = values[n];
    const one = i === undefined ? v : (v as readonly Value[])[i];
    // As the drivers' own escaping does for SQLite (which has no boolean); MySQL takes 1/0 alike.
    return typeof one === 'boolean' ? +one : one;
  });
  const raw: ObjectLiteral[] = await em.query(entry.sql, params);
  return entry.hydrate(raw, em.connection.driver, em.queryRunner) as E[];
}
