/**
 * Declared fields are decided once per field definition per operation, not once per value:
 * a page of several payment intents costs the caller's key as many permission decisions as
 * a page of one, and a refused nested field (`PaymentIntent.refunds` for a key without
 * refunds:read) is still refused at every row, with the same error and path, while it is
 * logged and counted (permission_refused_total) once.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { succeededPayment } from '../helpers/fixtures';
import { permissionDecisions } from '../../src/graphql/access';
import { permissionRefusals } from '../../src/domain/access';

const ROWS = 4;
let srv: TestServer;
let full: Client;
let paymentsOnly: Client;

beforeAll(async () => {
  srv = await startServer();
  full = await srv.merchant();
  for (let i = 0; i < ROWS; i++) await succeededPayment(full, '5000');
  paymentsOnly = await srv.keyFor(full.merchantId, 'test', ['payment_intents:read']);
});
afterAll(async () => {
  await srv.close();
});

const page = (first: number) => `{ paymentIntents(first: ${first}) { nodes { id refunds(first: 2) { nodes { id } } } } }`;

/** The decisions one document costs (the server runs in this process). */
async function decisionsOf(client: Client, doc: string) {
  const before = permissionDecisions();
  const res = await client.gql(doc);
  return { res, decisions: permissionDecisions() - before };
}

test('a page of many rows costs the same decisions as a page of one', async () => {
  const one = await decisionsOf(full, page(1));
  const many = await decisionsOf(full, page(ROWS));
  expect(one.res.body.errors).toBeUndefined();
  expect(many.res.body.errors).toBeUndefined();
  expect(many.res.body.data.paymentIntents.nodes).toHaveLength(ROWS);
  // Query.paymentIntents and PaymentIntent.refunds: one decision each, whatever the page size.
  expect(one.decisions).toBe(2);
  expect(many.decisions).toBe(one.decisions);
});

test('a refused nested field is refused at every row and counted once', async () => {
  const refusedBefore = permissionRefusals.get('refunds:read') ?? 0;
  const { res, decisions } = await decisionsOf(paymentsOnly, page(ROWS));
  expect(res.status).toBe(200);
  expect(decisions).toBe(2);
  const nodes = res.body.data.paymentIntents.nodes;
  expect(nodes).toHaveLength(ROWS);
  for (const node of nodes) expect(node).toEqual({ id: expect.stringMatching(/^pi_/), refunds: null });
  expect(res.body.errors).toEqual(
    nodes.map((_: unknown, i: number) => ({
      message: 'This call needs the permission refunds:read, which the caller does not have.',
      locations: [expect.any(Object)],
      path: ['paymentIntents', 'nodes', i, 'refunds'],
      extensions: { code: 'permission_denied' },
    })),
  );
  expect((permissionRefusals.get('refunds:read') ?? 0) - refusedBefore).toBe(1);
});
