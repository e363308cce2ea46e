/**
 * Bad input is a 4xx in the contract's shape, never a 5xx, pinned one by
 * one (test/contract/fuzz.test.ts finds the unknown ones): bodies nested thousands of
 * levels deep (with an Idempotency-Key they overflowed the fingerprint's canonical JSON),
 * bytes that are not UTF-8, unpaired surrogates, Apollo's refusals without a code, WebSocket
 * upgrades that cannot proceed, and a graphql-ws client sending a server's message.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, Res } from '../helpers/client';
import { rawRequest } from '../helpers/raw-http';
import { expectError } from '../helpers/errors';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}1${close.repeat(depth)}`;

describe('bodies nested deeper than 32 levels', () => {
  test.each([
    ['arrays, 5,000 levels, with an Idempotency-Key', nested(5000), true],
    ['objects, 5,000 levels, with an Idempotency-Key', nested(5000, '{"a":', '}'), true],
    ['a field 40 levels deep, with an Idempotency-Key', `{"amount":"1","metadata":${nested(40, '{"a":', '}')}}`, true],
    ['arrays, 30,000 levels (60 KB), no key', nested(30_000), false],
  ])('%s: 400 validation_error (param body), and the key stays free', async (_label, raw, withKey) => {
    const key = randomUUID();
    const res = await c.request('POST', '/v1/payout_intents', { raw, ...(withKey ? { idempotencyKey: key } : {}) });
    expectError(res, 400, 'validation_error', 'body');
    expect(res.body.error.message).toMatch(/nested more than 32 levels/);
    if (withKey) expect((await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: key })).status).toBe(201);
  });

  test('32 levels are read (the body then fails validation as usual)', async () => {
    expectError(await c.request('POST', '/v1/payout_intents', { raw: `{"metadata":${nested(31, '{"a":', '}')}}` }), 400, 'validation_error', 'amount');
  });

  test('GraphQL: the same limit, as a GraphQL error', async () => {
    const res = await c.request('POST', '/graphql', { raw: `{"query":"{ __typename }","variables":${nested(5000, '{"a":', '}')}}` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'body' });
  });
});

describe('text that is not Unicode', () => {
  test('bytes that are not UTF-8 are 400 invalid_json (they were stored as U+FFFD)', async () => {
    const body = Buffer.concat([Buffer.from(JSON.stringify(payoutBody()).slice(0, -1) + ',"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await fetch(`${srv.url}/v1/payout_intents`, {
      method: 'POST',
      headers: { authorization: c.authorization!, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    expectError({ status: res.status, headers: res.headers, text, body: JSON.parse(text) }, 400, 'invalid_json');
  });

  test('an unpaired surrogate is 400 validation_error naming the field (no column can hold it)', async () => {
    const raw = JSON.stringify(payoutBody()).replace(/"holder_name":"[^"]*"/, '"holder_name":"Som\\ud800chai"');
    const res = await c.request('POST', '/v1/payout_intents', { raw });
    expectError(res, 400, 'validation_error', 'recipient.holder_name');
  });

  test('a surrogate pair (an emoji) is text like any other', async () => {
    const res = await c.post(
      '/v1/payout_intents',
      payoutBody({ recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai 😀' } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.recipient.holder_name).toBe('Somchai 😀');
  });
});

describe('a key twice in one object', () => {
  test('REST: 400 validation_error naming the key, and nothing is created (the last value does not win)', async () => {
    const reference = `dup_${randomUUID()}`;
    const once = JSON.stringify(payoutBody({ amount: '100', merchant_reference: reference }));
    const twice = `${once.slice(0, -1)},"amount":"999999"}`;
    const res = await c.request('POST', '/v1/payout_intents', { raw: twice });
    expectError(res, 400, 'validation_error', 'amount');
    const nested = once.replace('"holder_name":', '"holder_name":"X","holder_name":');
    expectError(await c.request('POST', '/v1/payout_intents', { raw: nested }), 400, 'validation_error', 'recipient.holder_name');
    expect((await c.get(`/v1/payout_intents?merchant_reference=${reference}`)).body.data).toEqual([]);
  });

  test('GraphQL: a key twice in the variables is refused the same way', async () => {
    const raw =
      '{"query":"mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id } }","variables":{"input":{"amount":"1","amount":"2"}}}';
    const res = await c.request('POST', '/graphql', { raw });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'variables.input.amount' });
  });

  test('a repeated key inside a string value is fine', async () => {
    // A repeated key inside a string value is text.
    const body = payoutBody({
      recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: '{"a":1,"a":2}' },
    });
    const res = await c.post('/v1/payout_intents', body);
    expect(res.status).toBe(201);
    expect(res.body.recipient.holder_name).toBe('{"a":1,"a":2}');
  });
});

describe('persisted queries are not served (Apollo keeps one store for every caller)', () => {
  test.each([
    ['a hash alone (POST)', { extensions: { persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } } }],
    [
      'a hash with its document',
      {
        query: '{ __typename }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } },
      },
    ],
    ['a hash that does not match its document', { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } }],
    ['an unknown version', { query: '{ __typename }', extensions: { persistedQuery: { version: 2, sha256Hash: '0'.repeat(64) } } }],
  ])('%s: 400 validation_error naming extensions.persistedQuery', async (_label, body) => {
    const res: Res = await c.request('POST', '/graphql', { body });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.extensions)).toEqual([{ code: 'validation_error', param: 'extensions.persistedQuery' }]);
  });

  test('over GET too, and a hash registered by one merchant never runs for another', async () => {
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const extensions = encodeURIComponent(
      JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38' } }),
    );
    await c.request('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}&extensions=${extensions}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    const res: Res = await other.request('GET', `/graphql?extensions=${extensions}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toEqual({ code: 'validation_error', param: 'extensions.persistedQuery' });
    expect(res.body.data).toBeUndefined();
  });
});

describe('WebSocket', () => {
  const upgrade = (path: string, extra = '') =>
    `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

  test('an upgrade with a broken handshake is 400 in the contract shape (ws answered in plain text)', async () => {
    const res = await rawRequest(srv.url, upgrade('/graphql'));
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'bad_request' });
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  test('an upgrade on another path is 400 in the contract shape (the socket was dropped unanswered)', async () => {
    const res = await rawRequest(srv.url, upgrade('/v1/events', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'));
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'bad_request' });
  });

  test.each([
    ['next', { data: {} }],
    ['error', [{ message: 'x' }]],
    ['connection_ack', {}],
  ])('a client sending "%s" (a server\'s message) is closed 4400, not 4500', async (type, payload) => {
    const ws = new WebSocket(`${srv.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: c.authorization } }));
    await new Promise((resolve) => ws.once('message', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    ws.send(JSON.stringify({ type, id: '1', payload }));
    expect(await closed).toBe(4400);
  });
});
