/**
 * Hot writes (the rows of a create or a transition) without TypeORM's query building on
 * every request: the INSERT of an entity's rows is built once per (table, number of rows)
 * and later requests send their values through the same query runner, so statements are
 * still counted and logged. The SQL is the one TypeORM's InsertQueryBuilder writes
 * (`INSERT INTO \`t\`(\`a\`, \`b\`) VALUES (?, ?)`, every column in metadata order), and the
 * values are what it would bind (`driver.preparePersistentValue`: the column's transformer,
 * then the driver's conversion); a null is a bound NULL, as there. What it skips per request:
 * the builder's expression walks, the subscribers' beforeInsert/afterInsert broadcast (no
 * subscriber here listens to inserts; entities have no listeners) and the reload of default
 * or generated columns (these rows set every column themselves; for a table with such a
 * column TypeORM would SELECT the rows back or add RETURNING).
 *
 * A row with an undefined value (a column left to its DEFAULT) goes through `em.insert` as
 * before. test/db/compiled-write.suite.ts checks the SQL and values against the builder's.
 *
 * `updateWhere` is the same for a conditional UPDATE of a few columns: built once per (table,
 * changed columns, condition) and run with the affected-row count returned.
 */
import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import { BoundedMemo } from '../domain/bounded-memo';
import type { Statement } from './batch';

/** A column of an entity, as TypeORM's metadata describes it. */
type ColumnMetadata = EntityMetadata['columns'][number];

/** A statement built once: its SQL and the columns whose values fill its first `?`s, in order. */
interface Shape {
  sql: string;
  columns: ColumnMetadata[];
}

/** Shapes are a handful per table; the bound only guards against a caller that makes keys unbounded. */
const MAX_SHAPES = 2_000;
const inserts = new BoundedMemo<Shape>(MAX_SHAPES);
const updates = new BoundedMemo<Shape>(MAX_SHAPES);

function plainColumns(em: EntityManager, target: EntityTarget<ObjectLiteral>): { table: string; columns: ColumnMetadata[] } {
  const metadata = em.connection.getMetadata(target);
  const columns = metadata.columns.filter((c) => c.isInsert);
  for (const c of columns) {
    if (c.isGenerated || c.isVersion || c.isDiscriminator || c.relationMetadata || c.embeddedMetadata || c.isVirtual) {
      throw new Error(`compiled writes: ${metadata.tableName}.${c.databaseName} is not a plain column`);
    }
  }
  return { table: em.connection.driver.escape(metadata.tablePath), columns };
}

/**
 * A column whose value the database computes in the INSERT itself: `sql` is a scalar SQL
 * expression with its own `?`s, bound to `values` (e.g. the event's `seq`, read from the
 * counter row the same round trip just moved; src/db/tx.ts).
 */
export interface Computed {
  property: string;
  sql: string;
  values: unknown[];
}

function insertShape(em: EntityManager, target: EntityTarget<ObjectLiteral>, count: number, computed?: Computed): Shape {
  const key = `${em.connection.options.type}:${em.connection.getMetadata(target).tableName}:${count}${computed ? `:${computed.property}=${computed.sql}` : ''}`;
  return inserts.get(key, () => {
    const { table, columns } = plainColumns(em, target);
    const driver = em.connection.driver;
    const one = `(${columns.map((c) => (c.propertyName === computed?.property ? `(${computed.sql})` : '?')).join(', ')})`;
    return {
      sql: `INSERT INTO ${table}(${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES ${new Array<string>(count).fill(one).join(', ')}`,
      columns,
    };
  });
}

/** The SQL and values `insertRows` sends (tests compare them with the query builder's). */
export function insertStatement(
  em: EntityManager,
  target: EntityTarget<ObjectLiteral>,
  rows: readonly ObjectLiteral[],
  computed?: Computed,
): [string, unknown[]] | undefined {
  const shape = insertShape(em, target, rows.length, computed);
  const driver = em.connection.driver;
  const values: unknown[] = [];
  for (const row of rows) {
    for (const c of shape.columns) {
      if (c.propertyName === computed?.property) {
        values.push(...computed.values);
        continue;
      }
      const v: unknown = c.getEntityValue(row);
      if (v === undefined) return undefined;
      values.push(driver.preparePersistentValue(v, c));
    }
  }
  return [shape.sql, values];
}

/** `insertStatement` for rows that set every column (end-of-unit batches: src/db/batch.ts). */
export function insertOf(em: EntityManager, target: EntityTarget<ObjectLiteral>, rows: readonly ObjectLiteral[], computed?: Computed): Statement {
  const statement = insertStatement(em, target, rows, computed);
  if (!statement) throw new Error(`compiled writes: a row of ${em.connection.getMetadata(target).tableName} leaves a column unset`);
  return { sql: statement[0], params: statement[1] };
}

/** INSERTs `rows` (entities of `target` with every column set) in one statement in `em`'s unit of work. */
export async function insertRows(em: EntityManager, target: EntityTarget<ObjectLiteral>, rows: readonly ObjectLiteral[]): Promise<void> {
  if (rows.length === 0) return;
  const statement = insertStatement(em, target, rows);
  if (!statement) {
    await em.insert(target, rows);
    return;
  }
  await em.query(statement[0], statement[1]);
}

/** Rows per INSERT when one unit writes many: a bounded statement whatever their number. */
export const ROWS_PER_INSERT = 500;

/** `insertRows` for any number of rows, in INSERTs of at most ROWS_PER_INSERT rows. */
export async function insertAll(em: EntityManager, target: EntityTarget<ObjectLiteral>, rows: readonly ObjectLiteral[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insertRows(em, target, rows.slice(i, i + ROWS_PER_INSERT));
}

/**
 * `UPDATE <table> SET <changes> WHERE <where>` (`where` in column names with `?`, its values
 * in `whereValues`); the number of rows it changed. `name` identifies the condition.
 */
export async function updateWhere(
  em: EntityManager,
  target: EntityTarget<ObjectLiteral>,
  name: string,
  changes: ObjectLiteral,
  where: string,
  whereValues: unknown[],
): Promise<number> {
  const properties = Object.keys(changes);
  const key = `${em.connection.options.type}:${em.connection.getMetadata(target).tableName}:${name}:${properties.join(',')}`;
  const shape = updates.get(key, () => {
    const metadata = em.connection.getMetadata(target);
    const driver = em.connection.driver;
    const columns = properties.map((p) => {
      const c = metadata.findColumnWithPropertyPath(p);
      if (!c || !c.isUpdate) throw new Error(`compiled writes: ${metadata.tableName} has no updatable column for ${p}`);
      return c;
    });
    return {
      sql: `UPDATE ${driver.escape(metadata.tablePath)} SET ${columns.map((c) => `${driver.escape(c.databaseName)} = ?`).join(', ')} WHERE ${where}`,
      columns,
    };
  });
  const driver = em.connection.driver;
  const values = shape.columns.map((c): unknown => driver.preparePersistentValue(changes[c.propertyName], c));
  const runner = em.queryRunner;
  if (!runner) throw new Error('compiled writes: updateWhere needs a unit of work');
  const result = (await runner.query(shape.sql, [...values, ...whereValues], true)) as { affected?: number };
  return result.affected ?? 0;
}
