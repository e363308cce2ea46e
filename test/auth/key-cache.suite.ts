/**
 * API keys kept in memory (src/modules/auth/key-cache.ts): while a key is kept, a read request
 * sends no statement for it; a revoked or rolled key is refused at once by the gateway that
 * changed it; another gateway on the same database refuses a revoked key within 1 s through
 * Redis, and with Redis down within API_KEY_CACHE_MS (500 ms).
 *
 * The second gateway is a spawned process on MariaDB/MySQL; on SQLite (one process's
 * database, decision 0004) a second server in this process, with its own app, pool, Redis
 * connections and key cache.
 */
import net from 'node:net';
import Redis from 'ioredis';
import { startProcess, startServer, TestServer } from '../helpers/server';
import { REDIS_URL, redisUnavailable, testIf, usingMysql } from '../helpers/skip';
import { Client, eventually } from '../helpers/client';
import { REVOCATION_CHANNEL } from '../../src/modules/auth/revocation-watcher';

const LIMIT_MS = 1000;
const figures: string[] = [];
const servers: { close(): Promise<void> }[] = [];

afterEach(async () => {
  for (const s of servers.splice(0).reverse()) await s.close();
});
afterAll(() => {
  if (figures.length) process.stdout.write(`\nkey cache, revocation seen by the other gateway:\n${figures.map((f) => `  ${f}`).join('\n')}\n`);
});

async function gateway(env: Record<string, string>): Promise<TestServer> {
  const srv = await startServer({ scheduler: false, env });
  servers.push(srv);
  return srv;
}

/** A second gateway on `first`'s database: its URL. */
async function secondGateway(first: TestServer, env: Record<string, string>): Promise<string> {
  if (usingMysql()) {
    const other = await startProcess(first.database, env);
    servers.push({ close: () => other.stop() });
    return other.url;
  }
  const other = await startServer({ database: first.database, scheduler: false, env });
  servers.push(other);
  return other.url;
}

/** A new full key of a new merchant, made through the API by the merchant's first key; the key's id and a client for it. */
async function newKey(srv: TestServer): Promise<{ owner: Client; id: string; client: Client }> {
  const owner = await srv.merchant(undefined, 'test', { fund: false });
  const made = await owner.post('/v1/api_keys', {});
  expect(made.status).toBe(201);
  return { owner, id: made.body.id, client: new Client(srv.url, `${made.body.public_key}:${made.body.secret_key}`) };
}

/** Statements `srv`'s database saw while `fn` ran (no scheduler: only the request's). */
async function statementsOf(srv: TestServer, fn: () => Promise<unknown>): Promise<number> {
  const before = srv.app.db.queryCount;
  await fn();
  return srv.app.db.queryCount - before;
}

/** Milliseconds from now until `client` is refused; fails past LIMIT_MS. */
async function msUntilRefused(client: Client): Promise<number> {
  const start = Date.now();
  await eventually(async () => (await client.get('/v1/balances')).status === 401, LIMIT_MS, 10);
  return Date.now() - start;
}

test('a kept key costs no statement; revoked or rolled here, it is refused at once', async () => {
  // Kept ten minutes: only forgetting it can make this process read it again.
  const srv = await gateway({ API_KEY_CACHE_MS: '600000' });
  const { owner, id, client } = await newKey(srv);
  expect(await statementsOf(srv, async () => expect((await client.get('/v1/balances')).status).toBe(200))).toBe(2);
  expect(await statementsOf(srv, async () => expect((await client.get('/v1/balances')).status).toBe(200))).toBe(1);

  // A roll with an overlap: the old key works on, read again once (its row now has expires_at).
  const rolled = await owner.post(`/v1/api_keys/${id}/roll`, { overlap_hours: 2 });
  expect(rolled.status).toBe(201);
  expect(await statementsOf(srv, async () => expect((await client.get('/v1/balances')).status).toBe(200))).toBe(2);
  expect(await statementsOf(srv, async () => expect((await client.get('/v1/balances')).status).toBe(200))).toBe(1);

  // The replacement, rolled without overlap: refused at once though it was just kept.
  const fresh = new Client(srv.url, `${rolled.body.public_key}:${rolled.body.secret_key}`);
  expect((await fresh.get('/v1/balances')).status).toBe(200);
  expect((await owner.post(`/v1/api_keys/${rolled.body.id}/roll`, { overlap_hours: 0 })).status).toBe(201);
  expect((await fresh.get('/v1/balances')).status).toBe(401);

  // Revoked: refused at once.
  expect((await client.get('/v1/balances')).status).toBe(200);
  expect((await owner.post(`/v1/api_keys/${id}/revoke`, {})).status).toBe(200);
  expect((await client.get('/v1/balances')).status).toBe(401);

  // last_used_at is still noted for a key served from memory (the listing writes what was noted first).
  const listed = (await owner.get('/v1/api_keys')).body.data.find((k: any) => k.id === id);
  expect(listed.last_used_at).toEqual(expect.any(String));
});

const withRedis = testIf(!redisUnavailable(), redisUnavailable() ?? '');

withRedis('revoked on one gateway, refused by another within 1 s through Redis (which keeps keys 10 minutes)', async () => {
  const watcher = new Redis(REDIS_URL);
  try {
    const subscribers = async () => Number(((await watcher.pubsub('NUMSUB', REVOCATION_CHANNEL)) as [string, number])[1]);
    const here = await gateway({ REDIS_URL });
    // Polls and the key cache's lapse both ten minutes away: a refusal within 1 s came through Redis.
    const otherUrl = await secondGateway(here, { REDIS_URL, API_KEY_CACHE_MS: '600000', REVOCATION_POLL_MS: '600000' });
    await eventually(async () => (await subscribers()) >= 2, 10_000);
    await eventually(async () => here.app.eventHub.redisReady, 10_000);
    // The other gateway listens once a probe key revoked here is refused there (the channel's
    // subscriber count is shared with every other test process on this Redis, so it cannot say).
    const probe = await newKey(here);
    const probeThere = probe.client.withBase(otherUrl);
    expect((await probeThere.get('/v1/balances')).status).toBe(200);
    expect((await probe.owner.post(`/v1/api_keys/${probe.id}/revoke`, {})).status).toBe(200);
    await eventually(async () => (await probeThere.get('/v1/balances')).status === 401, 20_000, 50);

    const { owner, id, client } = await newKey(here);
    const there = client.withBase(otherUrl);
    expect((await there.get('/v1/balances')).status).toBe(200);
    expect((await there.get('/v1/balances')).status).toBe(200);
    expect((await owner.post(`/v1/api_keys/${id}/revoke`, {})).status).toBe(200);
    expect((await client.get('/v1/balances')).status).toBe(401);
    const ms = await msUntilRefused(there);
    figures.push(`through Redis: ${ms} ms after the revoke answered (${here.database.kind})`);
    expect(ms).toBeLessThan(LIMIT_MS);
  } finally {
    watcher.disconnect();
  }
});

test('revoked on one gateway, Redis down: refused by another within API_KEY_CACHE_MS (500 ms)', async () => {
  const down = `redis://127.0.0.1:${await closedPort()}`;
  const here = await gateway({ REDIS_URL: down });
  const otherUrl = await secondGateway(here, { REDIS_URL: down, REVOCATION_POLL_MS: '600000' });
  const { owner, id, client } = await newKey(here);
  const there = client.withBase(otherUrl);
  expect((await there.get('/v1/balances')).status).toBe(200);
  const revokedAt = Date.now();
  expect((await owner.post(`/v1/api_keys/${id}/revoke`, {})).status).toBe(200);
  expect((await client.get('/v1/balances')).status).toBe(401);
  await msUntilRefused(there);
  const ms = Date.now() - revokedAt;
  figures.push(`Redis down, by the cache's lapse: ${ms} ms after the revoke was sent (${here.database.kind})`);
  expect(ms).toBeLessThan(LIMIT_MS);
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
