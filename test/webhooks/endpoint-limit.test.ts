/**
 * The cap of 16 enabled webhook endpoints per merchant and environment holds under
 * concurrency: parallel creates in one process (SQLite or MariaDB) and
 * split across two gateway processes (MariaDB) make exactly 16, every other answer is
 * 422 endpoint_limit_reached; deletes racing creates never let the count pass 16.
 */
import { randomUUID } from 'node:crypto';
import { startProcess, startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { Client, Res } from '../helpers/client';
import { MAX_ENDPOINTS } from '../../src/modules/webhooks/webhook.schemas';

jest.setTimeout(120000);

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ scheduler: false, env: { WEBHOOK_DELIVERY: '0' } });
});
afterAll(async () => {
  await srv?.close();
});

/** POST /v1/webhook_endpoints; half of them with an Idempotency-Key (the pipeline's other path). */
const create = (c: Client, i: number): Promise<Res> =>
  c.post('/v1/webhook_endpoints', { url: `http://127.0.0.1:9/hook-${i}` }, i % 2 ? { idempotencyKey: randomUUID() } : {});

/** How many of `answers` are 201, how many 422 endpoint_limit_reached, and anything else. */
function tally(answers: Res[]): { created: number; refused: number; other: string[] } {
  const created = answers.filter((r) => r.status === 201).length;
  const refused = answers.filter((r) => r.status === 422 && r.body?.error?.code === 'endpoint_limit_reached').length;
  const other = answers
    .filter((r) => r.status !== 201 && !(r.status === 422 && r.body?.error?.code === 'endpoint_limit_reached'))
    .map((r) => `${r.status} ${r.text.slice(0, 120)}`);
  return { created, refused, other };
}

async function enabledCount(c: Client): Promise<number> {
  const res = await c.get('/v1/webhook_endpoints?limit=100');
  expect(res.status).toBe(200);
  return res.body.data.filter((e: { status: string }) => e.status === 'enabled').length;
}

test(`40 parallel creates in one process make exactly ${MAX_ENDPOINTS}; the other 24 are 422 endpoint_limit_reached`, async () => {
  const m = await srv.merchant(undefined, 'test', { fund: false });
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(m, i)));
  expect(tally(answers)).toEqual({ created: MAX_ENDPOINTS, refused: 40 - MAX_ENDPOINTS, other: [] });
  expect(await enabledCount(m)).toBe(MAX_ENDPOINTS);
  // The other environment has a cap of its own.
  const live = await srv.keyFor(m.merchantId, 'live');
  expect((await create(live, 0)).status).toBe(201);
});

test('deletes racing creates: the count never passes the cap, and it equals what the answers say', async () => {
  const m = await srv.merchant(undefined, 'test', { fund: false });
  const first = await Promise.all(Array.from({ length: MAX_ENDPOINTS }, (_, i) => create(m, i)));
  expect(tally(first)).toEqual({ created: MAX_ENDPOINTS, refused: 0, other: [] });
  const victims = first.slice(0, 8).map((r) => r.body.id as string);
  const jobs: Promise<Res>[] = [];
  for (let i = 0; i < 24; i++) {
    jobs.push(create(m, 100 + i));
    if (i < victims.length) jobs.push(m.request('DELETE', `/v1/webhook_endpoints/${victims[i]}`));
  }
  const answers = await Promise.all(jobs);
  const deletes = answers.filter((r) => r.body?.deleted === true);
  expect(deletes).toHaveLength(victims.length);
  const { created, other } = tally(answers.filter((r) => r.body?.deleted !== true));
  expect(other).toEqual([]);
  const count = await enabledCount(m);
  expect(count).toBe(MAX_ENDPOINTS - victims.length + created);
  expect(count).toBeLessThanOrEqual(MAX_ENDPOINTS);
  // Once the dust settles the cap is exact again.
  const more = await Promise.all(Array.from({ length: 10 }, (_, i) => create(m, 200 + i)));
  expect(tally(more).created).toBe(MAX_ENDPOINTS - count);
  expect(await enabledCount(m)).toBe(MAX_ENDPOINTS);
});

testIf(usingMysql(), NEEDS_MYSQL)(`40 parallel creates split across two gateway processes make exactly ${MAX_ENDPOINTS}`, async () => {
  const procs = [await startProcess(srv.database, { WEBHOOK_DELIVERY: '0' }), await startProcess(srv.database, { WEBHOOK_DELIVERY: '0' })];
  try {
    for (let round = 0; round < 2; round++) {
      const m = await srv.merchant(undefined, 'test', { fund: false });
      const clients = procs.map((p) => m.withBase(p.url));
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(clients[i % 2], i)));
      expect(tally(answers)).toEqual({ created: MAX_ENDPOINTS, refused: 40 - MAX_ENDPOINTS, other: [] });
      expect(await enabledCount(m)).toBe(MAX_ENDPOINTS);
    }
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
});
