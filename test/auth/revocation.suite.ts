/**
 * A revoked key loses its open graphql-ws streams within 1 s on any process: through the
 * database poll (no Redis) or Redis pub/sub, whether the key is revoked by another gateway
 * process or by the CLI. Each case keeps a stream busy (payouts made with a second key of
 * the same merchant), revokes, and checks: the socket closes with 4403 within 1 s of the
 * revocation (timed from `revoked_at`, written by the revoker on the same machine), the
 * key's HTTP requests are refused at once by the process that revoked it and within 1 s by
 * any other (Redis, or its kept copy of the key lapsing), and no event caused after the
 * revocation reaches the stream.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { runCli, startProcess, startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, REDIS_URL, redisUnavailable, testIf, usingMysql } from '../helpers/skip';
import { Client, eventually, payoutBody } from '../helpers/client';
import { ApiKey } from '../../src/modules/auth/api-key.entity';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { REDIS_URL: '' } });
});
afterAll(async () => {
  await srv.close();
  if (figures.length) process.stdout.write(`\nrevocation latency (revoked_at -> socket closed at the client):\n${figures.map((f) => `  ${f}`).join('\n')}\n`);
});

const figures: string[] = [];
const wsUrl = (httpUrl: string) => httpUrl.replace(/^http/, 'ws') + '/graphql';
const SUB = 'subscription { events { id type data { object } } }';
const LIMIT_MS = 1000;

interface Outcome {
  code: number;
  latencyMs: number;
  receivedBefore: number;
  receivedAfter: string[];
}

/**
 * Subscribes with `victim` at `subscriberUrl`, makes payouts with `producer` (same merchant,
 * another key) until the stream is live, revokes with `revoke`, and watches what follows.
 */
async function revokeWhileStreaming(
  subscriberUrl: string,
  victim: Client,
  producer: Client,
  revoke: () => Promise<void>,
  reader: TestServer = srv,
  /** The URL of the gateway that revokes (its HTTP refusal is checked to be immediate); none for the CLI. */
  revokedBy?: string,
): Promise<Outcome> {
  // SQLite is one process's database: a second writer (the CLI) beside a busy server makes
  // one of them fail with SQLITE_BUSY. There the producer pauses while the CLI runs.
  const pauseForRevoke = reader.database.kind === 'sqlite';
  let gate: Promise<void> | undefined;
  const received: string[] = [];
  let closed: { code: number; at: number } | undefined;
  const client = createClient({
    url: wsUrl(subscriberUrl),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: victim.authorization },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  client.on('closed', (e: any) => (closed ??= { code: e?.code, at: Date.now() }));
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (e: any) => reject(new Error(`closed ${e?.code}`)));
  });
  client.subscribe(
    { query: SUB },
    { next: (msg: any) => msg.data && received.push(msg.data.events.data.object.id), error: () => undefined, complete: () => undefined },
  );

  // Payouts, one after another, each remembered with the time its request was sent.
  const made: { id: string; sentAt: number }[] = [];
  let producing = true;
  const production = (async () => {
    while (producing) {
      if (gate) await gate;
      const sentAt = Date.now();
      const res = await producer.post('/v1/payout_intents', payoutBody());
      if (res.status !== 201) throw new Error(`payout ${res.status}: ${res.text}`);
      made.push({ id: res.body.id, sentAt });
    }
  })();
  try {
    await eventually(async () => received.length >= 3, 15000);
    let open = () => undefined as void;
    if (pauseForRevoke) gate = new Promise<void>((r) => (open = r));
    await new Promise((r) => setTimeout(r, pauseForRevoke ? 200 : 0));
    // Used just before: its process holds the key in memory (API_KEY_CACHE_MS) when it is revoked.
    expect((await victim.get('/v1/balances')).status).toBe(200);
    await revoke();
    const revokedAt = Date.now();
    gate = undefined;
    open();
    const row = await reader.app.db.read((em) => em.findOneByOrFail(ApiKey, { id: victim.key!.apiKeyId }));
    expect(row.revokedAt).not.toBeNull();
    // HTTP: refused at once by the process that revoked, within 1 s by any other.
    for (const url of new Set([victim.baseUrl, subscriberUrl])) {
      const there = victim.withBase(url);
      if (url === revokedBy) expect((await there.get('/v1/balances')).status).toBe(401);
      else {
        await eventually(async () => (await there.get('/v1/balances')).status === 401, LIMIT_MS, 20);
        figures.push(`HTTP refused by another process: ${Date.now() - revokedAt} ms after the revocation returned`);
      }
    }
    await eventually(async () => closed, 5000, 5).catch(() => undefined);
    // Let the producer go on a moment after the close: nothing more may arrive.
    await new Promise((r) => setTimeout(r, 300));
    producing = false;
    await production;
    const after = new Set(made.filter((m) => m.sentAt >= revokedAt).map((m) => m.id));
    expect(after.size).toBeGreaterThan(0);
    return {
      code: closed?.code ?? -1,
      latencyMs: closed ? closed.at - row.revokedAt!.getTime() : Infinity,
      receivedBefore: received.filter((id) => !after.has(id)).length,
      receivedAfter: received.filter((id) => after.has(id)),
    };
  } finally {
    producing = false;
    await production.catch(() => undefined);
    await client.dispose();
  }
}

function expectClosedInTime(label: string, outcome: Outcome): void {
  figures.push(`${label}: ${outcome.latencyMs} ms (code ${outcome.code}, ${outcome.receivedBefore} events before, ${outcome.receivedAfter.length} after)`);
  expect(outcome.code).toBe(4403);
  expect(outcome.latencyMs).toBeLessThan(LIMIT_MS);
  expect(outcome.receivedBefore).toBeGreaterThanOrEqual(3);
  expect(outcome.receivedAfter).toEqual([]);
}

async function pair(server: TestServer): Promise<{ victim: Client; producer: Client }> {
  const producer = await server.merchant();
  const victim = await server.keyFor(producer.merchantId);
  return { victim, producer };
}

const cliRevoke = (server: TestServer, key: Client, env: Record<string, string>) => async () => {
  const run = await runCli(server.database, ['keys', 'revoke', key.auth!.split(':')[0]], env);
  if (run.code !== 0) throw new Error(`cli keys revoke: ${run.code} ${run.stderr}`);
};

test('revoked in the same process: the socket closes at once', async () => {
  const { victim, producer } = await pair(srv);
  const outcome = await revokeWhileStreaming(
    srv.url,
    victim,
    producer,
    async () => {
      expect(await srv.app.auth.revokeKey(victim.key!.apiKeyId)).toBe(true);
    },
    srv,
    srv.url,
  );
  expectClosedInTime(`same process, ${srv.database.kind}`, outcome);
});

test('revoked by the CLI (another process), no Redis: the database poll closes the socket within 1 s', async () => {
  const { victim, producer } = await pair(srv);
  const outcome = await revokeWhileStreaming(srv.url, victim, producer, cliRevoke(srv, victim, { REDIS_URL: '' }));
  expectClosedInTime(`CLI, database poll, ${srv.database.kind}`, outcome);
});

const withRedis = testIf(!redisUnavailable(), redisUnavailable() ?? '');

withRedis('revoked by the CLI with REDIS_URL: the message closes the socket (the poll is off)', async () => {
  // Polling every 10 minutes here: a close within 1 s came through Redis.
  const here = await startServer({ env: { REDIS_URL, REVOCATION_POLL_MS: '600000' } });
  try {
    await eventually(async () => here.app.eventHub.redisReady, 5000);
    const { victim, producer } = await pair(here);
    const outcome = await revokeWhileStreaming(here.url, victim, producer, cliRevoke(here, victim, { REDIS_URL }), here);
    expectClosedInTime(`CLI, Redis, ${here.database.kind}`, outcome);
  } finally {
    await here.close();
  }
});

const mysqlOnly = testIf(usingMysql(), NEEDS_MYSQL);
const mysqlAndRedis = testIf(usingMysql() && !redisUnavailable(), usingMysql() ? (redisUnavailable() ?? '') : NEEDS_MYSQL);

mysqlOnly('subscriber on one gateway process, key revoked on another, no Redis: closed within 1 s by the poll', async () => {
  const other = await startProcess(srv.database, { REDIS_URL: '' });
  try {
    const { victim, producer } = await pair(srv);
    const outcome = await revokeWhileStreaming(
      other.url,
      victim,
      producer,
      async () => {
        expect(await srv.app.auth.revokeKey(victim.auth!.split(':')[0])).toBe(true);
      },
      srv,
      srv.url,
    );
    expectClosedInTime('other gateway process, database poll, mysql', outcome);

    // And by the CLI, to the same spawned process.
    const second = await pair(srv);
    expectClosedInTime(
      'CLI -> other gateway process, database poll, mysql',
      await revokeWhileStreaming(other.url, second.victim, second.producer.withBase(other.url), cliRevoke(srv, second.victim, { REDIS_URL: '' })),
    );
  } finally {
    await other.stop();
  }
});

mysqlAndRedis('subscriber on one gateway process, key revoked on another, with Redis and the poll off: closed through Redis', async () => {
  const here = await startServer({ database: srv.database, scheduler: false, env: { REDIS_URL } });
  const other = await startProcess(srv.database, { REDIS_URL, REVOCATION_POLL_MS: '600000' });
  try {
    await eventually(async () => here.app.eventHub.redisReady, 5000);
    const { victim, producer } = await pair(here);
    const outcome = await revokeWhileStreaming(
      other.url,
      victim,
      producer,
      async () => {
        expect(await here.app.auth.revokeKey(victim.key!.apiKeyId)).toBe(true);
      },
      srv,
      here.url,
    );
    expectClosedInTime('other gateway process, Redis, mysql', outcome);
  } finally {
    await other.stop();
    await here.close();
  }
});
