/**
 * Authentication (docs/contract.md "Errors" 401 row) on REST and GraphQL, and the
 * provisioning CLI (docs/contract.md "Provisioning") run as a real child process against
 * the test database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliRun, runCli, startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody, Res } from '../helpers/client';

let srv: TestServer;
let owner: Client; // a valid test key
let other: Client; // another merchant's valid test key
let liveKey: Client; // a live key of `owner`'s merchant
let revoked: Client;

const REALM = 'Basic realm="payments"';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const basic = (user: string, pass: string) => `Basic ${b64(`${user}:${pass}`)}`;
const split = (c: Client) => {
  const i = c.auth!.indexOf(':');
  return { pk: c.auth!.slice(0, i), sk: c.auth!.slice(i + 1) };
};

/** Every way credentials can be wrong, as `Authorization` header values (undefined = absent). */
function badHeaders(): [string, string | undefined][] {
  const mine = split(owner);
  const theirs = split(other);
  const live = split(liveKey);
  const gone = split(revoked);
  const tail = (k: string) => k.replace(/^[ps]k_(test|live)_/, '');
  return [
    ['missing header', undefined],
    ['empty header', ''],
    ['Bearer scheme', `Bearer ${mine.sk}`],
    ['Basic without credentials', 'Basic'],
    ['Basic with empty credentials', 'Basic '],
    ['credentials without a scheme', b64(`${mine.pk}:${mine.sk}`)],
    ['malformed base64', 'Basic ***not-base64***'],
    ['base64 without a colon', `Basic ${b64(`${mine.pk}${mine.sk}`)}`],
    ['unknown public key', basic(`pk_test_${'A'.repeat(24)}`, mine.sk)],
    ['public key of the wrong shape', basic('pk_nope', mine.sk)],
    ['wrong secret', basic(mine.pk, `sk_test_${'B'.repeat(48)}`)],
    ['empty secret', basic(mine.pk, '')],
    ['secret of another key', basic(mine.pk, theirs.sk)],
    ['secret and public key swapped', basic(mine.sk, mine.pk)],
    ['pk_test with an sk_live prefix', basic(mine.pk, `sk_live_${tail(mine.sk)}`)],
    ['pk_live with an sk_test prefix', basic(live.pk, `sk_test_${tail(live.sk)}`)],
    ['live public key with a test secret of the same merchant', basic(live.pk, mine.sk)],
    ['public key with its prefix changed to live', basic(`pk_live_${tail(mine.pk)}`, mine.sk)],
    ['revoked key', basic(gone.pk, gone.sk)],
    ['valid credentials plus trailing garbage', `Basic ${b64(`${mine.pk}:${mine.sk}`)} extra`],
  ];
}

async function rest(method: 'GET' | 'POST', p: string, header: string | undefined, body?: unknown): Promise<Res> {
  const headers: Record<string, string> = {};
  if (header !== undefined) headers.authorization = header;
  return srv.client().request(method, p, { headers, body });
}

function expect401(res: Res): void {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe(REALM);
  expect(res.headers.get('request-id')).toMatch(/\S/);
}

beforeAll(async () => {
  srv = await startServer();
  owner = await srv.merchant();
  other = await srv.merchant();
  liveKey = await srv.keyFor(owner.merchantId, 'live');
  revoked = await srv.keyFor(owner.merchantId, 'test');
  expect((await revoked.get('/v1/payout_intents')).status).toBe(200);
  expect(await srv.app.auth.revokeKey(revoked.auth!.split(':')[0])).toBe(true);
});

afterAll(async () => {
  await srv?.close();
});

describe('REST', () => {
  test('control: the valid keys authenticate', async () => {
    for (const c of [owner, other, liveKey]) {
      const res = await c.get('/v1/payout_intents');
      expect(res.status).toBe(200);
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
    const { pk, sk } = split(owner);
    // The scheme name is case-insensitive (RFC 9110).
    expect((await rest('GET', '/v1/payout_intents', `basic ${b64(`${pk}:${sk}`)}`)).status).toBe(200);
  });

  test('every bad credential is 401 unauthorized with WWW-Authenticate and one identical body', async () => {
    const cases = badHeaders();
    const texts = new Set<string>();
    for (const [name, header] of cases) {
      const res = await rest('GET', '/v1/payout_intents', header);
      try {
        expect401(res);
        expect(res.body.error.code).toBe('unauthorized');
        expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message']);
      } catch (err) {
        throw new Error(`${name}: ${(err as Error).message}`);
      }
      texts.add(res.text);
    }
    // The message never says which part failed: one body for all of them.
    expect([...texts]).toHaveLength(1);
    const message: string = JSON.parse([...texts][0]).error.message;
    expect(message).not.toMatch(/revoked|unknown|wrong|mismatch|expired|not found/i);
  });

  test('POST routes and item routes answer 401 before anything else, and create nothing', async () => {
    const unknown = await rest('GET', '/v1/payout_intents/po_does_not_exist', undefined);
    expect401(unknown);
    const unknownRoute = await rest('GET', '/v1/no_such_route', undefined);
    expect401(unknownRoute);
    const refs: string[] = [];
    for (const [name, header] of badHeaders()) {
      const body = payoutBody();
      refs.push(body.merchant_reference as string);
      const res = await rest('POST', '/v1/payout_intents', header, body);
      try {
        expect401(res);
        expect(res.body.error.code).toBe('unauthorized');
      } catch (err) {
        throw new Error(`${name}: ${(err as Error).message}`);
      }
    }
    // Not even a wrong content type beats the 401.
    const noType = await srv.client().request('POST', '/v1/payout_intents', { raw: 'x', noContentType: true });
    expect401(noType);
    for (const c of [owner, liveKey]) {
      const list = await c.get('/v1/payout_intents?limit=100');
      expect(list.body.data.filter((r: any) => refs.includes(r.merchant_reference))).toEqual([]);
    }
  });

  test("a revoked key stops working at once while the merchant's other keys keep working", async () => {
    const extra = await srv.keyFor(owner.merchantId, 'test');
    expect((await extra.get('/v1/payout_intents')).status).toBe(200);
    await srv.app.auth.revokeKey(extra.key!.apiKeyId);
    expect401(await extra.get('/v1/payout_intents'));
    expect((await owner.get('/v1/payout_intents')).status).toBe(200);
  });

  test('public routes need no credentials', async () => {
    expect((await rest('GET', '/healthz', undefined)).status).toBe(200);
    expect((await rest('GET', '/v1/openapi.json', undefined)).status).toBe(200);
  });
});

describe('GraphQL', () => {
  const QUERY = { query: '{ viewer { environment } }' };

  test('control: a valid key gets data', async () => {
    const res = await owner.gql('{ viewer { environment apiKeyId merchant { id } } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ viewer: { environment: 'TEST', apiKeyId: owner.key!.apiKeyId, merchant: { id: owner.merchantId } } });
  });

  test('every bad credential is HTTP 401 with extensions.code unauthorized and one identical body', async () => {
    const texts = new Set<string>();
    for (const [name, header] of badHeaders()) {
      const res = await rest('POST', '/graphql', header, QUERY);
      try {
        expect401(res);
        expect(res.body.data ?? null).toBeNull();
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0].extensions.code).toBe('unauthorized');
      } catch (err) {
        throw new Error(`${name}: ${(err as Error).message}`);
      }
      texts.add(res.text);
    }
    expect([...texts]).toHaveLength(1);
  });

  test('GET /graphql and mutations are refused the same way', async () => {
    const get = await srv.client().request('GET', `/graphql?query=${encodeURIComponent(QUERY.query)}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect401(get);
    expect(get.body.errors[0].extensions.code).toBe('unauthorized');
    const mutation = await rest('POST', '/graphql', basic(split(revoked).pk, split(revoked).sk), {
      query:
        'mutation { createPayoutIntent(input: { amount: "100", currency: "THB", country: "TH", merchantReference: "gql-unauth", recipient: { bankCode: "KBANK", accountNumber: "1234567890", holderName: "X" } }) { id } }',
    });
    expect401(mutation);
    expect(mutation.body.errors[0].extensions.code).toBe('unauthorized');
    const list = await owner.get('/v1/payout_intents?merchant_reference=gql-unauth');
    expect(list.body.data).toEqual([]);
  });
});

describe('provisioning CLI', () => {
  let dataDir: string;

  function run(...args: string[]): Promise<CliRun> {
    return runCli(srv.database, args, { DATA_DIR: srv.database.env.DATA_DIR ?? dataDir, LOG_LEVEL: 'warn' });
  }

  /** stdout must be exactly one line of JSON. */
  function oneJsonLine(r: CliRun): any {
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]);
  }

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-cli-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('keys create prints one JSON line; the key authenticates; keys revoke makes it 401', async () => {
    const created = oneJsonLine(await run('keys', 'create', '--merchant', 'acme', '--env', 'test'));
    expect(created.merchant_id).toMatch(/^mer_/);
    expect(created.public_key).toMatch(/^pk_test_[A-Za-z0-9]+$/);
    expect(created.secret_key).toMatch(/^sk_test_[A-Za-z0-9]+$/);

    const client = new Client(srv.url, `${created.public_key}:${created.secret_key}`);
    const viewer = await client.gql('{ viewer { environment merchant { id name } } }');
    expect(viewer.status).toBe(200);
    expect(viewer.body.data).toEqual({ viewer: { environment: 'TEST', merchant: { id: created.merchant_id, name: 'acme' } } });
    const payout = await client.post('/v1/payout_intents', payoutBody());
    // A new merchant has no balance yet: the point is that the request got past authentication.
    expect(payout.status).not.toBe(401);
    expect((await client.get('/v1/payout_intents')).status).toBe(200);

    // A second key for the same merchant name reuses the merchant.
    const again = oneJsonLine(await run('keys', 'create', '--merchant', 'acme', '--env', 'test'));
    expect(again.merchant_id).toBe(created.merchant_id);
    expect(again.public_key).not.toBe(created.public_key);

    const revokedOut = oneJsonLine(await run('keys', 'revoke', created.public_key));
    expect(revokedOut).toEqual({ revoked: created.public_key });
    // Revoked by another process: this server refuses it within a second (its copy of the key lapses, or Redis tells it).
    const after = await eventually(
      async () => {
        const res = await client.get('/v1/payout_intents');
        return res.status === 401 && res;
      },
      1000,
      20,
    );
    expect(after.headers.get('www-authenticate')).toBe(REALM);
    // Only that key: the second one still works.
    expect((await new Client(srv.url, `${again.public_key}:${again.secret_key}`).get('/v1/payout_intents')).status).toBe(200);
  });

  test('keys create --env live prints a live pair that authenticates as live', async () => {
    const created = oneJsonLine(await run('keys', 'create', '--merchant', 'acme-live', '--env', 'live'));
    expect(created.public_key).toMatch(/^pk_live_/);
    expect(created.secret_key).toMatch(/^sk_live_/);
    const res = await new Client(srv.url, `${created.public_key}:${created.secret_key}`).gql('{ viewer { environment } }');
    expect(res.body.data).toEqual({ viewer: { environment: 'LIVE' } });
  });

  test('the secret is stored only as a hash: no column of api_keys contains it', async () => {
    const created = oneJsonLine(await run('keys', 'create', '--merchant', 'hash-check', '--env', 'test'));
    const rows: Record<string, unknown>[] = await srv.app.db.ds.query('SELECT * FROM api_keys');
    const row = rows.find((r) => r.public_key === created.public_key);
    expect(row).toBeDefined();
    const secretBody = created.secret_key.replace(/^sk_test_/, '');
    for (const r of rows) {
      for (const [column, value] of Object.entries(r)) {
        const text = value instanceof Buffer ? value.toString('utf8') + value.toString('hex') + value.toString('base64') : String(value);
        if (text.includes(created.secret_key) || text.includes(secretBody)) throw new Error(`api_keys.${column} contains the secret`);
      }
    }
  });

  test('merchants create and merchants list print JSON', async () => {
    const name = `cli-merchant-${Date.now()}`;
    const m = oneJsonLine(await run('merchants', 'create', '--name', name));
    expect(m.merchant_id).toMatch(/^mer_/);
    expect(m.name).toBe(name);
    expect(Number.isNaN(Date.parse(m.created_at))).toBe(false);
    const list = oneJsonLine(await run('merchants', 'list'));
    expect(Array.isArray(list)).toBe(true);
    expect(list).toContainEqual(m);
    expect(list.map((x: any) => x.name)).toContain('acme');
    expect(list.map((x: any) => x.merchant_id)).toContain(owner.merchantId);
  });

  test('bad usage exits non-zero and prints nothing on stdout', async () => {
    for (const args of [
      ['keys', 'create', '--merchant', 'acme', '--env', 'prod'],
      ['keys', 'frobnicate'],
      ['keys', 'revoke', 'pk_test_nosuchkey000000000000'],
      ['merchants', 'create'],
    ]) {
      const r = await run(...args);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.length).toBeGreaterThan(0);
    }
  });
});
