/**
 * Stored Idempotency-Key answers are sealed at rest. Creating a webhook
 * endpoint with an Idempotency-Key used to store its whole 201 answer, the `whsec_` signing
 * secret included, in `idempotency_keys.response_body` for 24 hours. Checked on the raw
 * rows of every table (plain SQL, no entity): no `whsec_`, no holder name in the key rows;
 * the replay still answers the same bytes (the same secret), over REST and GraphQL; rows an
 * earlier version stored in clear are still replayed, and migration 1733200000000 seals
 * them; the largest answers (a payment's QR code) replay, and MariaDB stores them in
 * MEDIUMTEXT (sealing takes a third more room than the answer).
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer, TEST_ENCRYPTION_KEY } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { dumpText } from '../helpers/db-rows';
import { paymentBody } from '../helpers/fixtures';
import { FieldCipher } from '../../src/domain/crypto';
import { SealedIdempotencyAnswers1733200000000 } from '../../src/db/migrations/1733200000000-SealedIdempotencyAnswers';

let srv: TestServer;
let c: Client;
const cipher = FieldCipher.fromBase64(TEST_ENCRYPTION_KEY);
/** Loopback is allowed in tests; nothing is delivered (no scheduler). */
const receiverUrl = (path: string) => `http://127.0.0.1:9${path}`;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant(undefined, 'test', { fund: true });
});
afterAll(async () => {
  await srv?.close();
});

async function keyRow(key: string): Promise<{ id: string; response_body: string }> {
  const rows = await srv.app.db.read(() => srv.app.db.ds.query('SELECT id, response_body FROM idempotency_keys WHERE idem_key = ?', [key]));
  expect(rows).toHaveLength(1);
  return rows[0];
}

const CREATE_GQL = 'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url secret } }';

describe('a webhook endpoint created with an Idempotency-Key', () => {
  test('REST: no whsec_ in any table; the sealed answer replays the same secret', async () => {
    const key = randomUUID();
    const body = { url: receiverUrl('/sealed-rest') };
    const first = await c.post('/v1/webhook_endpoints', body, { idempotencyKey: key });
    expect(first.status).toBe(201);
    const secret: string = first.body.secret;
    expect(secret).toMatch(/^whsec_/);

    const dump = await dumpText(srv.app);
    expect(dump).toContain(first.body.id); // the dump does see the endpoint
    expect(dump).not.toContain('whsec_');
    expect(dump).not.toContain(secret.slice('whsec_'.length));
    expect((await keyRow(key)).response_body).toMatch(/^v2\./);

    const replay = await c.post('/v1/webhook_endpoints', body, { idempotencyKey: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  test('GraphQL: the same, and the replay carries the same secret', async () => {
    const key = randomUUID();
    const variables = { input: { url: receiverUrl('/sealed-gql') } };
    const first = await c.gql(CREATE_GQL, variables, { 'idempotency-key': key });
    expect(first.status).toBe(200);
    const created = first.body.data!.createWebhookEndpoint;
    expect(created.secret).toMatch(/^whsec_/);
    expect(await dumpText(srv.app)).not.toContain('whsec_');

    const replay = await c.gql(CREATE_GQL, variables, { 'idempotency-key': key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data!.createWebhookEndpoint).toEqual(created);
  });
});

test('personal data in an answer (a payout holder name) is not in the key rows either', async () => {
  const key = randomUUID();
  const holder = `Sealed Holder ${randomUUID()}`;
  const res = await c.post(
    '/v1/payout_intents',
    payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: holder } }),
    { idempotencyKey: key },
  );
  expect(res.status).toBe(201);
  expect(res.text).toContain(holder);
  expect((await keyRow(key)).response_body).not.toContain('Sealed Holder');
});

test('an answer stored in clear by an earlier version replays, and migration 1733200000000 seals it', async () => {
  const key = randomUUID();
  const body = { url: receiverUrl('/legacy') };
  const first = await c.post('/v1/webhook_endpoints', body, { idempotencyKey: key });
  expect(first.status).toBe(201);
  // As the previous version stored it: the answer's bytes in clear.
  const row = await keyRow(key);
  await srv.app.db.tx((em) => em.query('UPDATE idempotency_keys SET response_body = ? WHERE id = ?', [cipher.decrypt(row.response_body), row.id]));
  expect((await keyRow(key)).response_body).toBe(first.text);
  expect((await c.post('/v1/webhook_endpoints', body, { idempotencyKey: key })).text).toBe(first.text);

  const qr = srv.app.db.ds.createQueryRunner();
  try {
    await new SealedIdempotencyAnswers1733200000000().up(qr);
  } finally {
    await qr.release();
  }
  const sealed = (await keyRow(key)).response_body;
  expect(sealed).toMatch(/^v2\./);
  expect(cipher.decrypt(sealed)).toBe(first.text);
  expect(await dumpText(srv.app)).not.toContain('whsec_');
  const replay = await c.post('/v1/webhook_endpoints', body, { idempotencyKey: key });
  expect(replay.text).toBe(first.text);
});

test('the largest answers (a payment with its QR code, about 44 KB) are stored sealed and replayed; MariaDB keeps them in MEDIUMTEXT', async () => {
  const key = randomUUID();
  const body = paymentBody();
  const first = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(first.status).toBe(201);
  expect(Buffer.byteLength(first.text)).toBeGreaterThan(40_000);
  // Sealing takes a third more (base64): TEXT's 65,535 bytes would leave an answer of 49 KB no room.
  expect((await keyRow(key)).response_body.length).toBeGreaterThan((Buffer.byteLength(first.text) * 4) / 3);
  const replay = await c.post('/v1/payment_intents', body, { idempotencyKey: key });
  expect(replay.status).toBe(201);
  expect(replay.text).toBe(first.text);
  if (srv.app.db.kind === 'mysql') {
    const [column] = await srv.app.db.read(() =>
      srv.app.db.ds.query(
        "SELECT DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'idempotency_keys' AND COLUMN_NAME = 'response_body'",
      ),
    );
    expect(column.type).toBe('mediumtext');
  }
});
