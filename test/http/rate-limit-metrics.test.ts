import { startServer, TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMIT_PER_SECOND: '5' } });
});
afterAll(async () => {
  await srv.close();
});

test('a key over its rate gets 429 rate_limited with Retry-After; another key is unaffected', async () => {
  const a = await srv.merchant(undefined, 'test', { fund: false });
  const b = await srv.merchant(undefined, 'test', { fund: false });
  // burst is twice the per-second rate: 10 tokens; 40 parallel calls exceed it even when a loaded machine spreads them over seconds
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

test('/metrics exposes request counters by route pattern, never raw ids', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  await c.get('/v1/payout_intents/po_doesnotexist');
  const res = await srv.client().get('/metrics');
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/payout_intents\/:id",status="404"\} \d+/);
  expect(res.text).not.toContain('po_doesnotexist');
  expect(res.text).toContain('process_cpu_user_seconds_total');
});
