/**
 * Rotating the data key (docs/operations.md): make a new key current with the old one in
 * DATA_ENCRYPTION_KEYS_PREVIOUS, run `cli data-key rewrap`, then run with the new key
 * alone. Real server, real database, the compiled CLI.
 */
import { randomBytes } from 'node:crypto';
import { FieldCipher } from '../../src/domain/crypto';
import { TEST_ENCRYPTION_KEY, TestDatabase, TestServer, createTestDatabase, runCli, startServer } from '../helpers/server';
import { approvePayout, createPayout, paymentBody, directDebit, createPayment, waitForStatus, is } from '../helpers/fixtures';
import { startReceiver, Receiver } from '../helpers/receiver';
import { eventually } from '../helpers/client';
import { Webhook } from 'standardwebhooks';

const OLD = TEST_ENCRYPTION_KEY;
const NEW = randomBytes(32).toString('base64');
const oldCipher = FieldCipher.fromBase64(OLD);
const newCipher = FieldCipher.fromBase64(NEW);

const SEALED = [
  ['payout_intents', 'recipient_account_encrypted'],
  ['payment_intents', 'payer_encrypted'],
  ['webhook_endpoints', 'secret_encrypted'],
  ['webhook_endpoints', 'previous_secret_encrypted'],
  ['idempotency_keys', 'response_body'],
] as const;

let database: TestDatabase;
let srv: TestServer;
let rx: Receiver;
let payoutId: string;
let secret: string;

async function sealedValues(server: TestServer): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, column] of SEALED) {
    const rows: { v: string }[] = await server.app.db.read((em) => em.query(`SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL`));
    out[`${table}.${column}`] = rows.map((r) => r.v);
  }
  return out;
}

beforeAll(async () => {
  rx = await startReceiver();
  database = await createTestDatabase();
  srv = await startServer({ database });
  const c = await srv.merchant();
  payoutId = (await createPayout(c)).id;
  await createPayment(c, paymentBody(directDebit('1234567890')));
  const endpoint = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/rotation`, enabled_events: ['payout_intent.processing'] });
  expect(endpoint.status).toBe(201);
  // Rotated: the replaced secret is kept, sealed, for the 24 h overlap; rewrap must cover it too.
  const rotated = await c.post(`/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`);
  expect(rotated.status).toBe(200);
  secret = rotated.body.secret;
});

afterAll(async () => {
  await srv?.close();
  await rx?.close();
  await database?.drop();
});

test('values are sealed under the key that was current, named by its id', async () => {
  const values = await sealedValues(srv);
  for (const k of Object.keys(values)) {
    expect(values[k].length).toBeGreaterThan(0);
    for (const v of values[k]) expect(v.startsWith(oldCipher.currentPrefix)).toBe(true);
  }
});

test('rewrap re-encrypts every sealed column with the new key; a second run finds nothing to do', async () => {
  const before = await sealedValues(srv);
  const plain = Object.fromEntries(Object.entries(before).map(([t, vs]) => [t, vs.map((v) => oldCipher.decrypt(v))]));
  await srv.app.scheduler.stop();
  const keys = { DATA_ENCRYPTION_KEY: NEW, DATA_ENCRYPTION_KEYS_PREVIOUS: OLD };

  const first = await runCli(srv.database, ['data-key', 'rewrap'], keys);
  expect(first.code).toBe(0);
  const report = JSON.parse(first.stdout.trim());
  expect(report.key_id).toBe(newCipher.keyId);
  for (const [table, column] of SEALED) {
    const line = report.columns.find((x: { table: string; column: string }) => x.table === table && x.column === column);
    expect(line).toEqual({ table, column, rewrapped: before[`${table}.${column}`].length, rows: before[`${table}.${column}`].length });
  }

  const after = await sealedValues(srv);
  for (const k of Object.keys(after)) {
    for (const v of after[k]) expect(v.startsWith(newCipher.currentPrefix)).toBe(true);
    // The same plaintexts, now opened by the new key alone.
    expect(after[k].map((v) => newCipher.decrypt(v)).sort()).toEqual([...plain[k]].sort());
  }

  const second = await runCli(srv.database, ['data-key', 'rewrap'], keys);
  expect(second.code).toBe(0);
  expect(JSON.parse(second.stdout.trim()).columns.every((x: { rewrapped: number }) => x.rewrapped === 0)).toBe(true);
});

test('with the new key alone the service opens what it sealed before the rotation', async () => {
  await srv.close();
  // The same database, reopened with only the new key.
  srv = await startServer({ database, env: { DATA_ENCRYPTION_KEY: NEW, SIMULATED_SETTLE_MS: '1' } });
  const c = await srv.keyFor((await srv.app.auth.listMerchants())[0].id);
  // The approval's webhook is signed with the endpoint's secret, opened by the new key; and the
  // provider's settlement opens the account number.
  expect((await approvePayout(c, payoutId)).status).toBe('processing');
  const delivery = await eventually(async () => rx.received.find((r) => r.path === '/rotation'));
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  expect((new Webhook(secret).verify(delivery.body, headers) as { type: string }).type).toBe('payout_intent.processing');
  await waitForStatus(c, `/v1/payout_intents/${payoutId}`, is('succeeded', 'failed'));
});

test('without the old key, a value sealed by it is refused with a message naming the key id', async () => {
  const sealed = oldCipher.encrypt('x');
  expect(() => newCipher.decrypt(sealed)).toThrow(oldCipher.keyId);
});

test('a stored answer left in clear by an older version (rolling upgrade) is counted, not refused', async () => {
  const [row]: { k: string }[] = await srv.app.db.read((em) => em.query('SELECT idem_key AS k FROM idempotency_keys'));
  await srv.app.db.tx((em) => em.query('UPDATE idempotency_keys SET response_body = ? WHERE idem_key = ?', ['{"status":201}', row.k]));
  const run = await runCli(srv.database, ['data-key', 'rewrap'], { DATA_ENCRYPTION_KEY: NEW });
  expect(run.code).toBe(0);
  const line = JSON.parse(run.stdout.trim()).columns.find((x: { table: string }) => x.table === 'idempotency_keys');
  expect(line).toMatchObject({ rewrapped: 0, not_sealed: 1 });
});
