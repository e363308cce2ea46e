/**
 * GraphQL over HTTP conformance, checked with graphql-http's own server audits against
 * the real /graphql endpoint (authenticated). Every MUST audit passes; the SHOULD/MAY
 * audits that Apollo answers differently (status codes of parse/validation failures) are listed in
 * docs/decisions/0014-graphql-surface.md and pinned here so a change is noticed.
 */
import { auditServer } from 'graphql-http';
import { startServer, TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

test('every MUST audit of the GraphQL over HTTP spec passes', async () => {
  const client = await srv.merchant(undefined, 'test', { fund: false });
  const fetchFn = (input: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', client.authorization!);
    return fetch(input, { ...init, headers });
  };
  const results = await auditServer({ url: `${srv.url}/graphql`, fetchFn });
  expect(results.length).toBeGreaterThan(50);
  const errors = results.filter((r) => r.status === 'error').map((r) => r.name);
  expect(errors).toEqual([]);
  const notOk = results.filter((r) => r.status !== 'ok').length;
  // 5 known SHOULD/MAY differences today (see docs/decisions/0014-graphql-surface.md); fewer is fine, more is a regression.
  expect(notOk).toBeLessThanOrEqual(5);
});
