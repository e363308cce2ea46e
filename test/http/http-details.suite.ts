/**
 * docs/contract.md "Additions (second round)" -> "HTTP details", end to end over real HTTP (fetch,
 * and raw sockets where fetch refuses to send the request):
 *
 * - optional POST bodies: no body and no Content-Type is fine; a present body must be an object;
 * - a known path with another method is 405 method_not_allowed with Allow; unknown paths 404;
 * - answers produced before routing (malformed or repeated headers, header overflow, a missing
 *   Host, an unsupported Expect, the 503 while closing) have the contract's body and a Request-Id;
 * - list date filters that are not real calendar instants are 400 (REST and GraphQL);
 * - GraphQL documents that do not parse or validate are HTTP 400 validation_error, and Apollo's
 *   own error codes never reach a client.
 */
import { registeredRoutes } from '../helpers/routes';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { startServer, TestServer } from '../helpers/server';
import { Client, Res, payoutBody } from '../helpers/client';
import { approvePayout, createPayout, createRefund, paymentBody, succeededPayment, topupBody } from '../helpers/fixtures';
import { rawExchange, rawRequest, RawResponse, splitResponses } from '../helpers/raw-http';
import { expectError, REQUEST_ID } from '../helpers/errors';

let srv: TestServer;
let merchant: Client;
let live: Client;

/** Apollo Server's and graphql-js's own codes: none may reach a client (they map to contract codes). */
const APOLLO_CODES = /BAD_REQUEST|OPERATION_RESOLUTION_FAILURE|GRAPHQL_PARSE_FAILED|GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT|INTERNAL_SERVER_ERROR|graphqlCode/;

function expectRawError(res: RawResponse, status: number, code: string, param?: string): void {
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status, code, param });
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['request-id']).toMatch(REQUEST_ID);
}

function expectGqlError(res: Res, status: number, code: string): void {
  expect({ status: res.status, codes: (res.body?.errors ?? []).map((e: any) => e.extensions?.code) }).toEqual({ status, codes: [code] });
  expect(res.text).not.toMatch(APOLLO_CODES);
  expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
}

beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant();
  live = await srv.merchant(undefined, 'live', { fund: false });
});

afterAll(async () => {
  await srv?.close();
});

/** A POST as `curl -X POST` sends it: no body and no Content-Type (fetch adds Content-Length: 0). */
const bare = (c: Client, path: string, headers: Record<string, string> = {}) => c.request('POST', path, { noContentType: true, headers });

async function newPayment(c: Client = merchant): Promise<string> {
  const res = await c.post('/v1/payment_intents', paymentBody({ payment_method: 'promptpay' }));
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('requires_action');
  return res.body.id;
}

async function newTopup(c: Client = merchant): Promise<string> {
  const res = await c.post('/v1/topup_intents', topupBody(), { idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A pending refund of a payment that succeeded at once. */
async function newRefund(c: Client = merchant): Promise<string> {
  return (await createRefund(c, { payment_intent: (await succeededPayment(c)).id, amount: '100' })).id;
}

/** Routes whose body is optional, each with a record in the state the route acts on. */
const OPTIONAL_BODY_ROUTES: [string, () => Promise<{ post: string; get: string }>, number, string][] = [
  [
    'payout approve',
    async () => {
      const id = (await createPayout(merchant)).id;
      return { post: `/v1/payout_intents/${id}/approve`, get: `/v1/payout_intents/${id}` };
    },
    202,
    'processing',
  ],
  [
    'payout cancel',
    async () => {
      const id = (await createPayout(merchant)).id;
      return { post: `/v1/payout_intents/${id}/cancel`, get: `/v1/payout_intents/${id}` };
    },
    202,
    'cancelled',
  ],
  [
    'payout test succeed',
    async () => {
      const id = (await createPayout(merchant)).id;
      await approvePayout(merchant, id);
      return { post: `/v1/test_helpers/payout_intents/${id}/succeed`, get: `/v1/payout_intents/${id}` };
    },
    200,
    'succeeded',
  ],
  [
    'payout test fail',
    async () => {
      const id = (await createPayout(merchant)).id;
      await approvePayout(merchant, id);
      return { post: `/v1/test_helpers/payout_intents/${id}/fail`, get: `/v1/payout_intents/${id}` };
    },
    200,
    'failed',
  ],
  [
    'payment cancel',
    async () => {
      const id = await newPayment();
      return { post: `/v1/payment_intents/${id}/cancel`, get: `/v1/payment_intents/${id}` };
    },
    200,
    'cancelled',
  ],
  [
    'payment test succeed',
    async () => {
      const id = await newPayment();
      return { post: `/v1/test_helpers/payment_intents/${id}/succeed`, get: `/v1/payment_intents/${id}` };
    },
    200,
    'succeeded',
  ],
  [
    'payment test fail',
    async () => {
      const id = await newPayment();
      return { post: `/v1/test_helpers/payment_intents/${id}/fail`, get: `/v1/payment_intents/${id}` };
    },
    200,
    'failed',
  ],
  [
    'payment test expire',
    async () => {
      const id = await newPayment();
      return { post: `/v1/test_helpers/payment_intents/${id}/expire`, get: `/v1/payment_intents/${id}` };
    },
    200,
    'expired',
  ],
  [
    'topup test succeed',
    async () => {
      const id = await newTopup();
      return { post: `/v1/test_helpers/topup_intents/${id}/succeed`, get: `/v1/topup_intents/${id}` };
    },
    200,
    'succeeded',
  ],
  [
    'topup test fail',
    async () => {
      const id = await newTopup();
      return { post: `/v1/test_helpers/topup_intents/${id}/fail`, get: `/v1/topup_intents/${id}` };
    },
    200,
    'failed',
  ],
  [
    'refund test succeed',
    async () => {
      const id = await newRefund();
      return { post: `/v1/test_helpers/refunds/${id}/succeed`, get: `/v1/refunds/${id}` };
    },
    200,
    'succeeded',
  ],
  [
    'refund test fail',
    async () => {
      const id = await newRefund();
      return { post: `/v1/test_helpers/refunds/${id}/fail`, get: `/v1/refunds/${id}` };
    },
    200,
    'failed',
  ],
];

describe('optional POST bodies', () => {
  test.each(OPTIONAL_BODY_ROUTES)('%s: no body and no Content-Type is accepted', async (_label, setup, status, after) => {
    const { post, get } = await setup();
    const res = await bare(merchant, post);
    expect({ status: res.status, record: res.body?.status }).toEqual({ status, record: after });
    expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
    expect((await merchant.get(get)).body.status).toBe(after);
  });

  test('raw HTTP: no Content-Length, no Transfer-Encoding and no Content-Type at all', async () => {
    const id = (await createPayout(merchant)).id;
    const res = await rawRequest(
      srv.url,
      `POST /v1/payout_intents/${id}/approve HTTP/1.1\r\nHost: gw\r\nAuthorization: ${merchant.authorization}\r\nConnection: close\r\n\r\n`,
    );
    expect({ status: res.status, record: res.body?.status }).toEqual({ status: 202, record: 'processing' });
    expect(res.headers['request-id']).toMatch(REQUEST_ID);
  });

  test('a cross-site browser request still needs Content-Type: application/json, body or not (CSRF with cached Basic credentials)', async () => {
    const id = (await createPayout(merchant)).id;
    const path = `/v1/payout_intents/${id}/approve`;
    expectError(await bare(merchant, path, { origin: 'https://attacker.example' }), 415, 'unsupported_media_type');
    expectError(await bare(merchant, path, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }), 415, 'unsupported_media_type');
    expect((await merchant.get(`/v1/payout_intents/${id}`)).body.status).toBe('requires_approval');
    const sameOrigin = await bare(merchant, path, { origin: srv.url, 'sec-fetch-site': 'same-origin' });
    expect({ status: sameOrigin.status, record: sameOrigin.body?.status }).toEqual({ status: 202, record: 'processing' });
  });

  const NOT_OBJECTS = ['null', '[]', '[{}]', '"x"', '42', 'true', 'false'];

  test.each(OPTIONAL_BODY_ROUTES)(
    '%s: a body that is present but not an object is 400 validation_error (param body) and changes nothing',
    async (_label, setup) => {
      const { post, get } = await setup();
      const before = (await merchant.get(get)).body.status;
      for (const raw of NOT_OBJECTS) {
        const res = await merchant.request('POST', post, { raw });
        expectError(res, 400, 'validation_error', 'body');
      }
      expect((await merchant.get(get)).body.status).toBe(before);
    },
  );

  test('an absent body, an empty body sent as JSON and {} are the same request for Idempotency-Key; null is not', async () => {
    const id = (await createPayout(merchant)).id;
    const key = randomUUID();
    const first = await bare(merchant, `/v1/payout_intents/${id}/approve`, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    for (const raw of ['{}', '', '  ']) {
      const again = await merchant.request('POST', `/v1/payout_intents/${id}/approve`, { raw, idempotencyKey: key });
      expect({ raw, status: again.status, replayed: again.headers.get('idempotent-replayed') }).toEqual({
        raw,
        status: 202,
        replayed: 'true',
      });
      expect(again.text).toBe(first.text);
    }
    expectError(await merchant.request('POST', `/v1/payout_intents/${id}/approve`, { raw: 'null', idempotencyKey: key }), 409, 'idempotency_conflict');
  });

  test('Content-Type is needed only when there is a body: a create without one is a validation_error; a body without JSON type, or a declared non-JSON type, is 415', async () => {
    expectError(await bare(merchant, '/v1/payout_intents'), 400, 'validation_error', 'amount');
    expectError(await bare(merchant, '/v1/topup_intents', { 'idempotency-key': randomUUID() }), 400, 'validation_error', 'amount');
    const id = (await createPayout(merchant)).id;
    const path = `/v1/payout_intents/${id}/cancel`;
    expectError(await merchant.request('POST', path, { raw: '{}', noContentType: true }), 415, 'unsupported_media_type');
    // A declared type other than JSON is refused even with no body: an HTML form always declares one.
    expectError(await merchant.request('POST', path, { raw: '', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    expectError(
      await merchant.request('POST', path, { raw: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expect((await merchant.get(`/v1/payout_intents/${id}`)).body.status).toBe('requires_approval');
  });
});

/** Routes as the live server has registered them (printRoutes), methods grouped by URL. */
function routesByUrl(server: FastifyInstance): Map<string, Set<string>> {
  const byUrl = new Map<string, Set<string>>();
  for (const { method, url } of registeredRoutes(server)) byUrl.set(url, (byUrl.get(url) ?? new Set()).add(method));
  return byUrl;
}

/** Whether a registered route pattern (`/v1/payout_intents/:id`) matches a concrete path. */
const matchesRoute = (pattern: string, path: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`).test(path);

const allowOf = (res: Res) =>
  (res.headers.get('allow') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();

describe('405 method_not_allowed', () => {
  test('every registered path answers a method it lacks with 405 and an Allow header listing exactly its methods', async () => {
    const byUrl = routesByUrl(srv.server);
    expect(byUrl.size).toBeGreaterThan(20);
    const checked: string[] = [];
    for (const url of byUrl.keys()) {
      if (url.includes('*')) continue;
      const path = url.replace(/:[A-Za-z0-9_]+/g, 'zz_1');
      // A path may also match a parametric route (POST /dashboard/sign-in and GET /dashboard/:file): Allow lists both.
      const allowed = new Set([...byUrl].filter(([other]) => !other.includes('*') && matchesRoute(other, path)).flatMap(([, m]) => [...m]));
      const method = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !allowed.has(m))!;
      const res = await merchant.request(method, path, method === 'GET' ? {} : { raw: '{}' });
      expect({ route: `${method} ${url}`, status: res.status, allow: allowOf(res) }).toEqual({
        route: `${method} ${url}`,
        status: 405,
        allow: [...allowed].sort(),
      });
      const code = path.startsWith('/graphql') ? res.body.errors[0].extensions.code : res.body.error.code;
      expect(code).toBe('method_not_allowed');
      expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
      checked.push(url);
    }
    for (const url of ['/v1/payout_intents', '/v1/payout_intents/:id', '/v1/payout_intents/:id/approve', '/graphql', '/healthz', '/checkout/:token']) {
      expect(checked).toContain(url);
    }
  });

  test('the Allow values of common routes; HEAD goes with GET; OPTIONS is an ordinary unsupported method', async () => {
    const list = await merchant.request('DELETE', '/v1/payout_intents');
    expectError(list, 405, 'method_not_allowed');
    expect(list.headers.get('allow')).toBe('GET, HEAD, POST');
    const item = await merchant.request('PATCH', '/v1/payout_intents/po_x', { body: {} });
    expectError(item, 405, 'method_not_allowed');
    expect(item.headers.get('allow')).toBe('GET, HEAD');
    const action = await merchant.get('/v1/payout_intents/po_x/approve');
    expectError(action, 405, 'method_not_allowed');
    expect(action.headers.get('allow')).toBe('POST');
    const head = await merchant.request('HEAD', '/v1/payout_intents/po_x/approve');
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expect(head.text).toBe('');
    const options = await merchant.request('OPTIONS', '/v1/payout_intents');
    expectError(options, 405, 'method_not_allowed');
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST');
    const health = await srv.client().request('POST', '/healthz', { body: {} });
    expectError(health, 405, 'method_not_allowed');
    expect(health.headers.get('allow')).toBe('GET, HEAD');
  });

  test('test helpers do not exist for live keys: 404 for any method, while a test key is told 405', async () => {
    const path = '/v1/test_helpers/payout_intents/po_x/succeed';
    expectError(await live.get(path), 404, 'not_found');
    expectError(await live.request('POST', path, { body: {} }), 404, 'not_found');
    const test = await merchant.get(path);
    expectError(test, 405, 'method_not_allowed');
    expect(test.headers.get('allow')).toBe('POST');
  });

  test('unknown paths stay 404 not_found; authentication still comes first on /v1 (401, not 405)', async () => {
    for (const [method, path] of [
      ['GET', '/v1/no_such_thing'],
      ['DELETE', '/v1/payout_intents/po_x/nope'],
      ['GET', '/v1/payout_intents/'],
      ['PUT', '/nope'],
    ]) {
      const res = await merchant.request(method, path);
      expectError(res, 404, 'not_found');
      expect(res.headers.get('allow')).toBeNull();
    }
    const anonymous = await srv.client().request('DELETE', '/v1/payout_intents');
    expectError(anonymous, 401, 'unauthorized');
    expect(anonymous.headers.get('allow')).toBeNull();
    // An unknown path is a 404 whatever the body: not a 415 for its content type.
    expectError(await merchant.request('POST', '/v1/no_such_thing', { raw: 'hello', headers: { 'content-type': 'text/plain' } }), 404, 'not_found');
  });

  test('a 405 is answered before the body is looked at (not 415 or 413)', async () => {
    expectError(await merchant.request('PUT', '/v1/payout_intents', { raw: 'hello', headers: { 'content-type': 'text/plain' } }), 405, 'method_not_allowed');
    expectError(await merchant.request('PUT', '/v1/payout_intents', { raw: JSON.stringify({ pad: 'x'.repeat(70_000) }) }), 405, 'method_not_allowed');
  });

  test('/graphql: other methods are 405 in the GraphQL error shape with Allow: GET, POST; a mutation over GET is 405 Allow: POST', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await merchant.request(method, '/graphql', { body: { query: '{ viewer { environment } }' } });
      expectGqlError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, POST');
    }
    const head = await merchant.request('HEAD', '/graphql');
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, POST');
    const mutation = await merchant.get(`/graphql?query=${encodeURIComponent('mutation { approvePayoutIntent(id: "po_x") { id } }')}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expectGqlError(mutation, 405, 'method_not_allowed');
    expect(mutation.headers.get('allow')).toBe('POST');
  });
});

describe('answers produced before routing', () => {
  const auth = () => merchant.authorization!;

  test('headers over the size limit: 431 request_header_fields_too_large with a Request-Id', async () => {
    const res = await rawRequest(srv.url, `GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization: ${auth()}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectRawError(res, 431, 'request_header_fields_too_large');
    expect(res.headers.connection).toBe('close');
  });

  test.each([
    ['a header name with a space', 'GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nBad Header: x\r\n\r\n'],
    ['a control character in a header value', 'GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nX-A: a\x01b\r\n\r\n'],
    ['a header line without a colon', 'GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization\r\n\r\n'],
    [
      'two Content-Length headers',
      'POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    ],
    [
      'Content-Length together with Transfer-Encoding',
      'POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
    ],
    ['a Content-Length that is not a number', 'POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nContent-Length: abc\r\n\r\n'],
    ['an unsupported Transfer-Encoding', 'POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: gzip\r\n\r\n'],
    ['not an HTTP request line', 'NOT A REQUEST\r\n\r\n'],
    ['an unknown HTTP version', 'GET /v1/payout_intents HTTP/9.9\r\nHost: gw\r\n\r\n'],
    ['bare LF line endings', 'GET /v1/payout_intents HTTP/1.1\nHost: gw\n\n'],
  ])('malformed: %s is 400 bad_request with a Request-Id', async (_label, bytes) => {
    expectRawError(await rawRequest(srv.url, bytes), 400, 'bad_request');
  });

  test('HTTP/1.1 without Host is 400 bad_request with a Request-Id (HTTP/1.0 needs none)', async () => {
    expectRawError(await rawRequest(srv.url, `GET /v1/payout_intents HTTP/1.1\r\nAuthorization: ${auth()}\r\nConnection: close\r\n\r\n`), 400, 'bad_request');
    const old = await rawRequest(srv.url, `GET /v1/payout_intents HTTP/1.0\r\nAuthorization: ${auth()}\r\n\r\n`);
    expect(old.status).toBe(200);
  });

  test('an Expect other than 100-continue is 417 expectation_failed with a Request-Id', async () => {
    expectRawError(
      await rawRequest(srv.url, `GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization: ${auth()}\r\nExpect: teapot\r\nConnection: close\r\n\r\n`),
      417,
      'expectation_failed',
    );
  });

  test.each([
    ['Authorization', (a: string) => `Authorization: ${a}\r\nAuthorization: Basic eDp5\r\n`],
    ['Authorization', (a: string) => `Authorization: Basic eDp5\r\nAuthorization: ${a}\r\n`],
    ['Host', (a: string) => `Host: other\r\nAuthorization: ${a}\r\n`],
    ['Content-Type', (a: string) => `Authorization: ${a}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n`],
    ['Idempotency-Key', (a: string) => `Authorization: ${a}\r\nIdempotency-Key: k-${randomUUID()}\r\nIdempotency-Key: k-${randomUUID()}\r\n`],
  ])('a repeated %s header is 400 validation_error naming it, and nothing is created', async (name, headers) => {
    const before = (await merchant.get('/v1/payout_intents?limit=100')).body.data.length;
    const body = JSON.stringify(payoutBody());
    const res = await rawRequest(
      srv.url,
      `POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\n${headers(auth())}${name === 'Content-Type' ? '' : 'Content-Type: application/json\r\n'}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expectRawError(res, 400, 'validation_error', name);
    expect((await merchant.get('/v1/payout_intents?limit=100')).body.data.length).toBe(before);
  });

  test.each([
    ['malformed JSON', 'application/json', '{"amount": ', 400, 'invalid_json'],
    ['a body without a JSON type', 'text/plain', '{}', 415, 'unsupported_media_type'],
    ['a body over 64 KiB', 'application/json', JSON.stringify({ pad: 'x'.repeat(70_000) }), 413, 'payload_too_large'],
  ])('raw HTTP: %s keeps the contract body and a Request-Id', async (_label, type, body, status, code) => {
    const res = await rawRequest(
      srv.url,
      `POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization: ${auth()}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expectRawError(res, status, code);
  });

  test('while the server closes, a request on an open connection is 503 service_unavailable with Retry-After and a Request-Id', async () => {
    const other = await startServer({ scheduler: false });
    try {
      const c = await other.merchant(undefined, 'test', { fund: false });
      const body = JSON.stringify({ reason: 'x' });
      const { hostname, port } = new URL(other.url);
      const socket = net.connect(Number(port), hostname);
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      // The first request is in flight (its body not complete) when close() starts; the second follows on the same connection.
      socket.write(
        `POST /v1/payout_intents/po_x/cancel HTTP/1.1\r\nHost: gw\r\nAuthorization: ${c.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`,
      );
      await new Promise((r) => setTimeout(r, 200));
      const closing = other.server.close();
      await new Promise((r) => setTimeout(r, 100));
      socket.write(`${body.slice(3)}GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization: ${c.authorization}\r\n\r\n`);
      await closed;
      await closing;
      const [first, second] = splitResponses(received);
      expect(first.status).toBe(404);
      expectRawError(second, 503, 'service_unavailable');
      expect(second.headers['retry-after']).toMatch(/^\d+$/);
      expect(second.headers.connection).toBe('close');
    } finally {
      await other.app.scheduler.stop();
      await other.app.close();
      await other.database.drop();
    }
  });

  test('every raw answer above carried a distinct Request-Id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await rawRequest(srv.url, 'GET /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nBad Header: x\r\n\r\n');
      ids.add(res.headers['request-id']);
    }
    expect(ids.size).toBe(5);
    // The connection was answered and closed: nothing else was written after the error.
    const all = await rawExchange(srv.url, 'GET / HTTP/1.1\r\nHost: gw\r\nBad Header: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n');
    expect(splitResponses(all).map((r) => r.status)).toEqual([400]);
  });
});

describe('list date filters name real calendar instants', () => {
  const NOT_REAL = [
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+05:60',
  ];
  const REAL = ['2024-02-29T00:00:00Z', '2000-02-29T23:59:59.999+07:00', '2026-04-30T00:00:00-12:00', '2026-12-31T23:59:59Z'];

  /** Every REST list that documents created_gte (from the OpenAPI document, so new lists are covered). */
  let lists: string[] = [];
  beforeAll(() => {
    lists = Object.entries((srv.server.swagger() as any).paths as Record<string, any>)
      .filter(([, item]) => (item.get?.parameters ?? []).some((p: any) => p.name === 'created_gte'))
      .map(([p]) => `/v1${p}`);
  });

  test('the lists with date filters are found; path parameters name records that exist', async () => {
    expect(lists).toEqual(expect.arrayContaining(['/v1/payout_intents', '/v1/payment_intents', '/v1/topup_intents', '/v1/events']));
    const endpoint = await merchant.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks' });
    expect(endpoint.status).toBe(201);
    const batch = await merchant.post('/v1/payout_batches', { items: [payoutBody({ amount: '100' })] });
    expect(batch.status).toBe(201);
    for (let i = 0; i < lists.length; i++) {
      if (lists[i].startsWith('/v1/webhook_endpoints/{id}/')) lists[i] = lists[i].replace('{id}', endpoint.body.id);
      if (lists[i].startsWith('/v1/payout_batches/{id}/')) lists[i] = lists[i].replace('{id}', batch.body.id);
    }
    expect(lists.filter((l) => l.includes('{'))).toEqual([]);
  });

  test('REST: a date that does not exist is 400 validation_error naming the parameter, on every list', async () => {
    const wrong: string[] = [];
    for (const list of lists) {
      for (const param of ['created_gte', 'created_lt']) {
        for (const value of NOT_REAL) {
          const res = await merchant.get(`${list}?${param}=${encodeURIComponent(value)}`);
          if (res.status !== 400 || res.body?.error?.code !== 'validation_error' || res.body?.error?.param !== param)
            wrong.push(`${list} ${param}=${value}: ${res.status} ${res.text}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test('REST: real instants (leap days, offsets, the last millisecond of a day) are accepted', async () => {
    for (const list of lists) {
      for (const value of REAL) {
        const res = await merchant.get(`${list}?created_gte=${encodeURIComponent(value)}&created_lt=${encodeURIComponent(value)}`);
        expect({ list, value, status: res.status }).toEqual({ list, value, status: 200 });
      }
    }
  });

  const GQL_LISTS = ['payoutIntents', 'paymentIntents', 'topupIntents', 'events', 'auditLog'];
  const FILTER_TYPES: Record<string, string> = {
    payoutIntents: 'PayoutIntentFilter',
    paymentIntents: 'PaymentIntentFilter',
    topupIntents: 'TopupIntentFilter',
    events: 'EventFilter',
    auditLog: 'AuditLogFilter',
  };

  test('GraphQL: the same dates in a filter are refused exactly as a malformed date is (validation_error, param filter.*)', async () => {
    for (const field of GQL_LISTS) {
      for (const [arg, param] of [
        ['createdGte', 'filter.createdGte'],
        ['createdLt', 'filter.createdLt'],
      ]) {
        const query = `query Q($f: ${FILTER_TYPES[field]}) { ${field}(filter: $f) { nodes { __typename } } }`;
        const malformed = await merchant.gql(query, { f: { [arg]: 'yesterday' } });
        expect(malformed.body.errors?.[0]?.extensions).toEqual({ code: 'validation_error', param });
        for (const value of ['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z']) {
          const viaVariable = await merchant.gql(query, { f: { [arg]: value } });
          expect({
            field,
            arg,
            value,
            status: viaVariable.status,
            extensions: viaVariable.body.errors?.[0]?.extensions,
            data: viaVariable.body.data,
          }).toEqual({
            field,
            arg,
            value,
            status: malformed.status,
            extensions: { code: 'validation_error', param },
            data: malformed.body.data,
          });
          const literal = await merchant.gql(`{ ${field}(filter: { ${arg}: "${value}" }) { nodes { __typename } } }`);
          expect({ field, arg, value, extensions: literal.body.errors?.[0]?.extensions }).toEqual({
            field,
            arg,
            value,
            extensions: { code: 'validation_error', param },
          });
        }
        const ok = await merchant.gql(query, { f: { [arg]: '2024-02-29T00:00:00Z' } });
        expect({ field, errors: ok.body.errors }).toEqual({ field, errors: undefined });
      }
    }
  });
});

describe('GraphQL documents that do not parse or validate are HTTP 400 validation_error', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) => merchant.request('POST', '/graphql', { raw: JSON.stringify(body), headers });
  const get = (params: Record<string, string>) =>
    merchant.get(`/graphql?${new URLSearchParams(params).toString()}`, { headers: { 'apollo-require-preflight': 'true' } });
  /** `{ payoutIntents(filter: { status: [CANCELLED x n] }) { nodes { id } } }`: 20 tokens plus n. */
  const tokens = (n: number) => `{ payoutIntents(filter: { status: [${Array(n).fill('CANCELLED').join(' ')}] }) { nodes { id } } }`;

  test.each([
    ['an unterminated document', () => post({ query: '{ viewer {' })],
    ['a document that is not GraphQL', () => post({ query: '}}} nope' })],
    ['an empty document', () => post({ query: '' })],
    ['a document over the token limit', () => post({ query: tokens(2100) })],
    ['an unknown field', () => post({ query: '{ noSuchField }' })],
    ['an argument of the wrong type', () => post({ query: '{ payoutIntents(first: "ten") { nodes { id } } }' })],
    [
      'a too-deep query (graphql-armor)',
      () => post({ query: `{ __type(name: "PayoutIntent") { fields { type { ${'ofType { '.repeat(14)}name${' }'.repeat(14)} } } } }` }),
    ],
    ['a subscription over POST', () => post({ query: 'subscription { events { id } }' })],
    ['a subscription over GET', () => get({ query: 'subscription { events { id } }' })],
    ['an unparsable document over GET', () => get({ query: '{ viewer {' })],
    ['two operations and no operationName', () => post({ query: 'query A { viewer { environment } } query B { viewer { environment } }' })],
    ['an unknown operationName', () => post({ query: 'query A { viewer { environment } }', operationName: 'Z' })],
    ['variables that do not coerce', () => post({ query: 'query A($id: ID!) { payoutIntent(id: $id) { id } }', variables: { id: { a: 1 } } })],
    ['a missing required variable', () => post({ query: 'query A($id: ID!) { payoutIntent(id: $id) { id } }' })],
    ['a query that is not a string', () => post({ query: 5 })],
    ['an object without a query', () => post({})],
    ['a batch (array)', () => post([{ query: '{ viewer { environment } }' }])],
    ['no body at all', () => merchant.request('POST', '/graphql', { noContentType: true })],
    ['a GET without a query', () => merchant.get('/graphql', { headers: { 'apollo-require-preflight': 'true' } })],
    ['a parse error asked for as application/graphql-response+json', () => post({ query: '{ viewer {' }, { accept: 'application/graphql-response+json' })],
  ])('%s', async (_label, send) => {
    const res = await send();
    expectGqlError(res, 400, 'validation_error');
    expect(res.body.data ?? null).toBeNull();
  });

  test('just under the token limit the document parses and runs', async () => {
    const res = await post({ query: tokens(1970) });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  test('a document error is never 5xx and never a 200 with internal_error', async () => {
    for (const query of ['{ viewer {', tokens(5000), 'subscription { events { id } }', '{', '{ viewer { environment } } }']) {
      const res = await post({ query });
      expect({ query: query.slice(0, 40), status: res.status }).toEqual({ query: query.slice(0, 40), status: 400 });
      expect(res.text).not.toMatch(/internal_error/);
    }
  });
});
