/**
 * The OpenAPI document's payment-intent part matches what the routes do: every route the
 * document lists answers with the documented success status, and real records (each
 * next_action type, each state with receipt / processing_reason) validate against the
 * documented schemas, with no undocumented or missing fields.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { directDebit, paymentBody } from '../helpers/fixtures';

let srv: TestServer;
let c: Client;
let doc: any;
beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant(undefined, 'test', { fund: false });
  const res = await srv.client().get('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await srv.close();
});

/** A small JSON Schema checker for the keywords the document uses; returns the problems found. */
function check(schema: any, value: any, path = '$'): string[] {
  if (schema.$ref) return check(doc.components.schemas[schema.$ref.split('/').pop()], value, path);
  if (schema.oneOf) {
    const matches = schema.oneOf.filter((s: any) => check(s, value, path).length === 0).length;
    return matches === 1 ? [] : [`${path}: matches ${matches} of oneOf`];
  }
  const errors: string[] = [];
  if ('const' in schema && value !== schema.const) errors.push(`${path}: ${JSON.stringify(value)} is not ${schema.const}`);
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (schema.type) {
    const types = [].concat(schema.type);
    const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
    if (!types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) return [`${path}: ${actual} is not ${types.join('|')}`];
  }
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push(`${path}: does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) errors.push(`${path}: not a timestamp`);
    if (schema.format === 'uri' && !/^https?:\/\//.test(value)) errors.push(`${path}: not a URI`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of schema.required ?? []) if (!(key in value)) errors.push(`${path}.${key}: missing`);
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties?.[key];
      if (sub) errors.push(...check(sub, v, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}.${key}: not documented`);
      else if (typeof schema.additionalProperties === 'object') errors.push(...check(schema.additionalProperties, v, `${path}.${key}`));
    }
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => errors.push(...check(schema.items, v, `${path}[${i}]`)));
  return errors;
}

const body = (overrides: Record<string, unknown> = {}) => paymentBody(overrides, 'oa');
const DEBIT = directDebit;

test('every payment-intent route in the document exists with its documented success status', async () => {
  const p = (await c.post('/v1/payment_intents', body({ payment_method: 'promptpay' }))).body;
  const q = (await c.post('/v1/payment_intents', body({ payment_method: 'promptpay' }))).body;
  const r = (await c.post('/v1/payment_intents', body({ payment_method: 'promptpay' }))).body;
  const calls: [string, string, string, unknown?][] = [
    ['post', '/payment_intents', '/v1/payment_intents', body({ payment_method: 'promptpay' })],
    ['get', '/payment_intents', '/v1/payment_intents'],
    ['get', '/payment_intents/{id}', `/v1/payment_intents/${p.id}`],
    ['post', '/payment_intents/{id}/cancel', `/v1/payment_intents/${p.id}/cancel`, {}],
    ['post', '/test_helpers/payment_intents/{id}/succeed', `/v1/test_helpers/payment_intents/${q.id}/succeed`, {}],
    ['post', '/test_helpers/payment_intents/{id}/fail', `/v1/test_helpers/payment_intents/${r.id}/fail`, {}],
  ];
  const e = (await c.post('/v1/payment_intents', body({ payment_method: 'promptpay' }))).body;
  calls.push(['post', '/test_helpers/payment_intents/{id}/expire', `/v1/test_helpers/payment_intents/${e.id}/expire`, {}]);
  for (const [method, docPath, url, payload] of calls) {
    const op = doc.paths[docPath]?.[method];
    expect(op).toBeDefined();
    const res = method === 'get' ? await c.get(url) : await c.post(url, payload);
    expect(Object.keys(op.responses)).toContain(String(res.status));
    const schema = op.responses[res.status].content['application/json'].schema;
    expect(check(schema, res.body)).toEqual([]);
  }
  // The documented error statuses happen too.
  const bad = await c.post('/v1/payment_intents', body({ customer: undefined }));
  expect(Object.keys(doc.paths['/payment_intents'].post.responses)).toContain(String(bad.status));
  const unavailable = await c.post('/v1/payment_intents', body({ payment_method: 'cash' }));
  expect(Object.keys(doc.paths['/payment_intents'].post.responses)).toContain(String(unavailable.status));
  const invalid = await c.post(`/v1/payment_intents/${p.id}/cancel`, {});
  expect(Object.keys(doc.paths['/payment_intents/{id}/cancel'].post.responses)).toContain(String(invalid.status));
});

test('records in every shape validate against PaymentIntent (no undocumented or missing fields)', async () => {
  const records = [
    (await c.post('/v1/payment_intents', body({ payment_method: 'promptpay' }))).body,
    (
      await c.post(
        '/v1/payment_intents',
        body({
          payment_method: 'bank_transfer',
          payment_method_options: { account_name: 'A', account_number: '1234567890', bank: 'KBANK' },
        }),
      )
    ).body,
    (await c.post('/v1/payment_intents', body({ payment_method: 'online_banking', payment_method_options: { bank: 'SCB' } }))).body,
    (await c.post('/v1/payment_intents', body({ checkout_mode: 'hosted' }))).body,
    (await c.post('/v1/payment_intents', body(DEBIT('1234567890')))).body,
    (await c.post('/v1/payment_intents', body(DEBIT('0000000010')))).body,
  ];
  expect(records.map((r) => r.next_action?.type ?? r.status)).toEqual([
    'display_qr_code',
    'display_bank_transfer_instructions',
    'redirect_to_url',
    'redirect_to_url',
    'succeeded',
    'processing',
  ]);
  for (const r of records) expect(check({ $ref: '#/components/schemas/PaymentIntent' }, r)).toEqual([]);
  const list = await c.get('/v1/payment_intents?limit=100');
  expect(check(doc.paths['/payment_intents'].get.responses['200'].content['application/json'].schema, list.body)).toEqual([]);
  // The documented list parameters are exactly the ones the route accepts (environment: accepted and ignored).
  const names = doc.paths['/payment_intents'].get.parameters.map((p: any) => p.name).sort();
  expect(names).toEqual(['country', 'created_gte', 'created_lt', 'currency', 'cursor', 'environment', 'limit', 'merchant_reference', 'status']);
});

test('the documented create fields are exactly the accepted ones, and the examples the doc gives are accepted', async () => {
  // The body schema is the route's own (the one that validates it), titled CreatePaymentIntent.
  const schema = doc.paths['/payment_intents'].post.requestBody.content['application/json'].schema;
  expect(schema.title).toBe('CreatePaymentIntent');
  expect(Object.keys(schema.properties).sort()).toEqual([
    'amount',
    'checkout_mode',
    'country',
    'currency',
    'customer',
    'device_fingerprint',
    'environment',
    'external_reference',
    'merchant_reference',
    'metadata',
    'payment_method',
    'payment_method_options',
    'return_url',
  ]);
  expect(schema.required.sort()).toEqual(['amount', 'country', 'currency', 'customer', 'merchant_reference']);
  // Inputs the service accepts (normalised) must satisfy the documented schema too.
  const accepted = body({
    amount: '00050000',
    currency: 'thb',
    country: 'th',
    customer: { name: 'A', phone: '+66 81-234-5678', email: 'a@example.com' },
    payment_method: 'bank_transfer',
    payment_method_options: { account_name: 'A', account_number: '123-456-7890', bank: 'kbank' },
    return_url: 'https://shop.example/r',
    metadata: { k: 'v' },
    device_fingerprint: 'd',
    external_reference: 'e',
  });
  expect((await c.post('/v1/payment_intents', accepted)).status).toBe(201);
  expect(check(schema, accepted)).toEqual([]);
  for (const amount of ['0', '1.5', '-1', '1'.repeat(31)]) {
    expect((await c.post('/v1/payment_intents', body({ amount }))).status).toBe(400);
    expect(check(schema.properties.amount, amount)).not.toEqual([]);
  }
});
