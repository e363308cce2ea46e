/**
 * Data key rotation, step 2 of 3 (docs/operations.md): re-encrypts every sealed column
 * with the current data key. Rows are walked in primary-key order, a batch at a time;
 * each row is written with a compare-and-set on its old value, so a row that a request
 * changed meanwhile is left alone (it was sealed with the current key by that request)
 * and nothing is held locked for longer than one UPDATE. Safe to rerun, and to run while
 * the service is serving; a second run finds nothing to do.
 */
import type { DataSource } from 'typeorm';
import type { FieldCipher } from '../domain/crypto';
import type { Db } from './db';

export interface SealedColumnRef {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entity: Function;
  property: string;
}

export interface RewrapReport {
  key_id: string;
  columns: { table: string; column: string; rewrapped: number; rows: number; not_sealed?: number }[];
}

const BATCH = 500;

export async function rewrapSealedColumns(db: Db, cipher: FieldCipher, columns: SealedColumnRef[]): Promise<RewrapReport> {
  const report: RewrapReport = { key_id: cipher.keyId, columns: [] };
  for (const ref of columns) {
    const { table, column, id } = names(db.ds, ref);
    const q = (name: string) => db.ds.driver.escape(name);
    let rewrapped = 0;
    let notSealed = 0;
    for (let after = ''; ;) {
      const rows: { id: string; sealed: string }[] = await db.read((em) =>
        em.query(
          `SELECT ${q(id)} AS id, ${q(column)} AS sealed FROM ${q(table)} WHERE ${q(id)} > ? AND ${q(column)} IS NOT NULL ORDER BY ${q(id)} LIMIT ${BATCH}`,
          [after],
        ),
      );
      if (rows.length === 0) break;
      // A value that is not sealed at all (an answer stored in clear by an older version
      // during a rolling upgrade) is left as it is and counted: it is not the rewrap's to seal.
      const plain = rows.filter((r) => !/^v\d+\./.test(r.sealed));
      const stale = rows.filter((r) => !r.sealed.startsWith(cipher.currentPrefix) && !plain.includes(r));
      notSealed += plain.length;
      await db.tx(async (em) => {
        for (const row of stale) {
          await em.query(`UPDATE ${q(table)} SET ${q(column)} = ? WHERE ${q(id)} = ? AND ${q(column)} = ?`, [
            cipher.encrypt(cipher.decrypt(row.sealed)),
            row.id,
            row.sealed,
          ]);
        }
      });
      rewrapped += stale.length;
      after = rows[rows.length - 1].id;
    }
    const [{ n }] = await db.read((em) => em.query<{ n: unknown }[]>(`SELECT COUNT(*) AS n FROM ${q(table)} WHERE ${q(column)} IS NOT NULL`));
    report.columns.push({ table, column, rewrapped, rows: Number(n), ...(notSealed > 0 ? { not_sealed: notSealed } : {}) });
  }
  return report;
}

function names(ds: DataSource, ref: SealedColumnRef): { table: string; column: string; id: string } {
  const meta = ds.getMetadata(ref.entity);
  const column = meta.findColumnWithPropertyName(ref.property);
  if (!column) throw new Error(`${meta.name} has no column for property ${ref.property}`);
  if (meta.primaryColumns.length !== 1) throw new Error(`${meta.name} must have a single primary key to be rewrapped`);
  return { table: meta.tableName, column: column.databaseName, id: meta.primaryColumns[0].databaseName };
}
