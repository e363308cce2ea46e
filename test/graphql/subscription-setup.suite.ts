/**
 * A subscription the server refuses while setting it up (no permission, an unknown record, a bad
 * `after`) is graphql-ws's `error` message with the contract's code, never a `next` carrying
 * errors (docs/subscriptions.md).
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';

let srv: TestServer;
let full: Client;
beforeAll(async () => {
  srv = await startServer();
  full = await srv.merchant();
});
afterAll(async () => {
  await srv.close();
});

/** What the client receives for one subscribe: every `next`, and the `error` message's errors. */
async function outcome(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const ws = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: client.authorization },
    retryAttempts: 0,
  });
  const nexts: unknown[] = [];
  try {
    const error = await new Promise<unknown>((resolve) => {
      ws.subscribe({ query, variables }, { next: (m) => nexts.push(m), error: (e) => resolve(e), complete: () => resolve(undefined) });
    });
    return { nexts, error: error as { extensions?: { code?: string; param?: string }; path?: unknown }[] | undefined };
  } finally {
    await ws.dispose();
  }
}

test('a key without events:read gets an error message with permission_denied, and no next', async () => {
  const key = await srv.keyFor(full.merchantId, 'test', ['payout_intents:read']);
  const { nexts, error } = await outcome(key, 'subscription { events { id } }');
  expect(nexts).toEqual([]);
  expect(Array.isArray(error)).toBe(true);
  expect(error!.map((e) => e.extensions?.code)).toEqual(['permission_denied']);
  expect(error![0].path).toEqual(['events']);
});

test('an unknown record is an error message with not_found; a foreign after is one with validation_error', async () => {
  const unknown = await outcome(full, 'subscription($id: ID!) { payoutIntent(id: $id) { event { id } } }', { id: 'po_unknown' });
  expect(unknown.nexts).toEqual([]);
  expect(unknown.error!.map((e) => e.extensions?.code)).toEqual(['not_found']);
  const badAfter = await outcome(full, 'subscription($after: String) { events(after: $after) { id } }', { after: 'evt_unknown' });
  expect(badAfter.nexts).toEqual([]);
  expect(badAfter.error!.map((e) => e.extensions)).toEqual([{ code: 'validation_error', param: 'after' }]);
});
