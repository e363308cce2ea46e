/**
 * Character sets and exact-match collations on MySQL/MariaDB (SQLite stores UTF-8 and
 * compares TEXT byte for byte, so none of this applies there).
 *
 * - Every text column of ours is utf8mb4. A latin1 (or utf8mb3) column cannot hold Thai
 *   names, a BOM or an emoji: strict mode refuses the row (a 500), a lax server stores `?`.
 * - Ids, id references and the identifiers clients send back (`EXACT_COLUMN`) compare byte
 *   for byte: a binary NO PAD collation, so `PO_...` or `po_... ` is not `po_...`.
 * - The database default is utf8mb4, so tables and columns added by later migrations are.
 * - The connection speaks utf8mb4 (a server can override what the client asks for).
 *
 * `alignSchema` makes a database so (a migration and `cli db fix-charset` use it);
 * `charsetProblem` says, in one line, what would lose text (the start refuses then). The
 * collations of identifiers are not a start condition: lookups check an id's shape first
 * (src/domain/ids.ts `isId`), so a case-insensitive column there loses nothing.
 */
import type { DataSource, QueryRunner } from 'typeorm';

export const TEXT_CHARSET = 'utf8mb4';
export const TEXT_COLLATION = 'utf8mb4_unicode_ci';
/** What the start check tells an operator to run (src/cli/main.ts). */
export const FIX_COMMAND = 'npm run --silent cli -- db fix-charset';

/** Identifiers other than `id` / `*_id` that must match byte for byte (see migration 1732579200000). */
const EXACT_NAMES = new Set(['public_key', 'idem_key', 'merchant_reference', 'checkout_token']);

/** Whether a column holds an identifier that must match byte for byte. */
export const EXACT_COLUMN = (column: string): boolean => column === 'id' || column.endsWith('_id') || EXACT_NAMES.has(column);

/** Whether the server is MariaDB (MySQL otherwise). */
export async function isMariaDb(db: { query(sql: string): Promise<unknown> }): Promise<boolean> {
  const [{ v }] = (await db.query('SELECT VERSION() AS v')) as { v: string }[];
  return /mariadb/i.test(v);
}

/** The binary NO PAD collation of utf8mb4 (MariaDB and MySQL 8 name it differently). */
export async function binaryNoPadCollation(qr: QueryRunner): Promise<string> {
  return (await isMariaDb(qr)) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

interface ColumnInfo {
  table: string;
  column: string;
  charset: string;
  collation: string;
  type: string;
  nullable: boolean;
}
interface TableInfo {
  table: string;
  collation: string;
}

const charsetOf = (collation: string | null): string => (collation ?? '').split('_')[0];

async function columnsOf(qr: QueryRunner, tables: readonly string[]): Promise<ColumnInfo[]> {
  if (tables.length === 0) return [];
  const rows = (await qr.query(
    `SELECT TABLE_NAME AS t, COLUMN_NAME AS c, CHARACTER_SET_NAME AS cs, COLLATION_NAME AS co, COLUMN_TYPE AS ty, IS_NULLABLE AS n
       FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE() AND CHARACTER_SET_NAME IS NOT NULL AND TABLE_NAME IN (${tables.map(() => '?').join(',')})
      ORDER BY TABLE_NAME, ORDINAL_POSITION`,
    [...tables],
  )) as Record<string, string>[];
  return rows.map((r) => ({ table: r.t, column: r.c, charset: r.cs, collation: r.co, type: r.ty, nullable: r.n === 'YES' }));
}

/** Every base table of the connection's database (the gateway's own database holds only its tables). */
export async function allTables(qr: QueryRunner): Promise<string[]> {
  const rows = (await qr.query(
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
  )) as { t: string }[];
  return rows.map((r) => r.t);
}

async function tablesOf(qr: QueryRunner, tables: readonly string[]): Promise<TableInfo[]> {
  if (tables.length === 0) return [];
  const rows = (await qr.query(
    `SELECT TABLE_NAME AS t, TABLE_COLLATION AS co FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' AND TABLE_NAME IN (${tables.map(() => '?').join(',')})
      ORDER BY TABLE_NAME`,
    [...tables],
  )) as Record<string, string>[];
  return rows.map((r) => ({ table: r.t, collation: r.co }));
}

interface ForeignKey {
  table: string;
  name: string;
  columns: string;
  referenced: string;
  referencedColumns: string;
  onDelete: string;
  onUpdate: string;
}

/** The foreign keys of `tables`, in one statement (TypeORM's getTable takes seconds for a schema this size). */
async function foreignKeysOf(qr: QueryRunner, tables: readonly string[]): Promise<ForeignKey[]> {
  if (tables.length === 0) return [];
  const rows = (await qr.query(
    `SELECT rc.TABLE_NAME AS t, rc.CONSTRAINT_NAME AS name, rc.REFERENCED_TABLE_NAME AS rt, rc.DELETE_RULE AS del, rc.UPDATE_RULE AS upd,
            GROUP_CONCAT(CONCAT('\`', k.COLUMN_NAME, '\`') ORDER BY k.ORDINAL_POSITION) AS cols,
            GROUP_CONCAT(CONCAT('\`', k.REFERENCED_COLUMN_NAME, '\`') ORDER BY k.ORDINAL_POSITION) AS rcols
       FROM information_schema.REFERENTIAL_CONSTRAINTS rc
       JOIN information_schema.KEY_COLUMN_USAGE k
         ON k.CONSTRAINT_SCHEMA = rc.CONSTRAINT_SCHEMA AND k.TABLE_NAME = rc.TABLE_NAME AND k.CONSTRAINT_NAME = rc.CONSTRAINT_NAME
      WHERE rc.CONSTRAINT_SCHEMA = DATABASE() AND rc.TABLE_NAME IN (${tables.map(() => '?').join(',')})
      GROUP BY rc.TABLE_NAME, rc.CONSTRAINT_NAME, rc.REFERENCED_TABLE_NAME, rc.DELETE_RULE, rc.UPDATE_RULE
      ORDER BY rc.TABLE_NAME, rc.CONSTRAINT_NAME`,
    [...tables],
  )) as Record<string, string>[];
  return rows.map((r) => ({
    table: r.t,
    name: r.name,
    columns: r.cols,
    referenced: r.rt,
    referencedColumns: r.rcols,
    onDelete: r.del,
    onUpdate: r.upd,
  }));
}

async function databaseDefault(qr: QueryRunner): Promise<{ name: string; charset: string }> {
  const [row] = (await qr.query(
    'SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS cs FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = DATABASE()',
  )) as { name: string; cs: string }[];
  return { name: row.name, charset: row.cs };
}

/**
 * Converts `tables` to utf8mb4 where they are not, gives the identifier columns the binary
 * NO PAD collation (those for which `exact` holds; the others among them get TEXT_COLLATION
 * back), and makes utf8mb4 the database default. A table rebuild each, only for tables that
 * need a change. Foreign keys between the tables are dropped first and recreated last:
 * MariaDB refuses to change the collation of a column in a foreign key, even with
 * foreign_key_checks off, and both ends must match when the key is added again.
 * Returns the tables it altered.
 */
export async function alignSchema(qr: QueryRunner, tables: readonly string[], exact: (column: string) => boolean = EXACT_COLUMN): Promise<string[]> {
  const binary = await binaryNoPadCollation(qr);
  const columns = await columnsOf(qr, tables);
  const statements: { table: string; sql: string }[] = [];
  for (const { table, collation } of await tablesOf(qr, tables)) {
    const own = columns.filter((c) => c.table === table);
    const convert = charsetOf(collation) !== TEXT_CHARSET || own.some((c) => c.charset !== TEXT_CHARSET);
    // CONVERT TO gives every column TEXT_COLLATION, overriding a MODIFY in the same
    // statement: the exact columns are set by a second one.
    if (convert) statements.push({ table, sql: `ALTER TABLE \`${table}\` CONVERT TO CHARACTER SET ${TEXT_CHARSET} COLLATE ${TEXT_COLLATION}` });
    const clauses: string[] = [];
    for (const c of own) {
      const wanted = exact(c.column) ? binary : EXACT_COLUMN(c.column) ? TEXT_COLLATION : null;
      const after = convert ? TEXT_COLLATION : c.collation;
      if (wanted === null || wanted === after) continue;
      clauses.push(`MODIFY \`${c.column}\` ${c.type} CHARACTER SET ${TEXT_CHARSET} COLLATE ${wanted} ${c.nullable ? 'NULL' : 'NOT NULL'}`);
    }
    if (clauses.length > 0) statements.push({ table, sql: `ALTER TABLE \`${table}\` ${clauses.join(', ')}` });
  }

  if (statements.length > 0) {
    const foreignKeys = await foreignKeysOf(qr, tables);
    for (const fk of foreignKeys) await qr.query(`ALTER TABLE \`${fk.table}\` DROP FOREIGN KEY \`${fk.name}\``);
    for (const { sql } of statements) await qr.query(sql);
    // Added back with foreign_key_checks on: the rows are checked against the new collation.
    for (const fk of foreignKeys) {
      await qr.query(
        `ALTER TABLE \`${fk.table}\` ADD CONSTRAINT \`${fk.name}\` FOREIGN KEY (${fk.columns}) REFERENCES \`${fk.referenced}\` (${fk.referencedColumns})` +
          ` ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate}`,
      );
    }
  }
  const db = await databaseDefault(qr);
  if (db.charset !== TEXT_CHARSET) await qr.query(`ALTER DATABASE \`${db.name}\` CHARACTER SET ${TEXT_CHARSET} COLLATE ${TEXT_COLLATION}`);
  return [...new Set(statements.map((s) => s.table))];
}

const more = (n: number, what: string): string => (n > 0 ? ` (and ${n} more ${what})` : '');

/**
 * Null when the connection, the database default and `tables` are as described at the top;
 * otherwise one line saying what is wrong, what it would do to data, and the fix.
 */
export async function charsetProblem(qr: QueryRunner, tables: readonly string[]): Promise<string | null> {
  const [session] = (await qr.query('SELECT @@character_set_client AS client, @@character_set_connection AS conn, @@character_set_results AS results')) as {
    client: string;
    conn: string;
    results: string | null;
  }[];
  const wrong = Object.entries(session).filter(([, v]) => v !== TEXT_CHARSET);
  if (wrong.length > 0) {
    return (
      `the database connection uses character set ${wrong[0][1] ?? 'binary'}, not ${TEXT_CHARSET}, though the gateway asks for ${TEXT_COLLATION}` +
      ` (the server overrides it: skip-character-set-client-handshake or init_connect?): text outside that character set would be lost;` +
      ` let clients choose their character set, or set character-set-server=${TEXT_CHARSET} and collation-server=${TEXT_COLLATION}`
    );
  }

  const db = await databaseDefault(qr);
  const columns = await columnsOf(qr, tables);
  const lossy = columns.filter((c) => c.charset !== TEXT_CHARSET);
  const lossyTables = (await tablesOf(qr, tables)).filter((t) => charsetOf(t.collation) !== TEXT_CHARSET);
  if (lossy.length > 0 || lossyTables.length > 0) {
    const fix = `convert them (rebuilds those tables; stop the gateway first): ${FIX_COMMAND}`;
    if (lossy.length === 0) {
      const t = lossyTables[0];
      return `table ${t.table} of database ${db.name} has default character set ${charsetOf(t.collation)}${more(lossyTables.length - 1, 'tables')}, not ${TEXT_CHARSET}: columns added to it would lose text outside that character set; ${fix}`;
    }
    const first = lossy[0];
    const tableCount = new Set(lossy.map((c) => c.table)).size;
    return (
      `column ${first.table}.${first.column} of database ${db.name} is ${first.charset} (${first.collation})${more(lossy.length - 1, `columns in ${tableCount} tables`)}, not ${TEXT_CHARSET}:` +
      ` names, references and ids outside ${first.charset} (Thai, a BOM, an emoji) would be refused or lost; ${fix}`
    );
  }

  if (db.charset !== TEXT_CHARSET) {
    return (
      `database ${db.name} has default character set ${db.charset}, not ${TEXT_CHARSET}: tables added by a later migration would lose text outside it;` +
      ` ${FIX_COMMAND} (or ALTER DATABASE \`${db.name}\` CHARACTER SET ${TEXT_CHARSET} COLLATE ${TEXT_COLLATION})`
    );
  }
  return null;
}

/**
 * The start's check (MySQL/MariaDB): throws one line when text would be lost on the
 * database of `ds`, after closing `ds`. Checks the tables of the entities `ds` maps.
 */
export async function refuseLossyCharset(ds: DataSource): Promise<void> {
  if (ds.options.type !== 'mysql') return;
  const tables = [...new Set(ds.entityMetadatas.map((m) => m.tableName))];
  const qr = ds.createQueryRunner();
  let problem: string | null;
  try {
    problem = await charsetProblem(qr, tables);
  } finally {
    await qr.release();
  }
  if (problem) {
    await ds.destroy();
    throw new Error(problem);
  }
}
