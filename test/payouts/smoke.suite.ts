import { startServer, TestServer } from '../helpers/server';
import { payoutBody } from '../helpers/client';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

test('creates and reads a payout intent', async () => {
  const c = await srv.merchant();
  const created = await c.post('/v1/payout_intents', payoutBody());
  expect(created.status).toBe(201);
  const got = await c.get(`/v1/payout_intents/${created.body.id}`);
  expect(got.body).toEqual(created.body);
});
