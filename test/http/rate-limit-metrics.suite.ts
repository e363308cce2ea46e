import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_PER_SECOND: '5', METRICS_PORT: '0' } });
});
afterAll(async () => {
  await srv.close();
});

test('a key over its rate gets 429 rate_limited with Retry-After; another key is unaffected', async () => {
  const a = await srv.merchant(undefined, 'test', { fund: false });
  const b = await srv.merchant(undefined, 'test', { fund: false });
  // 5 per second plus a burst of 5 per 10 s: 10 at once; 40 parallel calls exceed it even when a loaded machine spreads them over seconds
  const answers = await Promise.all(Array.from({ length: 40 }, () => a.get('/v1/payout_intents')));
  const limited = answers.filter((r) => r.status === 429);
  expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(9);
  expect(limited.length).toBeGreaterThanOrEqual(5);
  for (const r of limited) {
    expect(r.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.headers.get('request-id')).toMatch(/^req_/);
  }
  expect((await b.get('/v1/payout_intents')).status).toBe(200);
  // GraphQL is limited the same way
  const gql = await Promise.all(Array.from({ length: 40 }, () => a.gql('{ viewer { apiKeyId } }')));
  const gqlLimited = gql.filter((r) => r.status === 429);
  expect(gqlLimited.length).toBeGreaterThanOrEqual(5);
  expect(gqlLimited[0].body.errors?.[0].extensions.code).toBe('rate_limited');
});

test('/metrics (its own listener, METRICS_PORT) exposes request counters by route pattern, never raw ids', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  await c.get('/v1/payout_intents/po_doesnotexist');
  expect(srv.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await srv.client().withBase(srv.metricsUrl!).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/payout_intents\/:id",status="404"\} \d+/);
  expect(res.text).not.toContain('po_doesnotexist');
  expect(res.text).toContain('process_cpu_user_seconds_total');
  expect(res.text).toMatch(/^database_available 1$/m);
  expect(Number(/^database_statements_total (\d+)$/m.exec(res.text)?.[1])).toBeGreaterThan(0);
  // Not on the API port.
  const api = await srv.client().get('/metrics');
  expect([api.status, api.body?.error?.code]).toEqual([404, 'not_found']);
});

test('graphql-ws connections and subscribes take from the same allowance (4429, rate_limited)', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const url = srv.url.replace(/^http/, 'ws') + '/graphql';
  const connect = () =>
    createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: c.authorization },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
  // 12 connections at once: the allowance (5 per second plus a burst of 5) admits 10.
  const clients = Array.from({ length: 12 }, connect);
  const outcomes = await Promise.all(
    clients.map(
      (client) =>
        new Promise<{ code?: number; reason?: string }>((resolve) => {
          client.on('connected', () => resolve({}));
          client.on('closed', (e: any) => resolve({ code: e?.code, reason: e?.reason }));
        }),
    ),
  );
  const refused = outcomes.filter((o) => o.code === 4429);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused[0].reason).toMatch(/^Too many requests; retry after \d+ s$/);
  expect(outcomes.filter((o) => o.code === undefined).length).toBeGreaterThanOrEqual(5);
  // The allowance is spent: HTTP is refused too.
  expect((await c.get('/v1/payout_intents')).status).toBe(429);
  for (const client of clients) await client.dispose();

  // A subscribe takes a point: on a fresh key, one connection and 15 subscribes run out.
  const d = await srv.merchant(undefined, 'test', { fund: false });
  const one = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: d.authorization },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  const codes = await Promise.all(
    Array.from(
      { length: 15 },
      () =>
        new Promise<string | undefined>((resolve) => {
          one.subscribe(
            { query: 'subscription { events { id } }' },
            {
              next: () => undefined,
              error: (err: any) => resolve((Array.isArray(err) ? err[0] : err)?.extensions?.code),
              complete: () => resolve(undefined),
            },
          );
          setTimeout(() => resolve('open'), 3000);
        }),
    ),
  );
  expect(codes.filter((code) => code === 'rate_limited').length).toBeGreaterThanOrEqual(1);
  await one.dispose();
});
