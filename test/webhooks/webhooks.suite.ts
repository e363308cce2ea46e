/**
 * Webhook endpoints and delivery: REST and GraphQL management, the secret shown once,
 * enabled_events filtering, Standard Webhooks signatures, retries with one webhook-id,
 * recorded attempts, 410 Gone, SSRF rules (create, delivery, redirects), delivery after
 * a process is killed, and two processes never sending the same attempt (MariaDB).
 */
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, startProcess, startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { Client, eventually, payoutBody } from '../helpers/client';
import { Receiver, startReceiver } from '../helpers/receiver';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { WebhookEndpoint } from '../../src/modules/webhooks/webhook.entity';
import {
  DeletedWebhookEndpointSchema,
  WebhookAttemptSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from '../../src/modules/webhooks/webhook.schemas';
import { EventSchema } from '../../src/modules/events/event.schemas';
import { AuditEntrySchema } from '../../src/modules/audit/audit.schemas';

const RETRY_ENV = { WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200', WEBHOOK_TIMEOUT_MS: '2000' };

let srv: TestServer;
let rx: Receiver;
beforeAll(async () => {
  srv = await startServer({ env: RETRY_ENV });
  rx = await startReceiver();
});
afterAll(async () => {
  await srv?.close();
  await rx?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const forPath = (p: string) => rx.received.filter((r) => r.path === p);

async function endpoint(c: Client, path: string, enabled_events?: string[]): Promise<{ id: string; secret: string }> {
  const res = await c.post('/v1/webhook_endpoints', { url: `${rx.url}${path}`, ...(enabled_events ? { enabled_events } : {}) });
  expect(res.status).toBe(201);
  return res.body;
}

describe('endpoint management', () => {
  test('REST create/list/get/delete; the secret is shown once; scoped to merchant and environment', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const created = await c.post('/v1/webhook_endpoints', {
      url: `${rx.url}/crud`,
      enabled_events: ['payout_intent.cancelled', 'payment_intent.*'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'webhook_endpoint',
      id: expect.stringMatching(/^we_|^[a-z]+_/),
      url: `${rx.url}/crud`,
      environment: 'test',
      enabled_events: ['payout_intent.cancelled', 'payment_intent.*'],
      status: 'enabled',
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32,}$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id;
    const { secret, ...withoutSecret } = created.body;
    expect(secret).toBeDefined();

    const got = await c.get(`/v1/webhook_endpoints/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(withoutSecret);
    expect(got.text).not.toContain('whsec_');

    const all = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/all` });
    expect(all.body.enabled_events).toEqual(['*']);
    const list = await c.get('/v1/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [expect.objectContaining({ id: all.body.id }), withoutSecret], has_more: false, next_cursor: null });
    expect(list.text).not.toContain('whsec_');

    // Other merchant, other environment: not found, not listed.
    const other = await srv.merchant(undefined, 'test', { fund: false });
    const live = await srv.keyFor(c.merchantId, 'live');
    for (const stranger of [other, live]) {
      expect((await stranger.get(`/v1/webhook_endpoints/${id}`)).status).toBe(404);
      expect((await stranger.request('DELETE', `/v1/webhook_endpoints/${id}`)).status).toBe(404);
      expect((await stranger.get('/v1/webhook_endpoints')).body.data).toEqual([]);
      expect((await stranger.get(`/v1/webhook_endpoints/${id}/attempts`)).status).toBe(404);
    }

    const deleted = await c.request('DELETE', `/v1/webhook_endpoints/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'webhook_endpoint', id, deleted: true });
    expect((await c.get(`/v1/webhook_endpoints/${id}`)).status).toBe(404);
    expect((await c.request('DELETE', `/v1/webhook_endpoints/${id}`)).status).toBe(404);
    expect((await c.get('/v1/webhook_endpoints')).body.data.map((e: any) => e.id)).toEqual([all.body.id]);
  });

  test('REST validation: url and enabled_events', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const cases: [unknown, string][] = [
      [{}, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'https://user:pw@example.com/hook' }, 'url'],
      [{ url: `${rx.url}/x`, enabled_events: [] }, 'enabled_events'],
      [{ url: `${rx.url}/x`, enabled_events: ['nope'] }, 'enabled_events'],
      [{ url: `${rx.url}/x`, enabled_events: 'payout_intent.*' }, 'enabled_events'],
      [{ url: `${rx.url}/x`, secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, param] of cases) {
      const res = await c.post('/v1/webhook_endpoints', body);
      expect({ body, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
        body,
        status: 400,
        code: 'validation_error',
        param,
      });
    }
    expect((await c.get('/v1/webhook_endpoints')).body.data).toEqual([]);
  });

  test('at most 16 enabled endpoints per environment: the 17th is 422 endpoint_limit_reached (REST and GraphQL); a delete frees a place', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await endpoint(c, `/limit${i}`)).id);
    const refused = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/limit16` });
    expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([422, 'endpoint_limit_reached', undefined]);
    const gql = await c.gql(`mutation($url: String!) { createWebhookEndpoint(input: { url: $url }) { id } }`, { url: `${rx.url}/limit16` });
    expect(gql.body.errors![0].extensions.code).toBe('endpoint_limit_reached');
    expect((await c.request('DELETE', `/v1/webhook_endpoints/${ids[0]}`)).status).toBe(200);
    await endpoint(c, '/limit16');
  });

  test('GraphQL: createWebhookEndpoint (secret once), webhookEndpoints, deleteWebhookEndpoint', async () => {
    const c = await srv.merchant(undefined, 'test', { fund: false });
    const created = await c.gql(
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url environment enabledEvents status disabledReason secret createdAt } }`,
      { input: { url: `${rx.url}/gql`, enabledEvents: ['payout_intent.*'] } },
    );
    expect(created.body.errors).toBeUndefined();
    const ep = created.body.data.createWebhookEndpoint;
    expect(ep).toEqual({
      id: expect.any(String),
      url: `${rx.url}/gql`,
      environment: 'TEST',
      enabledEvents: ['payout_intent.*'],
      status: 'enabled',
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_/),
      createdAt: expect.any(String),
    });
    const list = await c.gql(`{ webhookEndpoints(first: 10) { nodes { id secret enabledEvents } pageInfo { hasNextPage } } }`);
    expect(list.body.data.webhookEndpoints).toEqual({
      nodes: [{ id: ep.id, secret: null, enabledEvents: ['payout_intent.*'] }],
      pageInfo: { hasNextPage: false },
    });
    // The same record over REST.
    expect((await c.get(`/v1/webhook_endpoints/${ep.id}`)).body.url).toBe(`${rx.url}/gql`);

    const bad = await c.gql(`mutation { createWebhookEndpoint(input: { url: "ftp://example.com" }) { id } }`);
    expect(bad.body.errors![0].extensions.code).toBe('validation_error');

    const del = await c.gql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id deleted } }`, { id: ep.id });
    expect(del.body.data.deleteWebhookEndpoint).toEqual({ id: ep.id, deleted: true });
    const again = await c.gql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id deleted } }`, { id: ep.id });
    expect(again.body.errors![0].extensions.code).toBe('not_found');
    expect((await c.gql(`{ webhookEndpoints { nodes { id } } }`)).body.data.webhookEndpoints.nodes).toEqual([]);
  });
});

describe('delivery', () => {
  test('enabled_events filters by exact type, resource wildcard, or all', async () => {
    const c = await srv.merchant();
    await endpoint(c, '/f-exact', ['payout_intent.cancelled']);
    await endpoint(c, '/f-wild', ['payout_intent.*']);
    await endpoint(c, '/f-all');
    await endpoint(c, '/f-topup', ['topup_intent.*']);
    const po = await c.post('/v1/payout_intents', payoutBody());
    await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'filter test' });
    const typesAt = (p: string) =>
      forPath(p)
        .map((r) => JSON.parse(r.body).type)
        .sort();
    await eventually(async () => forPath('/f-wild').length >= 2 && forPath('/f-all').length >= 2 && forPath('/f-exact').length >= 1);
    await sleep(300);
    expect(typesAt('/f-exact')).toEqual(['payout_intent.cancelled']);
    expect(typesAt('/f-wild')).toEqual(['payout_intent.cancelled', 'payout_intent.created']);
    expect(typesAt('/f-all')).toEqual(['payout_intent.cancelled', 'payout_intent.created']);
    expect(typesAt('/f-topup')).toEqual([]);
  });

  test('Standard Webhooks signature verifies with the secret; the body is the event object; a tampered body fails', async () => {
    const c = await srv.merchant();
    const ep = await endpoint(c, '/sig', ['payout_intent.cancelled']);
    const po = await c.post('/v1/payout_intents', payoutBody());
    await c.post(`/v1/payout_intents/${po.body.id}/cancel`, { reason: 'signed' });
    const [r] = await eventually(async () => forPath('/sig').length > 0 && forPath('/sig'));
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const headers = {
      'webhook-id': r.headers['webhook-id'] as string,
      'webhook-timestamp': r.headers['webhook-timestamp'] as string,
      'webhook-signature': r.headers['webhook-signature'] as string,
    };
    const payload = new Webhook(ep.secret).verify(r.body, headers) as any;
    expect(payload.id).toBe(headers['webhook-id']);
    expect(payload.type).toBe('payout_intent.cancelled');
    expect(payload.data.object.failure_message).toBe('signed');
    // The body is exactly the event as GET /v1/events/:id shows it.
    expect(payload).toEqual((await c.get(`/v1/events/${payload.id}`)).body);

    expect(() => new Webhook(ep.secret).verify(r.body.replace('signed', 'forged'), headers)).toThrow();
    const other = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/unused` });
    expect(() => new Webhook(other.body.secret).verify(r.body, headers)).toThrow();
    expect(() => new Webhook(ep.secret).verify(r.body, { ...headers, 'webhook-id': 'evt_other' })).toThrow();
  });

  test('500, 500, 200: exactly three attempts with the same webhook-id, each recorded and listed (REST and GraphQL)', async () => {
    const c = await srv.merchant();
    const ep = await endpoint(c, '/retry', ['payout_intent.created']);
    const previous = rx.respond;
    rx.respond = (req, n) => (req.path === '/retry' && n <= 2 ? { status: 500, body: 'boom' } : previous(req, n));
    try {
      await c.post('/v1/payout_intents', payoutBody());
      await eventually(async () => forPath('/retry').length >= 3);
      await sleep(800); // longer than the retry delay: no fourth attempt follows a 200
    } finally {
      rx.respond = previous;
    }
    const got = forPath('/retry');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got.map((r) => r.body)).toEqual([got[0].body, got[0].body, got[0].body]);
    for (const r of got) new Webhook(ep.secret).verify(r.body, r.headers as Record<string, string>);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(150);

    const attempts = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`);
    expect(attempts.status).toBe(200);
    const eventId = got[0].headers['webhook-id'];
    expect(attempts.body.data.map((a: any) => [a.attempt_number, a.status_code, a.event, a.webhook_endpoint])).toEqual([
      [3, 200, eventId, ep.id],
      [2, 500, eventId, ep.id],
      [1, 500, eventId, ep.id],
    ]);
    expect(attempts.body.data[0]).toEqual({
      object: 'webhook_attempt',
      id: expect.any(String),
      webhook_endpoint: ep.id,
      event: eventId,
      attempt_number: 3,
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
      created_at: expect.any(String),
    });
    const page = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts?limit=2`);
    expect(page.body.has_more).toBe(true);
    const rest = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts?limit=2&cursor=${page.body.next_cursor}`);
    expect(rest.body.data.map((a: any) => a.attempt_number)).toEqual([1]);
    // A cursor is bound to its endpoint.
    const otherEp = await endpoint(c, '/unused', ['payout_intent.cancelled']);
    const foreignCursor = await c.get(`/v1/webhook_endpoints/${otherEp.id}/attempts?cursor=${page.body.next_cursor}`);
    expect([foreignCursor.status, foreignCursor.body.error.param]).toEqual([400, 'cursor']);

    const gql = await c.gql(
      `query($id: ID!) { webhookAttempts(webhookEndpointId: $id, first: 10) { nodes { attemptNumber statusCode eventId webhookEndpointId durationMs } } }`,
      { id: ep.id },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.webhookAttempts.nodes.map((n: any) => [n.attemptNumber, n.statusCode, n.eventId])).toEqual([
      [3, 200, eventId],
      [2, 500, eventId],
      [1, 500, eventId],
    ]);
    const foreign = await (
      await srv.merchant(undefined, 'test', { fund: false })
    ).gql(`query($id: ID!) { webhookAttempts(webhookEndpointId: $id) { nodes { id } } }`, { id: ep.id });
    expect(foreign.body.errors![0].extensions.code).toBe('not_found');
  });

  test('every answer matches its published model (endpoints, attempts, events, audit entries)', async () => {
    const ajv = addFormats(new Ajv({ strict: false }), ['date-time']);
    const expectModel = (schema: TSchema, value: unknown) => {
      const ok = ajv.validate(schema, value);
      expect({ value, errors: ok ? null : ajv.errors }).toEqual({ value, errors: null });
    };
    const c = await srv.merchant();
    const created = await c.post('/v1/webhook_endpoints', { url: `${rx.url}/models`, enabled_events: ['payout_intent.created'] });
    expectModel(WebhookEndpointWithSecretSchema, created.body);
    expectModel(WebhookEndpointSchema, (await c.get(`/v1/webhook_endpoints/${created.body.id}`)).body);
    for (const e of (await c.get('/v1/webhook_endpoints')).body.data) expectModel(WebhookEndpointSchema, e);
    await c.post('/v1/payout_intents', payoutBody());
    await eventually(async () => (await c.get(`/v1/webhook_endpoints/${created.body.id}/attempts`)).body.data.length >= 1);
    for (const a of (await c.get(`/v1/webhook_endpoints/${created.body.id}/attempts`)).body.data) expectModel(WebhookAttemptSchema, a);
    const events = (await c.get('/v1/events')).body.data;
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expectModel(EventSchema, e);
    expectModel(EventSchema, (await c.get(`/v1/events/${events[0].id}`)).body);
    expectModel(DeletedWebhookEndpointSchema, (await c.request('DELETE', `/v1/webhook_endpoints/${created.body.id}`)).body);
    const audit = (await c.get('/v1/audit_log')).body.data;
    expect(audit.length).toBeGreaterThan(0);
    for (const a of audit) expectModel(AuditEntrySchema, a);
  });

  test('410 Gone disables the endpoint: no retry, later events are not sent', async () => {
    const c = await srv.merchant();
    const ep = await endpoint(c, '/gone', ['payout_intent.*']);
    const previous = rx.respond;
    rx.respond = (req, n) => (req.path === '/gone' ? { status: 410 } : previous(req, n));
    try {
      await c.post('/v1/payout_intents', payoutBody());
      await eventually(async () => (await c.get(`/v1/webhook_endpoints/${ep.id}`)).body.status === 'disabled');
      const disabled = await c.get(`/v1/webhook_endpoints/${ep.id}`);
      expect(disabled.body.disabled_reason).toMatch(/410/);
      await c.post('/v1/payout_intents', payoutBody());
      await sleep(600);
    } finally {
      rx.respond = previous;
    }
    expect(forPath('/gone')).toHaveLength(1);
    const attempts = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`);
    expect(attempts.body.data.map((a: any) => [a.attempt_number, a.status_code])).toEqual([[1, 410]]);
    expect((await c.get('/v1/webhook_endpoints')).body.data[0].status).toBe('disabled');
  });

  test('an answer that never finishes is cut off at WEBHOOK_TIMEOUT_MS and counts by its status', async () => {
    const c = await srv.merchant();
    const ep = await endpoint(c, '/trickle', ['payout_intent.created']);
    const previous = rx.respond;
    rx.respond = (req, n) => (req.path === '/trickle' ? { status: 200, trickle: true } : previous(req, n));
    try {
      await c.post('/v1/payout_intents', payoutBody());
      const attempts = await eventually(async () => {
        const res = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`);
        return res.body.data.length > 0 && res.body.data;
      }, 8000);
      expect(attempts[0]).toMatchObject({ attempt_number: 1, status_code: 200, error: null });
      expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(1900);
      expect(attempts[0].duration_ms).toBeLessThan(4000);
      await sleep(400);
    } finally {
      rx.respond = previous;
    }
    expect(forPath('/trickle')).toHaveLength(1);
  });

  test('a redirect is never followed: the attempt fails and the redirect target gets nothing', async () => {
    const c = await srv.merchant();
    const target = await startReceiver();
    try {
      const ep = await endpoint(c, '/redirect', ['payout_intent.created']);
      const previous = rx.respond;
      rx.respond = (req, n) => (req.path === '/redirect' ? { status: 307, headers: { location: `${target.url}/private` } } : previous(req, n));
      try {
        await c.post('/v1/payout_intents', payoutBody());
        await eventually(async () => forPath('/redirect').length >= 2);
      } finally {
        rx.respond = previous;
      }
      expect(target.received).toEqual([]);
      const attempts = await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`);
      const first = attempts.body.data[attempts.body.data.length - 1];
      expect(first).toMatchObject({ attempt_number: 1, status_code: 307, error: 'redirect (307) not followed' });
    } finally {
      await target.close();
    }
  });
});

describe('SSRF (WEBHOOK_ALLOW_LOOPBACK unset)', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startServer({ env: { ...RETRY_ENV, WEBHOOK_ALLOW_LOOPBACK: '0' } });
  });
  afterAll(async () => {
    await strict?.close();
  });

  test('loopback, private, link-local and metadata addresses are refused, also by host name', async () => {
    const c = await strict.merchant(undefined, 'test', { fund: false });
    const refused = [
      `${rx.url}/hook`,
      'http://127.1.2.3/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.1/hook',
      'http://100.64.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/hook',
      'http://[fd00:ec2::254]/hook',
      'http://2130706433/hook',
      'http://[::ffff:0:7f00:1]/hook',
      'http://[fec0::1]/hook',
      'http://[2001:0:7f00:1::]/hook',
    ];
    for (const url of refused) {
      const res = await c.post('/v1/webhook_endpoints', { url });
      expect({ url, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
        url,
        status: 400,
        code: 'validation_error',
        param: 'url',
      });
      // The refusal never says what a name resolves to, nor which range it is in.
      expect(res.body.error.message).toMatch(/^url is not allowed: the host \S+ is not reachable as a public address\.$|^url is malformed: /);
      expect(res.body.error.message).not.toMatch(/loopback|private|linkLocal|resolves to|\(/);
      if (url.includes('localhost')) expect(res.body.error.message).not.toMatch(/127\.0\.0\.1|::1/);
    }
    const gql = await c.gql(`mutation($url: String!) { createWebhookEndpoint(input: { url: $url }) { id } }`, {
      url: 'http://169.254.169.254/',
    });
    expect(gql.body.errors![0].extensions.code).toBe('validation_error');
    // A public address literal is accepted (nothing is sent until an event).
    expect((await c.post('/v1/webhook_endpoints', { url: 'https://93.184.216.34/hook' })).status).toBe(201);
    expect((await c.get('/v1/webhook_endpoints')).body.data).toHaveLength(1);
  });

  test('delivery re-checks the resolved address: a host that now resolves to loopback is not called', async () => {
    const c = await strict.merchant();
    const ok = await c.post('/v1/webhook_endpoints', { url: 'https://93.184.216.34/hook', enabled_events: ['payout_intent.created'] });
    // As if DNS changed after the check at create time: point the stored endpoint at `localhost`.
    await strict.app.db.tx((em) => em.update(WebhookEndpoint, { id: ok.body.id }, { url: `http://localhost:${rx.port}/rebound` }));
    await c.post('/v1/payout_intents', payoutBody());
    const attempts = await eventually(async () => {
      const res = await c.get(`/v1/webhook_endpoints/${ok.body.id}/attempts`);
      return res.body.data.length > 0 && res.body.data;
    });
    expect(attempts[0]).toMatchObject({
      attempt_number: 1,
      status_code: null,
      error: expect.stringMatching(/not reachable as a public address/),
    });
    expect(attempts[0].error).not.toMatch(/127\.0\.0\.1|::1|loopback/);
    expect(forPath('/rebound')).toEqual([]);
  });
  test('a host that does not resolve is accepted at create time; each attempt resolves it again and fails until it does', async () => {
    const c = await strict.merchant();
    const created = await c.post('/v1/webhook_endpoints', {
      url: 'https://no-such-host.invalid/hook',
      enabled_events: ['payout_intent.created'],
    });
    expect(created.status).toBe(201);
    await c.post('/v1/payout_intents', payoutBody());
    const attempts = await eventually(async () => {
      const res = await c.get(`/v1/webhook_endpoints/${created.body.id}/attempts`);
      return res.body.data.length > 0 && res.body.data;
    });
    expect(attempts[0]).toMatchObject({
      attempt_number: 1,
      status_code: null,
      error: expect.stringMatching(/could not be resolved|no addresses/),
    });
  });
});

describe('processes', () => {
  test('an event committed by a process killed before delivery is delivered after restart', async () => {
    const database = await createTestDatabase();
    const receiver = await startReceiver();
    try {
      // Merchant and key through an in-process app, then closed (SQLite: one process at a time).
      const setup = await startServer({ database, env: { WEBHOOK_DELIVERY: '0' } });
      const merchant = await setup.merchant();
      await setup.close();

      // Process A commits the event but does not deliver (its delivery job is off), then dies.
      const a = await startProcess(database, { WEBHOOK_DELIVERY: '0' });
      const ca = merchant.withBase(a.url);
      const ep = await ca.post('/v1/webhook_endpoints', { url: `${receiver.url}/restart`, enabled_events: ['payout_intent.created'] });
      expect(ep.status).toBe(201);
      const po = await ca.post('/v1/payout_intents', payoutBody());
      expect(po.status).toBe(201);
      await a.stop('SIGKILL');
      expect(receiver.received).toEqual([]);

      // Process B, same database: delivers the pending delivery.
      const b = await startProcess(database, RETRY_ENV);
      try {
        const [r] = await eventually(async () => receiver.received.length > 0 && receiver.received, 20000);
        const event = new Webhook(ep.body.secret).verify(r.body, r.headers as Record<string, string>) as any;
        expect(event.data.object.id).toBe(po.body.id);
        // The receiver sees the attempt before process b records its answer: wait for the record.
        const attempts = await eventually(async () => {
          const res = await merchant.withBase(b.url).get(`/v1/webhook_endpoints/${ep.body.id}/attempts`);
          return res.body.data.length > 0 && res;
        }, 10000);
        expect(attempts.body.data.map((x: any) => [x.attempt_number, x.status_code])).toEqual([[1, 200]]);
      } finally {
        await b.stop();
      }
    } finally {
      await receiver.close();
      await database.drop();
    }
  });

  test('a process killed mid-attempt: after the lease another process repeats the attempt with the same webhook-id', async () => {
    const database = await createTestDatabase();
    const receiver = await startReceiver();
    const lease = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_LEASE_MARGIN_MS: '500', WEBHOOK_RETRY_SCHEDULE_MS: '200,200' };
    let release: () => void = () => undefined;
    // The first request hangs (the process dies while waiting for it); later ones succeed.
    receiver.respond = (_req, n) =>
      n === 1
        ? new Promise((resolve) => {
            release = () => resolve({ status: 200 });
          })
        : { status: 200 };
    try {
      const setup = await startServer({ database, env: { WEBHOOK_DELIVERY: '0' } });
      const merchant = await setup.merchant();
      await setup.close();

      const a = await startProcess(database, lease);
      const ep = await merchant.withBase(a.url).post('/v1/webhook_endpoints', { url: `${receiver.url}/mid`, enabled_events: ['payout_intent.created'] });
      expect((await merchant.withBase(a.url).post('/v1/payout_intents', payoutBody())).status).toBe(201);
      const killedAt = await eventually(async () => receiver.received.length === 1 && Date.now(), 20000);
      await a.stop('SIGKILL');

      const b = await startProcess(database, lease);
      try {
        await eventually(async () => receiver.received.length >= 2, 20000);
        const [first, second] = receiver.received;
        expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
        expect(second.at - killedAt).toBeGreaterThanOrEqual(2500); // not before the lease (3 s + 0.5 s from the claim) ran out
        new Webhook(ep.body.secret).verify(second.body, second.headers as Record<string, string>);
        // The killed attempt's outcome was never known, so only the repeat is recorded. The
        // receiver sees the repeat before process b records its answer: wait for the record.
        const attempts = await eventually(async () => {
          const res = await merchant.withBase(b.url).get(`/v1/webhook_endpoints/${ep.body.id}/attempts`);
          return res.body.data.length > 0 && res;
        }, 10000);
        expect(attempts.body.data.map((x: any) => [x.attempt_number, x.status_code])).toEqual([[2, 200]]);
      } finally {
        await b.stop();
      }
    } finally {
      release();
      await receiver.close();
      await database.drop();
    }
  });

  testIf(usingMysql(), NEEDS_MYSQL)('two processes never send the same attempt (MariaDB; SQLite is single-process by design)', async () => {
    const database = await createTestDatabase();
    const receiver = await startReceiver();
    // Every delivery fails once, then succeeds: exactly two requests per webhook-id.
    receiver.respond = (_req, n) => ({ status: n === 1 ? 503 : 200 });
    const setup = await startServer({ database, env: { WEBHOOK_DELIVERY: '0' }, scheduler: false });
    const procs: Awaited<ReturnType<typeof startProcess>>[] = [];
    try {
      const m = await setup.merchant();
      const ep = await m.post('/v1/webhook_endpoints', { url: `${receiver.url}/two`, enabled_events: ['payout_intent.created'] });
      for (let i = 0; i < 2; i++) procs.push(await startProcess(database, { WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100', SCHEDULER_INTERVAL_MS: '10' }));
      const n = 30;
      await Promise.all(Array.from({ length: n }, (_, i) => m.withBase(procs[i % 2].url).post('/v1/payout_intents', payoutBody())));
      await eventually(async () => receiver.received.length >= 2 * n, 30000);
      await sleep(800);
      const perId = new Map<string, number>();
      for (const r of receiver.received) perId.set(r.headers['webhook-id'] as string, (perId.get(r.headers['webhook-id'] as string) ?? 0) + 1);
      expect(perId.size).toBe(n);
      expect([...perId.values()].every((v) => v === 2)).toBe(true);
      const attempts: any[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await m.get(`/v1/webhook_endpoints/${ep.body.id}/attempts?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        attempts.push(...page.body.data);
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(attempts).toHaveLength(2 * n);
      const keys = attempts.map((a) => `${a.event}#${a.attempt_number}`);
      expect(new Set(keys).size).toBe(2 * n);
    } finally {
      for (const p of procs) await p.stop();
      await setup.close();
      await receiver.close();
      await database.drop();
    }
  });
});
