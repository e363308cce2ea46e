/**
 * Refusals are not silent: every refused credential and every rate-limit refusal is one log
 * line (the reason, the key id or the public key's first characters; never the secret) and
 * is counted in the metrics, on REST and graphql-ws alike. The client's 401 says none of it.
 */
import { Writable } from 'node:stream';
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';

const lines: Record<string, unknown>[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({
    env: { LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '2', METRICS_PORT: '0' },
    logDestination: capture,
    scheduler: false,
  });
  c = await srv.merchant(undefined, 'test', { fund: false });
});
afterAll(async () => {
  await srv?.close();
});

const refusals = () => lines.filter((l) => l.msg === 'request refused: credentials');

test('each refused credential is one line with its reason, and counted by reason', async () => {
  const [pk, sk] = c.auth!.split(':');
  const wrongSecret = `sk_test_${'Z'.repeat(32)}`;
  const tries: [string | undefined, string][] = [
    [undefined, 'missing'],
    ['Bearer abc', 'malformed'],
    [`Basic ${Buffer.from(`pk_test_${'A'.repeat(24)}:${sk}`).toString('base64')}`, 'unknown_key'],
    [`Basic ${Buffer.from(`${pk}:${wrongSecret}`).toString('base64')}`, 'wrong_secret'],
  ];
  const before = refusals().length;
  for (const [authorization, _reason] of tries) {
    const res = await c.request('GET', '/v1/balances', {
      headers: authorization === undefined ? { authorization: '' } : { authorization },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.message).not.toMatch(/missing|malformed|unknown|wrong|revoked/i);
  }
  const logged = refusals().slice(before);
  expect(logged.map((l) => l.reason)).toEqual(tries.map(([, reason]) => reason));
  expect(logged[3]).toMatchObject({ apiKeyId: c.key!.apiKeyId, publicKeyPrefix: `${pk.slice(0, 12)}...`, component: 'auth' });
  expect(logged[2]).toMatchObject({ publicKeyPrefix: 'pk_test_AAAA...' });
  const text = JSON.stringify(logged);
  expect(text).not.toContain(wrongSecret);
  expect(text).not.toContain(sk);
  expect(text).not.toContain(pk);

  const metrics = (await srv.client().withBase(srv.metricsUrl!).get('/metrics')).text;
  for (const reason of ['missing', 'malformed', 'unknown_key', 'wrong_secret']) {
    expect(Number(new RegExp(`^auth_refused_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  }
});

test('a rate-limit refusal is one line with the key id', async () => {
  const answers = await Promise.all(Array.from({ length: 12 }, () => c.get('/v1/balances')));
  const limited = answers.filter((r) => r.status === 429).length;
  expect(limited).toBeGreaterThan(0);
  const logged = lines.filter((l) => l.msg === 'request refused: rate limited');
  expect(logged.length).toBe(limited);
  expect(logged[0]).toMatchObject({ apiKeyId: c.key!.apiKeyId, component: 'rate-limit' });
});
