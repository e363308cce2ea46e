/**
 * What the service log says when the database refuses a statement nobody maps to an API
 * error. The fault is real: a unique index the service does not know of
 * (on a payout's holder name, on a webhook endpoint's url) turns a second create into an
 * unhandled database error, REST and GraphQL, with an Idempotency-Key. The log is the
 * service's own logger (createLogger, as main.js builds it) at `trace`, so every line it
 * can write is captured: the failures must be there (type, code, stack), and none of the
 * values the failing statements carried (holder names, references, Idempotency-Keys, event
 * JSON, whsec_ secrets), no SQL text, no credentials (not even the bytes of a request the
 * HTTP parser refused).
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { rawRequest } from '../helpers/raw-http';

const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});

let srv: TestServer;
let c: Client;
const HOLDER = `Wanchai Logsafe ${randomUUID().slice(0, 8)}`;
const secrets: string[] = [];

async function ddl(sql: string): Promise<void> {
  await srv.app.db.tx((em) => em.query(sql));
}

beforeAll(async () => {
  srv = await startServer({ env: { LOG_LEVEL: 'trace' }, logDestination: capture, scheduler: false });
  c = await srv.merchant();
  // Faults the service does not expect: a second payout to the same holder, or a second
  // endpoint for the same url, is a unique violation no code path maps.
  await ddl('CREATE UNIQUE INDEX ux_fault_holder ON payout_intents (recipient_holder_name)');
  await ddl(`CREATE UNIQUE INDEX ux_fault_url ON webhook_endpoints (url${srv.app.db.kind === 'mysql' ? '(191)' : ''})`);
});
afterAll(async () => {
  await srv?.close();
});

function remember(...values: string[]): void {
  secrets.push(...values);
}

test('an unhandled database error is 500 internal_error, REST and GraphQL alike', async () => {
  const first = payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '9876501234', holder_name: HOLDER } });
  const key1 = `idem-log-${randomUUID()}`;
  remember(String(first.merchant_reference), key1);
  expect((await c.post('/v1/payout_intents', first, { idempotencyKey: key1 })).status).toBe(201);

  const second = payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '9876501234', holder_name: HOLDER } });
  const key2 = `idem-log-${randomUUID()}`;
  remember(String(second.merchant_reference), key2);
  const rest = await c.post('/v1/payout_intents', second, { idempotencyKey: key2 });
  expect({ status: rest.status, code: rest.body?.error?.code }).toEqual({ status: 500, code: 'internal_error' });

  const third = payoutBody();
  const key3 = `idem-log-${randomUUID()}`;
  remember(String(third.merchant_reference), key3);
  const gql = await c.gql(
    'mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id } }',
    {
      input: {
        amount: '100',
        currency: 'THB',
        country: 'TH',
        merchantReference: third.merchant_reference,
        recipient: { bankCode: 'KBANK', accountNumber: '9876501234', holderName: HOLDER },
      },
    },
    { 'idempotency-key': key3 },
  );
  expect(gql.body.errors?.[0]?.extensions?.code).toBe('internal_error');

  const url = `http://127.0.0.1:9/logsafe-${randomUUID()}`;
  const key4 = `idem-log-${randomUUID()}`;
  const created = await c.post('/v1/webhook_endpoints', { url }, { idempotencyKey: key4 });
  expect(created.status).toBe(201);
  const key5 = `idem-log-${randomUUID()}`;
  remember(key4, key5, created.body.secret, created.body.secret.slice('whsec_'.length));
  const again = await c.post('/v1/webhook_endpoints', { url }, { idempotencyKey: key5 });
  expect(again.status).toBe(500);

  // A request Node's parser refuses is logged (debug) with the parser's error, whose rawPacket holds the request's bytes, credentials included.
  const refused = await rawRequest(srv.url, `GET /v1/balances HTTP/1.1\r\nHost: x\r\nAuthorization: ${c.authorization}\r\nBad Header: x\r\n\r\n`);
  expect(refused.status).toBe(400);
});

test('the log names each failure (type, code, stack) ...', () => {
  const failures = lines.map((l) => JSON.parse(l)).filter((l) => /^unhandled/.test(l.msg));
  expect(failures.map((l) => l.msg).sort()).toEqual(['unhandled GraphQL error', 'unhandled error', 'unhandled error']);
  for (const f of failures) {
    expect(f.err).toEqual(expect.objectContaining({ type: 'QueryFailedError', message: expect.any(String), stack: expect.stringMatching(/\n\s+at /) }));
    expect(f.err.code ?? f.err.errno).toBeDefined();
    expect(Object.keys(f.err).filter((k) => !['type', 'message', 'stack', 'code', 'errno', 'sqlState'].includes(k))).toEqual([]);
  }
  // A REST failure is logged through the request's own (lazily made) child logger: its reqId binding is the request id.
  for (const f of failures.filter((l) => l.msg === 'unhandled error')) expect(f.reqId).toEqual(f.requestId);
  // The refused request is there too, its error without the request's bytes.
  const refused = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'client error');
  expect(refused?.err).toEqual(expect.objectContaining({ code: expect.stringMatching(/^HPE_/) }));
  // Statements are named by verb and table at trace level.
  expect(lines.some((l) => /"msg":"sql"/.test(l) && /"statement":"INSERT"/.test(l) && /payout_intents/.test(l))).toBe(true);
});

test('... and carries none of the values, no SQL text, no credentials', () => {
  const log = lines.join('\n');
  expect(log.length).toBeGreaterThan(1000);
  const forbidden = [HOLDER, 'Wanchai', '9876501234', 'whsec_', ...secrets, c.auth!, c.authorization!, c.auth!.split(':')[1]];
  for (const value of forbidden) expect({ value, found: log.includes(value) }).toEqual({ value, found: false });
  for (const sql of [
    /\bINSERT INTO\b/i,
    /\bSELECT\b.+\bFROM\b/i,
    /\bUPDATE\s+[`"]?\w+[`"]?\s+SET\b/i,
    /\bVALUES\s*\(/i,
    /"parameters"\s*:/,
    /"query"\s*:/,
    /"sql"\s*:/,
    /"rawPacket"/,
  ]) {
    expect({ sql: String(sql), found: sql.test(log) }).toEqual({ sql: String(sql), found: false });
  }
  // No line carries pino's `time` twice (the slow-SQL line used to add its own).
  for (const line of lines) expect(line.match(/"time":/g)?.length ?? 0).toBeLessThanOrEqual(1);
});
