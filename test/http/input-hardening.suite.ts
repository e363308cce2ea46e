/**
 * What a merchant (or a payer) sends is never trusted as a name: control characters are
 * refused in keys as in values, a field name never reaches a prototype, and every answer
 * that is not a public asset is `no-store` and `nosniff`. The payer's cookie is `Secure`
 * whenever PUBLIC_BASE_URL is https; loopback names are refused as webhook URLs.
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { payoutBody, type Client } from '../helpers/client';
import { waitForStatus } from '../helpers/fixtures';

let srv: TestServer;
let c: Client;
beforeAll(async () => {
  srv = await startServer({ env: { PUBLIC_BASE_URL: 'https://pay.example.com', WEBHOOK_ALLOW_LOOPBACK: '0' } });
  c = await srv.merchant();
});
afterAll(async () => {
  await srv?.close();
});

async function newLink(extra: Record<string, unknown> = {}) {
  const res = await c.post('/v1/payment_links', { amount: '25000', currency: 'THB', country: 'TH', ...extra }, { idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  return res.body;
}

/** The link's page on this server (the link's own url is PUBLIC_BASE_URL's). */
const local = (url: string) => srv.url + new URL(url).pathname;

test('control characters in a metadata key are refused, naming the field, and nothing is stored', async () => {
  for (const key of ['a\u0000', 'a\r\nb', '\u001b[31m', 'x\u007f', 'y\u0085']) {
    const res = await c.post('/v1/payment_links', { amount: '25000', currency: 'THB', country: 'TH', metadata: { [key]: 'v' } });
    expect([JSON.stringify(key), res.status, res.body.error]).toEqual([
      JSON.stringify(key),
      400,
      { code: 'validation_error', param: 'metadata', message: 'metadata keys must not contain control characters (U+0000 to U+001F, U+007F to U+009F).' },
    ]);
    expect(res.text).not.toContain('\\u001b');
  }
  const value = await c.post('/v1/payment_links', { amount: '25000', currency: 'THB', country: 'TH', metadata: { k: 'a\u0000' } });
  expect([value.status, value.body.error.param]).toEqual([400, 'metadata.k']);
  const unknown = await c.post('/v1/payout_intents', { ...payoutBody(), 'x\u001b[2J': 1 });
  expect([unknown.status, unknown.body.error.param]).toEqual([400, 'body']);
  expect(unknown.text).not.toMatch(/\\u001b|\u001b/);
  expect((await c.get('/v1/payment_links')).body.data).toEqual([]);
});

test('a body field named after a prototype member is an unknown field, never the member', async () => {
  for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
    for (const [path, body] of [
      ['/v1/payout_intents', payoutBody()],
      ['/v1/payment_links', { amount: '25000', currency: 'THB', country: 'TH' }],
    ] as const) {
      const res = await c.request('POST', path, { raw: JSON.stringify(body).replace(/^\{/, `{${JSON.stringify(name)}:1,`) });
      expect([name, path, res.status, res.body.error?.code]).toEqual([name, path, 400, 'validation_error']);
      expect(res.body.error.message).not.toMatch(/function|native code|\[object/);
      if (name !== '__proto__') expect(res.body.error).toMatchObject({ param: name, message: `Unknown field ${name}.` });
    }
  }
  const header = await fetch(`${srv.url}/v1/balances`, {
    headers: [
      ['authorization', c.authorization!],
      ['constructor', 'a'],
      ['constructor', 'b'],
    ],
  });
  expect(header.status).toBe(200);
});

test('CSV reports, QR images and pages are no-store and nosniff', async () => {
  const link = await newLink();
  const run = await c.post('/v1/report_runs', {
    report_type: 'payments.itemized',
    interval_start: new Date(Date.now() - 3600_000).toISOString(),
    interval_end: new Date().toISOString(),
  });
  expect(run.status).toBe(201);
  await waitForStatus(c, `/v1/report_runs/${run.body.id}`, (s) => s !== 'pending', 20_000);
  const answers = {
    reportCsv: await c.get(`/v1/report_runs/${run.body.id}/file`),
    qrSvg: await c.get(`/v1/payment_links/${link.id}/qr.svg`),
    payPage: await fetch(local(link.url)),
    unknownPayPage: await fetch(`${srv.url}/pay/nope`),
    healthz: await fetch(`${srv.url}/healthz`),
    dashboard: await fetch(`${srv.url}/dashboard`),
  };
  const seen = Object.entries(answers).map(([name, res]) => [name, res.headers.get('cache-control'), res.headers.get('x-content-type-options')]);
  expect(seen).toEqual(Object.keys(answers).map((name) => [name, 'no-store', 'nosniff']));
  expect(answers.reportCsv.status).toBe(200);
  expect(answers.qrSvg.status).toBe(200);
});

test('the pay_visit cookie is Secure when PUBLIC_BASE_URL is https', async () => {
  const link = await newLink();
  const res = await fetch(local(link.url));
  expect(res.status).toBe(200);
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^pay_visit=/);
  expect(cookie.split(/;\s*/)).toContain('Secure');
});

test('webhook URLs whose host is loopback by its spelling are refused at create', async () => {
  for (const url of ['http://localhost./h', 'http://foo.localhost/h', 'https://a.b.localhost./h', 'http://ip6-localhost/h', 'http://ip6-loopback/h']) {
    const res = await c.post('/v1/webhook_endpoints', { url });
    expect([url, res.status, res.body.error?.code, res.body.error?.param]).toEqual([url, 400, 'validation_error', 'url']);
  }
  expect((await c.get('/v1/webhook_endpoints')).body.data).toEqual([]);
});

/** Every string leaf of `value`, with its dot path. */
function stringLeaves(value: unknown, path = ''): { path: string; set: (root: any, v: string) => any }[] {
  if (typeof value === 'string') return [{ path, set: (_root, v) => v }];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, child]) =>
    stringLeaves(child, path ? `${path}.${k}` : k).map((leaf) => ({
      path: leaf.path,
      set: (root: any, v: string) =>
        Array.isArray(root) ? root.map((x, i) => (String(i) === k ? leaf.set(x, v) : x)) : { ...root, [k]: leaf.set(root[k], v) },
    })),
  );
}

test('a control character in any string value of a create body is refused, naming the field', async () => {
  const templates: Record<string, Record<string, unknown>> = {
    '/v1/payout_intents': payoutBody(),
    '/v1/payment_intents': {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: 'm-1',
      customer: { name: 'Somchai', email: 'somchai@example.com', phone: '+66812345678', reference: 'cust-1' },
      device_fingerprint: 'fp',
      external_reference: 'ext',
      metadata: { order: '42' },
    },
    '/v1/payment_links': {
      amount: '25000',
      currency: 'THB',
      country: 'TH',
      description: 'Yoga',
      return_url: 'https://shop.example/return',
      metadata: { k: 'v' },
    },
    '/v1/webhook_endpoints': { url: 'https://example.com/hooks', enabled_events: ['payout_intent.*'] },
  };
  const accepted: string[] = [];
  for (const [route, template] of Object.entries(templates)) {
    for (const leaf of stringLeaves(template)) {
      for (const bad of ['a\u0000b', 'a\u001bb', 'a\u007fb']) {
        const res = await c.post(route, leaf.set(template, bad), { idempotencyKey: randomUUID() });
        if (res.status !== 400 || res.body.error?.code !== 'validation_error') accepted.push(`${route} ${leaf.path} ${JSON.stringify(bad)}: ${res.status}`);
        else
          expect([route, res.body.error.param]).toEqual([
            route,
            expect.stringMatching(new RegExp(`^${leaf.path.replace(/\.\d+$/, '').replace(/\./g, '\\.')}`)),
          ]);
      }
    }
  }
  expect(accepted).toEqual([]);
});
