/**
 * The migrated schema, built once per test run (jest globalSetup) instead of once per test
 * file: the migrations run on a database of their own, and each test database starts as a
 * copy of it (SQLite: the file; MariaDB/MySQL: its CREATE statements and the migrations
 * table's rows, run in one multi-statement query). A test that needs an empty database (the
 * migrations themselves, a first start) asks for one: createTestDatabase({ empty: true }).
 *
 * The template is named by TEST_SCHEMA_TEMPLATE, which the workers inherit: a directory
 * (SQLite) or a file of SQL (MariaDB/MySQL).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { connectMysql } from './mysql';

export const TEMPLATE_ENV = 'TEST_SCHEMA_TEMPLATE';
const SQLITE_FILE = 'payments.sqlite';

/** Builds the template with `migrate` (the CLI, on `database`) and records where it is. */
export async function buildTemplate(
  database: { kind: 'mysql' | 'sqlite'; env: Record<string, string>; drop(): Promise<void> },
  migrate: () => Promise<{ code: number; stderr: string }>,
): Promise<void> {
  const run = await migrate();
  if (run.code !== 0) throw new Error(`migrations failed while building the test schema template: ${run.stderr}`);
  if (database.kind === 'sqlite') {
    process.env[TEMPLATE_ENV] = path.dirname(database.env.SQLITE_FILE);
    return;
  }
  const url = new URL(database.env.DATABASE_URL);
  const name = url.pathname.slice(1);
  const c = await connectMysql(url, name);
  try {
    const statements = ['SET foreign_key_checks = 0'];
    const [tables] = (await c.query("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'", [name])) as [
      { t: string }[],
      unknown,
    ];
    for (const { t } of tables) {
      const [[row]] = (await c.query(`SHOW CREATE TABLE \`${t}\``)) as [Record<string, string>[], unknown];
      statements.push(row['Create Table']);
      const [rows] = (await c.query(`SELECT * FROM \`${t}\``)) as [Record<string, mysql.SqlValue>[], unknown];
      if (rows.length > 0) statements.push(mysql.format(`INSERT INTO \`${t}\` VALUES ?`, [rows.map((r) => Object.values(r))]));
    }
    const [routines] = (await c.query('SELECT routine_name AS r, routine_type AS k FROM information_schema.routines WHERE routine_schema = ?', [name])) as [
      { r: string; k: string }[],
      unknown,
    ];
    for (const { r, k } of routines) {
      const [[row]] = (await c.query(`SHOW CREATE ${k} \`${r}\``)) as [Record<string, string>[], unknown];
      statements.push(row[`Create ${k.charAt(0)}${k.slice(1).toLowerCase()}`]);
    }
    statements.push('SET foreign_key_checks = 1');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-schema-')), 'schema.sql');
    fs.writeFileSync(file, JSON.stringify(statements));
    process.env[TEMPLATE_ENV] = file;
  } finally {
    await c.end();
    await database.drop();
  }
}

/** Copies the template into a new SQLite directory; false when there is none. */
export function copySqliteTemplate(dir: string): boolean {
  const from = process.env[TEMPLATE_ENV];
  if (!from || !fs.existsSync(path.join(from, SQLITE_FILE))) return false;
  for (const f of fs.readdirSync(from)) if (f.startsWith(SQLITE_FILE)) fs.copyFileSync(path.join(from, f), path.join(dir, f));
  return true;
}

/** Creates the template's tables (and rows, and routines) in the selected database of `c`; false when there is none. */
export async function applyMysqlTemplate(c: mysql.Connection): Promise<boolean> {
  const file = process.env[TEMPLATE_ENV];
  if (!file || !file.endsWith('.sql') || !fs.existsSync(file)) return false;
  // Statement by statement: a routine's body holds semicolons of its own.
  for (const sql of JSON.parse(fs.readFileSync(file, 'utf8')) as string[]) await c.query(sql);
  return true;
}

/** Removes the template (jest globalTeardown). */
export function removeTemplate(): void {
  const where = process.env[TEMPLATE_ENV];
  if (where) fs.rmSync(where.endsWith('.sql') ? path.dirname(where) : where, { recursive: true, force: true });
}
