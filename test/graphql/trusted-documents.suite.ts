/**
 * Trusted documents: the dashboard's operations, registered at build time
 * (dist/persisted-documents.json), run by `documentId`. With GRAPHQL_TRUSTED_DOCUMENTS=only a
 * signed-in member runs registered documents only, over HTTP and graphql-ws; API keys keep
 * full GraphQL.
 */
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startServer, type TestServer } from '../helpers/server';
import { ref, type Client } from '../helpers/client';
import { addMember, type MemberClient } from '../helpers/members';
import { REGISTERED } from '../helpers/browser';

const manifest = REGISTERED;
/** The id of the registered document whose text starts with `start`. */
function idOf(start: string): string {
  const found = Object.entries(manifest).find(([, text]) => text.startsWith(start));
  if (!found) throw new Error(`no registered document starts with ${start}`);
  return found[0];
}

let srv: TestServer;
let m: Client;
let member: MemberClient;

beforeAll(async () => {
  srv = await startServer({ env: { GRAPHQL_TRUSTED_DOCUMENTS: 'only', REDIS_URL: '' } });
  m = await srv.merchant();
  member = await addMember(srv, m.merchantId, `trusted.${process.pid}@example.com`, 'finance');
});
afterAll(async () => {
  await srv?.close();
});

test('the build registers every dashboard operation under its sha256', () => {
  expect(Object.keys(manifest).length).toBeGreaterThan(40);
  for (const id of Object.keys(manifest)) expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
});

test('a member runs a registered document by documentId', async () => {
  const posted = await member.post('/graphql', { documentId: idOf('query Sessions') });
  expect(posted.status).toBe(200);
  expect(posted.body.errors).toBeUndefined();
  expect(posted.body.data.sessions.length).toBeGreaterThan(0);
});

test('documentId goes in a POST body; a GET naming one is a validation_error', async () => {
  const got = await m.get(`/graphql?documentId=${encodeURIComponent(idOf('query CurrencyExponents'))}`);
  expect(got.status).toBe(400);
  expect(got.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'documentId' });
});

test('a member sending text is refused, even the text of a registered document', async () => {
  for (const query of ['{ balances { currency } }', manifest[idOf('query Sessions')]]) {
    const res = await member.post('/graphql', { query });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'query' });
  }
});

test('an unknown documentId, or one beside a query, is a validation_error', async () => {
  const unknown = await member.post('/graphql', { documentId: `sha256:${'0'.repeat(64)}` });
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'documentId' });
  const both = await m.post('/graphql', { documentId: idOf('query Sessions'), query: '{ balances { currency } }' });
  expect(both.status).toBe(400);
  expect(both.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'documentId' });
});

test('API keys keep full GraphQL, and may name registered documents too', async () => {
  const text = await m.gql('{ balances { currency } }');
  expect(text.status).toBe(200);
  expect(text.body.data.balances.map((b: { currency: string }) => b.currency)).toContain('THB');
  const byId = await m.post('/graphql', { documentId: idOf('query CurrencyExponents') });
  expect(byId.status).toBe(200);
  expect(byId.body.data.balances.length).toBeGreaterThan(0);
});

test('over graphql-ws a member subscribes by extensions.documentId; text alone is refused', async () => {
  const headers = { cookie: member.cookie, origin: srv.url };
  class CookieSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const ws = createClient({ url: `${srv.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: CookieSocket, retryAttempts: 0 });
  const first = (payload: { query: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown> }) =>
    new Promise<unknown>((resolve) => {
      const stop = ws.subscribe(payload, {
        next: (msg) => {
          stop();
          resolve(msg);
        },
        error: (err) => resolve({ refused: err }),
        complete: () => undefined,
      });
    });
  const payout = async () =>
    m.post('/v1/payout_intents', {
      amount: '1000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: ref('trusted'),
      recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
    });
  try {
    // `after` the newest event: the stream replays from there, so the next event cannot be missed.
    expect((await payout()).status).toBe(201);
    const after = (await m.gql('{ events(first: 1) { nodes { id } } }')).body.data.events.nodes[0].id as string;
    const id = idOf('subscription LiveEvent');
    const live = first({ query: 'ignored when documentId is given', variables: { after }, extensions: { documentId: id } });
    expect((await payout()).status).toBe(201);
    const msg = (await live) as { data?: { events: { type: string } } };
    expect(msg.data?.events.type).toMatch(/^payout_intent\./);
    const refused = (await first({ query: manifest[id], variables: { after } })) as { refused: { extensions: { code: string; param: string } }[] };
    expect(refused.refused[0].extensions).toEqual({ code: 'validation_error', param: 'query' });
  } finally {
    await ws.dispose();
  }
});
