/**
 * REST plumbing (docs/contract.md "Errors"): body and content-type rules, unknown routes,
 * Request-Id on every response, health probes, and the OpenAPI document checked against
 * the routes the live server has registered (both directions).
 */
import { registeredRoutes } from '../helpers/routes';
import { startServer, TestServer, FUNDING } from '../helpers/server';
import { Client, payoutBody, Res } from '../helpers/client';
import { expectError, REQUEST_ID } from '../helpers/errors';

let srv: TestServer;
let merchant: Client;
/** Every response of this file, so Request-Id can be checked across all of them. */
const seen: { label: string; res: Res }[] = [];

function track(label: string, res: Res): Res {
  seen.push({ label, res });
  return res;
}

async function call(label: string, method: string, p: string, options: Parameters<Client['request']>[2] = {}, client: Client = merchant): Promise<Res> {
  return track(label, await client.request(method, p, options));
}

beforeAll(async () => {
  srv = await startServer();
  merchant = await srv.merchant();
});

afterAll(async () => {
  await srv?.close();
});

describe('request bodies', () => {
  test.each([
    ['truncated JSON', '{"amount": "100", '],
    ['not JSON at all', 'amount=100&currency=THB'],
    ['single quotes', "{'amount': '100'}"],
    ['trailing comma', '{"amount": "100",}'],
  ])('%s is 400 invalid_json', async (label, raw) => {
    expectError(await call(`invalid json: ${label}`, 'POST', '/v1/payout_intents', { raw }), 400, 'invalid_json');
  });

  test.each([
    ['no Content-Type', {}],
    ['text/plain', { 'content-type': 'text/plain' }],
    ['form encoding', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['a JSON-like type', { 'content-type': 'application/json-patch+json' }],
  ])('POST with %s is 415 unsupported_media_type', async (label, headers) => {
    const res = await call(`415: ${label}`, 'POST', '/v1/payout_intents', {
      raw: JSON.stringify(payoutBody()),
      headers,
      noContentType: true,
    });
    expectError(res, 415, 'unsupported_media_type');
  });

  test('application/json with a charset parameter is accepted', async () => {
    const res = await call('charset', 'POST', '/v1/payout_intents', {
      raw: JSON.stringify(payoutBody()),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status).toBe(201);
    // Clean up so "nothing was created" below only has to account for this one.
    expect((await call('cleanup cancel', 'POST', `/v1/payout_intents/${res.body.id}/cancel`, { body: {} })).status).toBe(202);
  });

  test('a body over 64 KiB is 413 payload_too_large; just under the limit is parsed', async () => {
    const big = JSON.stringify({ ...payoutBody(), pad: 'x'.repeat(64 * 1024) });
    expect(Buffer.byteLength(big)).toBeGreaterThan(64 * 1024);
    expectError(await call('413', 'POST', '/v1/payout_intents', { raw: big }), 413, 'payload_too_large');
    // Just under the limit the body is read: the unknown field is a validation error, not 413.
    const base = JSON.stringify({ ...payoutBody(), pad: '' });
    const under = JSON.stringify({ ...payoutBody(), pad: 'x'.repeat(64 * 1024 - Buffer.byteLength(base) - 16) });
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(64 * 1024);
    const res = await call('under limit', 'POST', '/v1/payout_intents', { raw: under });
    expectError(res, 400, 'validation_error', 'pad');
  });

  test.each([
    ['an array', '[]'],
    ['an array of a valid body', JSON.stringify([payoutBody()])],
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('a JSON body that is %s is 400 validation_error', async (label, raw) => {
    const res = await call(`non-object: ${label}`, 'POST', '/v1/payout_intents', { raw });
    expectError(res, 400, 'validation_error', 'body');
    expect(res.body.error.param).toBe('body');
  });

  test('the same rules apply to the cancel route', async () => {
    const created = await call('cancel target', 'POST', '/v1/payout_intents', { body: payoutBody() });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expectError(await call('cancel invalid json', 'POST', `/v1/payout_intents/${id}/cancel`, { raw: '{"reason":' }), 400, 'invalid_json');
    expectError(
      await call('cancel 415', 'POST', `/v1/payout_intents/${id}/cancel`, {
        raw: '{}',
        noContentType: true,
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
    expectError(await call('cancel array', 'POST', `/v1/payout_intents/${id}/cancel`, { raw: '[]' }), 400, 'validation_error', 'body');
    expectError(
      await call('cancel 413', 'POST', `/v1/payout_intents/${id}/cancel`, { raw: JSON.stringify({ reason: 'r'.repeat(70000) }) }),
      413,
      'payload_too_large',
    );
    const still = await call('cancel target after', 'GET', `/v1/payout_intents/${id}`);
    expect(still.body.status).toBe('requires_approval');
    expect((await call('cleanup cancel 2', 'POST', `/v1/payout_intents/${id}/cancel`, { body: {} })).status).toBe(202);
  });

  test('none of the failing requests created or reserved anything', async () => {
    const list = await call('list after failures', 'GET', '/v1/payout_intents?limit=100');
    expect(list.status).toBe(200);
    // Only the two payouts created on purpose above, both cancelled.
    expect(list.body.data.map((r: any) => r.status)).toEqual(['cancelled', 'cancelled']);
    const balances = await call('balances', 'GET', '/v1/balances');
    expect(balances.status).toBe(200);
    const thb = balances.body.data.find((b: any) => b.currency === 'THB');
    expect(thb.available).toBe(FUNDING);
    expect(thb.reserved).toBe('0');
  });
});

describe('GraphQL over the same plumbing', () => {
  test('invalid JSON, wrong content type and oversize bodies keep the GraphQL error shape', async () => {
    const bad = await call('gql invalid json', 'POST', '/graphql', { raw: '{"query": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('invalid_json');
    const big = await call('gql 413', 'POST', '/graphql', {
      raw: JSON.stringify({ query: `{ viewer { environment } } #${'x'.repeat(70000)}` }),
    });
    expect(big.status).toBe(413);
    expect(big.body.errors[0].extensions.code).toBe('payload_too_large');
    const text = await call('gql 415', 'POST', '/graphql', {
      raw: '{ viewer { environment } }',
      noContentType: true,
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.body.errors[0].extensions.code).toBe('unsupported_media_type');
  });
});

describe('routes', () => {
  test('an unknown route is 404 not_found, with and without credentials', async () => {
    expectError(await call('unknown /v1 route', 'GET', '/v1/no_such_thing'), 404, 'not_found');
    expectError(await call('unknown root route', 'GET', '/no_such_thing', {}, srv.client()), 404, 'not_found');
    // A known path with another method is 405 since the second round of the contract (was 404); see test/http/http-details.suite.ts.
    const method = await call('unknown method', 'DELETE', '/v1/payout_intents');
    expectError(method, 405, 'method_not_allowed');
    expect(method.headers.get('allow')).toBe('GET, HEAD, POST');
    expectError(await call('unknown nested', 'POST', '/v1/payout_intents/po_x/refund', { body: {} }), 404, 'not_found');
    expectError(await call('no api version', 'GET', '/payout_intents'), 404, 'not_found');
  });

  test('a URL that cannot be decoded, or an over-long id, is an ordinary 404 with a Request-Id (after authentication)', async () => {
    for (const [label, p] of [
      ['bad url', '/v1/payout_intents/%E0%A4%A'],
      ['long id', `/v1/payout_intents/po_${'x'.repeat(300)}`],
    ]) {
      const res = await call(label, 'GET', p);
      expectError(res, 404, 'not_found');
      expect(res.headers.get('request-id')).toMatch(/^req_/);
      const anonymous = await call(`${label} without credentials`, 'GET', p, {}, srv.client());
      expectError(anonymous, 401, 'unauthorized');
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="payments"');
    }
    const outside = await call('bad url outside /v1', 'GET', '/checkout/%E0%A4%A', {}, srv.client());
    expectError(outside, 404, 'not_found');
  });

  test('/healthz and /readyz answer 200 without credentials', async () => {
    const health = await call('healthz', 'GET', '/healthz', {}, srv.client());
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    const ready = await call('readyz', 'GET', '/readyz', {}, srv.client());
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
  });
});

describe('Request-Id', () => {
  test('successes carry one too', async () => {
    const answers = [
      await call('list', 'GET', '/v1/payout_intents'),
      await call('gql', 'POST', '/graphql', { body: { query: '{ viewer { environment } }' } }),
      await call('gql get', 'GET', `/graphql?query=${encodeURIComponent('{ viewer { environment } }')}`, {
        headers: { 'apollo-require-preflight': 'true' },
      }),
      await call('openapi', 'GET', '/v1/openapi.json', {}, srv.client()),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    for (const r of answers) expect(r.headers.get('request-id')).toMatch(REQUEST_ID);
    const unauthorized = await call('401', 'GET', '/v1/payout_intents', {}, srv.client());
    expectError(unauthorized, 401, 'unauthorized');
    const missing = await call('404 item', 'GET', '/v1/payout_intents/po_nope');
    expectError(missing, 404, 'not_found');
  });

  test('a client-sent Request-Id is not echoed: the server assigns its own', async () => {
    const res = await call('spoofed', 'GET', '/v1/payout_intents', { headers: { 'request-id': 'req_spoofed' } });
    expect(res.headers.get('request-id')).not.toBe('req_spoofed');
  });

  test('every response of this file carried a Request-Id, all different', () => {
    expect(seen.length).toBeGreaterThan(30);
    const statuses = new Set(seen.map((s) => s.res.status));
    for (const status of [200, 201, 202, 400, 401, 404, 413, 415]) expect(statuses).toContain(status);
    const missing = seen.filter((s) => !s.res.headers.get('request-id')).map((s) => `${s.label} (${s.res.status})`);
    expect(missing).toEqual([]);
    const ids = seen.map((s) => s.res.headers.get('request-id'));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

/** Routes as the live server has registered them, parsed from printRoutes() and confirmed with hasRoute(). */

const toOpenApi = (url: string) => url.replace(/^\/v1/, '').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const toFastify = (p: string) => `/v1${p.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1')}`;
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('OpenAPI document', () => {
  let OPENAPI_DOCUMENT: any;
  beforeAll(async () => {
    OPENAPI_DOCUMENT = srv.server.swagger();
  });

  test('GET /v1/openapi.json serves the document built from the routes, without credentials', async () => {
    const res = await call('openapi doc', 'GET', '/v1/openapi.json', {}, srv.client());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
    expect(res.body.openapi).toBe('3.1.0');
  });

  test('the route list is read correctly from the live server', () => {
    const routes = registeredRoutes(srv.server);
    for (const r of routes) expect(srv.server.hasRoute({ method: r.method as any, url: r.url })).toBe(true);
    const keys = routes.map((r) => `${r.method} ${r.url}`);
    for (const expected of [
      'GET /healthz',
      'POST /v1/payout_intents',
      'GET /v1/payout_intents/:id',
      'POST /v1/payout_intents/:id/cancel',
      'POST /v1/test_helpers/payout_intents/:id/succeed',
    ]) {
      expect(keys).toContain(expected);
    }
  });

  test('every route registered under /v1 is documented', () => {
    const routes = registeredRoutes(srv.server).filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD' && r.method !== 'OPTIONS');
    const paths = OPENAPI_DOCUMENT.paths as Record<string, Record<string, any>>;
    const undocumented = routes.filter((r) => !paths[toOpenApi(r.url)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.url}`);
    expect(undocumented).toEqual([]);
  });

  test('every documented path and method exists on the server, with its path parameters declared', () => {
    const paths = OPENAPI_DOCUMENT.paths as Record<string, Record<string, any>>;
    const missing: string[] = [];
    const undeclared: string[] = [];
    let operations = 0;
    for (const [p, item] of Object.entries(paths)) {
      for (const method of Object.keys(item).filter((k) => HTTP_METHODS.includes(k))) {
        operations++;
        if (!srv.server.hasRoute({ method: method.toUpperCase() as any, url: toFastify(p) })) missing.push(`${method.toUpperCase()} ${p}`);
        const names = [...p.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
        const params = [...(item.parameters ?? []), ...(item[method].parameters ?? [])];
        for (const name of names) {
          if (!params.some((x: any) => x.in === 'path' && x.name === name && x.required === true)) undeclared.push(`${method.toUpperCase()} ${p} {${name}}`);
        }
        expect(Object.keys(item[method].responses ?? {}).length).toBeGreaterThan(0);
      }
    }
    expect(operations).toBeGreaterThan(5);
    expect(missing).toEqual([]);
    expect(undeclared).toEqual([]);
  });

  test('every $ref in the document resolves', () => {
    const text = JSON.stringify(OPENAPI_DOCUMENT);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    const schemas = OPENAPI_DOCUMENT.components.schemas as Record<string, unknown>;
    expect(refs.filter((r) => !(r in schemas))).toEqual([]);
  });
});
