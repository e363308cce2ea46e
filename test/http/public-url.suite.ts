/**
 * Links come from PUBLIC_BASE_URL only: a hosted payment's next_action.url never follows the
 * request's Host or X-Forwarded-* headers, with or without PUBLIC_BASE_URL; production
 * refuses to start without it; TRUST_PROXY names the proxies whose forwarded headers count.
 */
import { startServer, TestServer } from '../helpers/server';
import { Client, ref } from '../helpers/client';
import { loadConfig } from '../../src/config';
import { paymentBody } from '../helpers/fixtures';

const hosted = () => paymentBody({ checkout_mode: 'hosted' });
const spoofed = { host: 'attacker.example:8443', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'attacker.example' };

describe('without PUBLIC_BASE_URL (development): the address the server listens on', () => {
  let srv: TestServer;
  let c: Client;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false });
    c = await srv.merchant();
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('REST and GraphQL ignore the Host and forwarded headers', async () => {
    const rest = await c.post('/v1/payment_intents', hosted(), { headers: spoofed });
    expect(rest.status).toBe(201);
    expect(rest.body.next_action.url).toMatch(new RegExp(`^${srv.url}/checkout/[A-Za-z0-9_-]+$`));
    const gql = await c.gql(
      'mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { nextAction { url } } }',
      {
        input: {
          amount: '10000',
          currency: 'THB',
          country: 'TH',
          merchantReference: ref('pi'),
          customer: { email: 'a@example.com' },
          checkoutMode: 'HOSTED',
        },
      },
      spoofed,
    );
    expect(gql.body.data?.createPaymentIntent.nextAction.url).toMatch(new RegExp(`^${srv.url}/checkout/`));
  });

  test('the dashboard CSP names the listening address, not the Host', async () => {
    const res = await c.get('/dashboard', { headers: spoofed });
    expect(res.headers.get('content-security-policy')).toContain(`connect-src 'self' ${srv.url.replace('http', 'ws')};`);
    expect(res.headers.get('content-security-policy')).not.toContain('attacker');
  });
});

describe('with PUBLIC_BASE_URL', () => {
  let srv: TestServer;
  let c: Client;
  beforeAll(async () => {
    srv = await startServer({ scheduler: false, env: { PUBLIC_BASE_URL: 'https://pay.example.com/gateway/' } });
    c = await srv.merchant();
  });
  afterAll(async () => {
    await srv?.close();
  });

  test('every link starts with it, whatever the request says', async () => {
    const res = await c.post('/v1/payment_intents', hosted(), { headers: spoofed });
    expect(res.body.next_action.url).toMatch(/^https:\/\/pay\.example\.com\/gateway\/checkout\/[A-Za-z0-9_-]+$/);
  });
});

test('configuration: production needs PUBLIC_BASE_URL (one line naming it); it must be an absolute http(s) URL; TRUST_PROXY is a list', () => {
  expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/^PUBLIC_BASE_URL must be set when NODE_ENV=production/);
  expect(() => loadConfig({ PUBLIC_BASE_URL: 'pay.example.com' })).toThrow(/PUBLIC_BASE_URL must be an absolute http\(s\) URL/);
  expect(() => loadConfig({ PUBLIC_BASE_URL: 'https://u:p@pay.example.com' })).toThrow(/without credentials/);
  expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl).toBe('https://pay.example.com');
  expect(loadConfig({}).trustProxy).toEqual([]);
  expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16']);
});
