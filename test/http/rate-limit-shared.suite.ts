/**
 * The rate limit is shared across gateway processes through Redis (REDIS_URL), and falls
 * back to a per-process limit in memory when Redis is unreachable or stalled, without
 * hanging or failing requests.
 *
 * Allowance with RATE_LIMIT_PER_SECOND = r, over T seconds of sending (src/http/rate-limit.ts):
 * at most r per 1-second window (windows do not overlap, so at most floor(T) + 1 of them)
 * plus a burst of r per 10-second window: at most r * (floor(T) + 2) for T < 10.
 */
import net from 'node:net';
import { startProcess, startServer, TestServer } from '../helpers/server';
import { REDIS_URL, redisUnavailable, testIf } from '../helpers/skip';
import { Client } from '../helpers/client';

const RATE = 5;
/** Two 1-second windows and the burst: enough to be refused, and each second of sending is a core busy. */
const SECONDS = 2;
/** Most one allowance can admit in SECONDS of sending. */
const ALLOWANCE_MAX = RATE * (Math.floor(SECONDS) + 2);

const figures: string[] = [];
afterAll(() => {
  if (figures.length)
    process.stdout.write(`\nrate limit (RATE_LIMIT_PER_SECOND=${RATE}, ${SECONDS} s of sending):\n${figures.map((f) => `  ${f}`).join('\n')}\n`);
});

interface Tally {
  ok: number;
  limited: number;
  other: number[];
  worstMs: number;
  retryAfterOk: boolean;
}

/** One GET /v1/balances through `c`, tallied in `t`. */
async function send(c: Client, t: Tally): Promise<void> {
  const started = Date.now();
  const res = await c.get('/v1/balances');
  t.worstMs = Math.max(t.worstMs, Date.now() - started);
  if (res.status === 200) t.ok++;
  else if (res.status === 429) {
    t.limited++;
    const ok = res.body?.error?.code === 'rate_limited' && Number(res.headers.get('retry-after')) >= 1;
    t.retryAfterOk &&= ok;
  } else t.other.push(res.status);
}

/**
 * Sends GET /v1/balances through each client from PARALLEL loops, one request at a time per
 * loop, for `seconds`. `primed`: first one request through each client in turn, the last client
 * first, within the same `seconds`: every process is served before the race, in which the
 * in-process server's loops may otherwise take every admission on a loaded machine.
 */
const PARALLEL = 4;
async function hammer(clients: Client[], seconds: number, primed = false): Promise<Tally[]> {
  const until = Date.now() + seconds * 1000;
  const tallies = clients.map((): Tally => ({ ok: 0, limited: 0, other: [], worstMs: 0, retryAfterOk: true }));
  if (primed) for (let i = clients.length - 1; i >= 0; i--) await send(clients[i], tallies[i]);
  await Promise.all(
    clients.map(async (c, i) => {
      await Promise.all(
        Array.from({ length: PARALLEL }, async () => {
          while (Date.now() < until) await send(c, tallies[i]);
        }),
      );
    }),
  );
  return tallies;
}

const withRedis = testIf(!redisUnavailable(), redisUnavailable() ?? '');

withRedis('two gateway processes sharing Redis admit one allowance in total, not one each', async () => {
  const env = { RATE_LIMIT_PER_SECOND: String(RATE), REDIS_URL, METRICS_PORT: '0' };
  const one = await startServer({ env });
  const two = await startProcess(one.database, env);
  try {
    await new Promise((r) => setTimeout(r, 200));
    // Reference: one key on one process alone.
    const alone = await one.merchant(undefined, 'test', { fund: false });
    const [ref] = await hammer([alone], SECONDS);
    // Another key, sent to both processes at once.
    const both = await one.merchant(undefined, 'test', { fund: false });
    const [a, b] = await hammer([both, both.withBase(two.url)], SECONDS, true);
    const total = a.ok + b.ok;
    figures.push(
      `shared through Redis: one process alone admitted ${ref.ok} (${ref.limited} refused); two processes together admitted ${total} (${a.ok} + ${b.ok}; ${a.limited + b.limited} refused); bound ${ALLOWANCE_MAX}`,
    );
    for (const t of [ref, a, b]) {
      expect(t.other).toEqual([]);
      expect(t.retryAfterOk).toBe(true);
    }
    // The reference used up its allowance: it was refused too.
    expect(ref.limited).toBeGreaterThan(0);
    expect(ref.ok).toBeGreaterThanOrEqual(RATE * 2);
    expect(ref.ok).toBeLessThanOrEqual(ALLOWANCE_MAX);
    // Both processes served some, and together no more than one allowance.
    expect(a.ok).toBeGreaterThan(0);
    expect(b.ok).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(ALLOWANCE_MAX);
    expect(a.limited + b.limited).toBeGreaterThan(0);
    // The metrics say the decisions were Redis's: in memory only when a Redis command took
    // over 500 ms (it happens on a machine under heavy load), never most of them.
    const counter = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    const [m1, m2] = await Promise.all([one.client().withBase(one.metricsUrl!).get('/metrics'), one.client().withBase(two.metricsUrl!).get('/metrics')]);
    const fallbacks = counter(m1.text, 'rate_limit_fallback_total') + counter(m2.text, 'rate_limit_fallback_total');
    figures.push(
      `  decisions taken in memory (Redis command over 500 ms) during that: ${fallbacks} of ${ref.ok + ref.limited + a.ok + a.limited + b.ok + b.limited}`,
    );
    expect(fallbacks).toBeLessThan((ref.ok + ref.limited + a.ok + a.limited + b.ok + b.limited) / 10);
    expect(counter(m1.text, 'rate_limit_refused_total')).toBeGreaterThan(0);
  } finally {
    await two.stop();
    await one.close();
  }
});

/** A TCP server that accepts connections and never answers: a stalled Redis. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

test.each([
  ['unreachable (connection refused)', async () => ({ url: `redis://127.0.0.1:${await closedPort()}`, close: async () => undefined })],
  ['stalled (accepts, never answers)', silentServer],
])('Redis %s: requests are served with the in-process limit, quickly, never a 5xx', async (label, makeRedis) => {
  const redis = await makeRedis();
  let srv: TestServer | undefined;
  try {
    srv = await startServer({ env: { RATE_LIMIT_PER_SECOND: String(RATE), REDIS_URL: redis.url, METRICS_PORT: '0' } });
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const [t] = await hammer([c], SECONDS);
    figures.push(`Redis ${label}: admitted ${t.ok}, refused ${t.limited}, other ${JSON.stringify(t.other)}, slowest answer ${t.worstMs} ms`);
    expect(t.other).toEqual([]);
    expect(t.ok).toBeGreaterThanOrEqual(RATE * 2);
    expect(t.ok).toBeLessThanOrEqual(ALLOWANCE_MAX);
    expect(t.limited).toBeGreaterThan(0);
    expect(t.retryAfterOk).toBe(true);
    expect(t.worstMs).toBeLessThan(2000);
    const metrics = (await srv.client().withBase(srv.metricsUrl!).get('/metrics')).text;
    expect(Number(/^rate_limit_fallback_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(t.ok);
  } finally {
    await srv?.close();
    await redis.close();
  }
});
