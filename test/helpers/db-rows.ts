/**
 * The raw rows of the test database, read with plain SQL (no entity, no transformer): for
 * tests that assert what is (or is not) at rest, and that nothing was written.
 */
import type { App } from '../../src/app';

async function sql<T = any>(app: App, query: string): Promise<T[]> {
  return app.db.read(() => app.db.ds.query(query));
}

/** Every table of the schema, migrations' bookkeeping included, sorted. */
export async function tableNames(app: App): Promise<string[]> {
  const rows =
    app.db.kind === 'mysql'
      ? await sql<Record<string, string>>(app, 'SHOW TABLES')
      : await sql<{ name: string }>(app, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  return rows.map((r) => Object.values(r)[0]).sort();
}

/** Every row of every table, as the driver returns it. */
export async function allRows(app: App): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of await tableNames(app)) out[table] = await sql(app, `SELECT * FROM ${app.db.kind === 'mysql' ? `\`${table}\`` : `"${table}"`}`);
  return out;
}

/** Every stored value as text, one table per entry: what a `grep` over a database dump would see. */
export async function dumpText(app: App): Promise<string> {
  const rows = await allRows(app);
  return Object.entries(rows)
    .map(
      ([table, list]) => `${table}: ${JSON.stringify(list, (_k, v) => (Buffer.isBuffer(v) ? v.toString('latin1') : typeof v === 'bigint' ? v.toString() : v))}`,
    )
    .join('\n');
}

/** The row count of every table. */
export async function rowCounts(app: App): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await tableNames(app)) {
    const [row] = await sql<{ n: number | string }>(app, `SELECT COUNT(*) AS n FROM ${app.db.kind === 'mysql' ? `\`${table}\`` : `"${table}"`}`);
    out[table] = Number(row.n);
  }
  return out;
}
