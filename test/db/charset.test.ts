/**
 * Text outside latin1 survives on every engine. On MariaDB and MySQL 8 a database
 * created latin1 is converted by the migrations (utf8mb4 tables, ids byte-exact, utf8mb4
 * default, foreign keys intact) so the gateway process stores a Thai holder name, a BOM and
 * an emoji; a connection the server forces to another character set is refused. The
 * refusals of a start are in test/main/start.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { connectMysql } from '../helpers/mysql';
import { DataSource } from 'typeorm';
import { runCli, startProcess, startServer, TestDatabase } from '../helpers/server';
import { exactIdCollation, NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { Client, payoutBody } from '../helpers/client';
import { charsetProblem } from '../../src/db/charset';

jest.setTimeout(180000);

const THAI = 'สมชาย ใจดี';
const BOM_REFERENCE = () => `\uFEFForder-${randomBytes(4).toString('hex')}`;
const EMOJI_REFERENCE = () => `order-😀-${randomBytes(4).toString('hex')}-ไทย`;

/** Creates, funds and reads back records whose text is outside latin1, through `c`. */
async function roundTrip(c: Client): Promise<void> {
  const bom = BOM_REFERENCE();
  const emoji = EMOJI_REFERENCE();
  const topup = await c.post(
    '/v1/topup_intents',
    { amount: '100000', currency: 'THB', country: 'TH', merchant_reference: bom },
    { idempotencyKey: randomUUID() },
  );
  expect(topup.status === 201 ? 201 : topup.text).toBe(201);
  expect(topup.body.merchant_reference).toBe(bom);
  expect((await c.post(`/v1/test_helpers/topup_intents/${topup.body.id}/succeed`, {})).status).toBe(200);
  const payout = await c.post(
    '/v1/payout_intents',
    payoutBody({
      merchant_reference: emoji,
      recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: THAI },
    }),
    { idempotencyKey: randomUUID() },
  );
  expect(payout.status === 201 ? 201 : payout.text).toBe(201);
  const read = await c.get(`/v1/payout_intents/${payout.body.id}`);
  expect([read.body.merchant_reference, read.body.recipient.holder_name]).toEqual([emoji, THAI]);
  expect((await c.get(`/v1/topup_intents/${topup.body.id}`)).body.merchant_reference).toBe(bom);
  // The list filter finds them byte for byte (and only so).
  const listed = await c.get(`/v1/payout_intents?merchant_reference=${encodeURIComponent(emoji)}`);
  expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([payout.body.id]);
  // Path ids with an emoji or stray characters are unknown, never a 500.
  for (const path of [
    '/v1/payout_intents/po_%F0%9F%98%80',
    `/v1/payout_intents/${payout.body.id}%F0%9F%98%80`,
    '/v1/events/evt_%EF%BB%BF',
    '/v1/topup_intents/%C3%A9',
  ]) {
    const res = await c.get(path);
    expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'not_found']);
  }
}

test('a Thai holder name, a BOM and an emoji in references are stored and read back byte for byte; emoji path ids are 404', async () => {
  const srv = await startServer({ scheduler: false });
  try {
    await roundTrip(await srv.merchant(undefined, 'test', { fund: false }));
  } finally {
    await srv.close();
  }
});

describe('MariaDB and MySQL', () => {
  const mysqlTest = testIf(usingMysql(), NEEDS_MYSQL);
  const admin = () => {
    const u = new URL(process.env.DATABASE_URL!);
    return connectMysql(u);
  };

  /** A fresh database created with `charset` (as a server whose default is latin1 would). */
  async function databaseIn(charset: string): Promise<TestDatabase> {
    const u = new URL(process.env.DATABASE_URL!);
    const name = `${u.pathname.slice(1) || 'test'}_cs${randomBytes(5).toString('hex')}`;
    const c = await admin();
    await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET ${charset}`);
    await c.end();
    u.pathname = `/${name}`;
    return {
      kind: 'mysql',
      env: { DATABASE_URL: u.toString() },
      async drop() {
        const d = await admin();
        await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await d.end();
      },
    };
  }

  mysqlTest(
    'on a database created latin1, `cli migrate` makes every table utf8mb4 with byte-exact ids and keeps the foreign keys; the process then stores text outside latin1',
    async () => {
      const database = await databaseIn('latin1');
      const name = new URL(database.env.DATABASE_URL).pathname.slice(1);
      const c = await admin();
      try {
        const migrate = await runCli(database, ['migrate']);
        expect([migrate.code, migrate.stderr]).toEqual([0, '']);

        const [columns] = (await c.query(
          "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME, ' ', COLLATION_NAME) AS c, COLUMN_NAME AS n, CHARACTER_SET_NAME AS cs, COLLATION_NAME AS co FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND CHARACTER_SET_NAME IS NOT NULL",
          [name],
        )) as [{ c: string; n: string; cs: string; co: string }[], unknown];
        expect(columns.length).toBeGreaterThan(100);
        expect(columns.filter((r) => r.cs !== 'utf8mb4').map((r) => r.c)).toEqual([]);
        // Byte-exact: ids and what refers to one, and the keys rows are looked up by (tokens and the digests of tokens and codes).
        const exact = (n: string) =>
          n === 'id' ||
          n.endsWith('_id') ||
          [
            'public_key',
            'idem_key',
            'merchant_reference',
            'checkout_token',
            'token',
            'token_hash',
            'code_hash',
            'created_by',
            'payout_batch',
            'email_normalized',
            'provider_reference',
            'recipient_key',
          ].includes(n);
        // A payout's provider is a provider account's id (pa_...); a payment's is a connector code or one.
        const exactColumn = (r: { n: string; c: string }) => exact(r.n) || r.c.startsWith('payout_intents.provider ');
        expect(columns.filter((r) => exactColumn(r) !== (r.co === exactIdCollation())).map((r) => r.c)).toEqual([]);
        const [tables] = (await c.query(
          "SELECT TABLE_NAME AS t, TABLE_COLLATION AS co FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_COLLATION NOT LIKE 'utf8mb4\\_%'",
          [name],
        )) as [unknown[], unknown];
        expect(tables).toEqual([]);
        const [[schema]] = (await c.query(
          'SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
          [name],
        )) as [{ cs: string; co: string }[], unknown];
        expect(schema).toEqual({ cs: 'utf8mb4', co: 'utf8mb4_unicode_ci' });
        // The foreign keys to merchants.id were dropped for the conversion and are back (refunds' made utf8mb4 and exact by its own migration).
        const [fks] = (await c.query(
          'SELECT TABLE_NAME AS t FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND REFERENCED_TABLE_NAME = ? ORDER BY 1',
          [name, 'merchants'],
        )) as [{ t: string }[], unknown];
        expect(fks.map((r) => r.t)).toEqual([
          'api_keys',
          'balances',
          'balance_transactions',
          'fee_rates',
          'fee_schedules',
          'memberships',
          'payment_intents',
          'payment_links',
          'payment_method_settings',
          'payout_batches',
          'payout_intents',
          'refunds',
          'report_runs',
          'topup_intents',
        ]);

        const key = await runCli(database, ['keys', 'create', '--merchant', 'Ünïcode ร้าน', '--env', 'test']);
        expect(key.code).toBe(0);
        const { merchant_id, public_key, secret_key } = JSON.parse(key.stdout.trim());
        // Still enforced: a key of a merchant that does not exist is refused by the foreign key.
        await expect(
          c.query(
            `INSERT INTO \`${name}\`.api_keys (id, merchant_id, environment, public_key, secret_hash, created_at) VALUES ('key_x', 'mer_nobody', 'test', 'pk_x', 'h', 0)`,
          ),
        ).rejects.toThrow(/foreign key/i);
        const proc = await startProcess(database);
        try {
          await roundTrip(new Client(proc.url, `${public_key}:${secret_key}`));
          const merchants = await runCli(database, ['merchants', 'list']);
          expect(JSON.parse(merchants.stdout.trim())).toEqual([expect.objectContaining({ merchant_id, name: 'Ünïcode ร้าน' })]);
        } finally {
          await proc.stop();
        }
      } finally {
        await c.end();
        await database.drop();
      }
    },
  );

  mysqlTest('a connection the server puts in another character set is named as the problem', async () => {
    const ds = new DataSource({ type: 'mysql', url: process.env.DATABASE_URL, charset: 'utf8mb4_unicode_ci' });
    await ds.initialize();
    const qr = ds.createQueryRunner();
    try {
      expect(await charsetProblem(qr, [])).toBeNull();
      // What a server with skip-character-set-client-handshake or init_connect='SET NAMES latin1' does to every connection.
      await qr.query('SET NAMES latin1');
      expect(await charsetProblem(qr, [])).toMatch(
        /^the database connection uses character set latin1, not utf8mb4, though the gateway asks for utf8mb4_unicode_ci .*set character-set-server=utf8mb4/,
      );
    } finally {
      await qr.release();
      await ds.destroy();
    }
  });
});
