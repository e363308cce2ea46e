/**
 * The served OpenAPI document's topup, balance and payment-method parts match what the
 * routes answer: each documented route answers with a documented status, and every answer
 * validates (Ajv) against the schema the document gives for that status, components
 * (TopupIntent, NextAction, Balance, PaymentMethodOption, PaymentMethodSetting) included.
 */
import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { startServer, TestServer } from '../helpers/server';
import { Client } from '../helpers/client';
import { topupBody } from '../helpers/fixtures';

let srv: TestServer;
let c: Client;
let doc: any;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }), ['date-time', 'uri']);

beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant(undefined, 'test', { fund: true });
  doc = (await srv.client().get('/v1/openapi.json')).body;
  ajv.addSchema(doc, 'doc');
});
afterAll(async () => {
  await srv.close();
});

/** Checks an answer against the document's schema for (method, path, status); returns Ajv's errors. */
function problems(method: string, path: string, res: { status: number; body: unknown }): unknown[] {
  const op = doc.paths[path]?.[method];
  expect(op).toBeDefined();
  expect(Object.keys(op.responses)).toContain(String(res.status));
  const pointer = ['paths', path, method, 'responses', String(res.status), 'content', 'application/json', 'schema']
    .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');
  const validate = ajv.getSchema(`doc#/${pointer}`)!;
  return validate(res.body) ? [] : (validate.errors ?? []);
}

test('topup routes: every answer is what the document says', async () => {
  const created = await c.post('/v1/topup_intents', topupBody(), { idempotencyKey: randomUUID() });
  expect(created.status).toBe(201);
  expect(created.body.next_action.type).toBe('display_bank_transfer_instructions');
  expect(problems('post', '/topup_intents', created)).toEqual([]);
  // The check has teeth: an undocumented field or a wrong next_action is caught.
  expect(problems('post', '/topup_intents', { status: 201, body: { ...created.body, extra: 1 } })).not.toEqual([]);
  expect(problems('post', '/topup_intents', { status: 201, body: { ...created.body, next_action: { type: 'display_qr_code' } } })).not.toEqual([]);
  const other = (await c.post('/v1/topup_intents', topupBody(), { idempotencyKey: randomUUID() })).body;

  expect(problems('get', '/topup_intents', await c.get('/v1/topup_intents'))).toEqual([]);
  expect(problems('get', '/topup_intents/{id}', await c.get(`/v1/topup_intents/${created.body.id}`))).toEqual([]);
  const succeeded = await c.post(`/v1/test_helpers/topup_intents/${created.body.id}/succeed`, {});
  expect(succeeded.body.next_action).toBeNull();
  expect(problems('post', '/test_helpers/topup_intents/{id}/succeed', succeeded)).toEqual([]);
  expect(problems('post', '/test_helpers/topup_intents/{id}/fail', await c.post(`/v1/test_helpers/topup_intents/${other.id}/fail`, {}))).toEqual([]);

  // Documented failures.
  expect(problems('post', '/topup_intents', await c.post('/v1/topup_intents', topupBody()))).toEqual([]);
  const dup = await c.post('/v1/topup_intents', { ...topupBody(), merchant_reference: created.body.merchant_reference }, { idempotencyKey: randomUUID() });
  expect(dup.status).toBe(409);
  expect(problems('post', '/topup_intents', dup)).toEqual([]);
  const again = await c.post(`/v1/test_helpers/topup_intents/${created.body.id}/fail`, {});
  expect(again.status).toBe(422);
  expect(problems('post', '/test_helpers/topup_intents/{id}/fail', again)).toEqual([]);
});

test('balances and payment-method routes: every answer is what the document says', async () => {
  expect(problems('get', '/balances', await c.get('/v1/balances'))).toEqual([]);
  for (const q of ['', '?amount=50000&currency=THB&country=TH', '?checkout_mode=hosted', '?currency=IDR', '?provider=nobody']) {
    expect(problems('get', '/payment_method_options', await c.get(`/v1/payment_method_options${q}`))).toEqual([]);
  }
  expect(problems('get', '/payment_method_options', await c.get('/v1/payment_method_options?amount=1'))).toEqual([]);
  expect(problems('get', '/payment_method_settings', await c.get('/v1/payment_method_settings'))).toEqual([]);
  const updated = await c.post('/v1/payment_method_settings/direct_debit', { enabled: false });
  expect(updated.status).toBe(200);
  expect(problems('post', '/payment_method_settings/{payment_method}', updated)).toEqual([]);
  expect(problems('get', '/payment_method_settings', await c.get('/v1/payment_method_settings'))).toEqual([]);
  expect(problems('post', '/payment_method_settings/{payment_method}', await c.post('/v1/payment_method_settings/cash', { enabled: false }))).toEqual([]);
  await c.post('/v1/payment_method_settings/direct_debit', { enabled: true });
});

test('the documented discovery parameters are exactly the accepted ones', async () => {
  const names = doc.paths['/payment_method_options'].get.parameters
    .filter((p: any) => p.in === 'query')
    .map((p: any) => p.name)
    .sort();
  expect(names).toEqual(['amount', 'checkout_mode', 'country', 'currency', 'environment', 'provider']);
  const unknown = await c.get('/v1/payment_method_options?limit=5');
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.param).toBe('limit');
});
