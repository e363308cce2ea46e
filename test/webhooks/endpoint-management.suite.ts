/**
 * Webhook endpoint management (docs/contract.md, "Additions"): update (url,
 * enabled_events, status), re-enabling after a 410 and within the cap, secret rotation with
 * both signatures for 24 hours (receivers with only the old or only the new secret both
 * verify; after the overlap only the new one), resending one event to one endpoint (exactly
 * one new recorded attempt, same webhook-id), the GraphQL mutations and validation errors.
 */
import { Webhook } from 'standardwebhooks';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody } from '../helpers/client';
import { Receiver, startReceiver } from '../helpers/receiver';
import { WebhookEndpoint } from '../../src/modules/webhooks/webhook.entity';
import { MAX_ENDPOINTS, WebhookDeliverySchema, WebhookEndpointSchema, WebhookEndpointWithSecretSchema } from '../../src/modules/webhooks/webhook.schemas';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

let srv: TestServer;
let rx: Receiver;
beforeAll(async () => {
  srv = await startServer({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '200,200,200', WEBHOOK_TIMEOUT_MS: '2000' } });
  rx = await startReceiver();
});
afterAll(async () => {
  await srv?.close();
  await rx?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const forPath = (p: string) => rx.received.filter((r) => r.path === p);
const headersOf = (r: { headers: Record<string, unknown> }) => ({
  'webhook-id': r.headers['webhook-id'] as string,
  'webhook-timestamp': r.headers['webhook-timestamp'] as string,
  'webhook-signature': r.headers['webhook-signature'] as string,
});
const verifies = (secret: string, r: { body: string; headers: Record<string, unknown> }) => {
  try {
    new Webhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
};

async function endpoint(c: Client, path: string, enabled_events?: string[]): Promise<{ id: string; secret: string }> {
  const res = await c.post('/v1/webhook_endpoints', { url: `${rx.url}${path}`, ...(enabled_events ? { enabled_events } : {}) });
  expect(res.status).toBe(201);
  return res.body;
}

/** A payout create: one payout_intent.created event. */
async function payoutCreated(c: Client): Promise<void> {
  expect((await c.post('/v1/payout_intents', payoutBody())).status).toBe(201);
}

test('update each field: url, enabled_events, status; the secret is never shown; audit entries', async () => {
  const c = await srv.merchant();
  const ep = await endpoint(c, '/u-old', ['topup_intent.*']);
  const url = await c.post(`/v1/webhook_endpoints/${ep.id}`, { url: `${rx.url}/u-new` });
  expect(url.status).toBe(200);
  expect(url.body).toEqual(
    expect.objectContaining({
      object: 'webhook_endpoint',
      id: ep.id,
      url: `${rx.url}/u-new`,
      enabled_events: ['topup_intent.*'],
      status: 'enabled',
    }),
  );
  expect(url.body.secret).toBeUndefined();
  const events = await c.post(`/v1/webhook_endpoints/${ep.id}`, { enabled_events: [' payout_intent.created ', 'payout_intent.created'] });
  expect([events.status, events.body.enabled_events, events.body.url]).toEqual([200, ['payout_intent.created'], `${rx.url}/u-new`]);
  const all = await c.post(`/v1/webhook_endpoints/${ep.id}`, { enabled_events: ['payout_intent.created', '*'] });
  expect(all.body.enabled_events).toEqual(['*']);

  // The new url and filter are used by the next delivery.
  await payoutCreated(c);
  await eventually(async () => forPath('/u-new').length >= 1);
  expect(forPath('/u-old')).toHaveLength(0);

  // Disabled: paused, no delivery; enabled again: delivered again.
  const off = await c.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'disabled' });
  expect([off.status, off.body.status, off.body.disabled_reason]).toEqual([200, 'disabled', 'Disabled by an update.']);
  await payoutCreated(c);
  await sleep(500);
  expect(forPath('/u-new')).toHaveLength(1);
  const on = await c.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' });
  expect([on.status, on.body.status, on.body.disabled_reason]).toEqual([200, 'enabled', null]);
  await payoutCreated(c);
  await eventually(async () => forPath('/u-new').length >= 2);
  expect((await c.get(`/v1/webhook_endpoints/${ep.id}`)).body).toEqual(on.body);

  const audit = (await c.get(`/v1/audit_log?resource_id=${ep.id}`)).body.data.map((a: any) => [a.operation, a.status_code]);
  expect(audit.filter(([op]: [string]) => op === 'POST /v1/webhook_endpoints/:id')).toHaveLength(5);
});

test('validation: the create rules for url and enabled_events, status values, unknown fields; 404 outside the scope', async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const ep = await endpoint(c, '/v');
  const cases: [unknown, string][] = [
    [{ url: 'not a url' }, 'url'],
    [{ url: 'ftp://example.com/hook' }, 'url'],
    [{ url: 'https://user:pw@example.com/hook' }, 'url'],
    [{ url: 'http://10.0.0.5/hook' }, 'url'], // the SSRF rule of the create
    [{ enabled_events: [] }, 'enabled_events'],
    [{ enabled_events: ['nope'] }, 'enabled_events'],
    [{ enabled_events: null }, 'enabled_events'],
    [{ status: 'deleted' }, 'status'],
    [{ status: 'paused' }, 'status'],
    [{ secret: 'whsec_mine' }, 'secret'],
  ];
  for (const [body, param] of cases) {
    const res = await c.post(`/v1/webhook_endpoints/${ep.id}`, body);
    expect({ body, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
      body,
      status: 400,
      code: 'validation_error',
      param,
    });
  }
  const unchanged = (await c.get(`/v1/webhook_endpoints/${ep.id}`)).body;
  expect([unchanged.url, unchanged.enabled_events, unchanged.status]).toEqual([`${rx.url}/v`, ['*'], 'enabled']);

  const other = await srv.merchant(undefined, 'test', { fund: false });
  const live = await srv.keyFor(c.merchantId, 'live');
  for (const stranger of [other, live]) {
    expect((await stranger.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'disabled' })).status).toBe(404);
    expect((await stranger.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`, {})).status).toBe(404);
  }
  expect((await c.post('/v1/webhook_endpoints/we_nope', { status: 'disabled' })).status).toBe(404);
  expect((await c.request('DELETE', `/v1/webhook_endpoints/${ep.id}`)).status).toBe(200);
  expect((await c.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' })).status).toBe(404);
});

test('an endpoint disabled by a 410 answer is re-enabled by an update and receives again', async () => {
  const c = await srv.merchant();
  const ep = await endpoint(c, '/gone410', ['payout_intent.created']);
  let gone = true;
  const previous = rx.respond;
  rx.respond = (req, n) => (req.path === '/gone410' && gone ? { status: 410 } : previous(req, n));
  try {
    await payoutCreated(c);
    await eventually(async () => (await c.get(`/v1/webhook_endpoints/${ep.id}`)).body.status === 'disabled');
    gone = false;
    const on = await c.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'enabled' });
    expect([on.status, on.body.status, on.body.disabled_reason]).toEqual([200, 'enabled', null]);
    await payoutCreated(c);
    await eventually(async () => forPath('/gone410').length >= 2);
  } finally {
    rx.respond = previous;
  }
  // The receiver counts a delivery when it arrives; its attempt is recorded once the answer is back.
  const attempts = async () => (await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`)).body.data.map((a: any) => a.status_code);
  await eventually(async () => (await attempts()).length >= 2);
  expect(await attempts()).toEqual([200, 410]);
});

test(`re-enabling respects the cap of ${MAX_ENDPOINTS} enabled endpoints`, async () => {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const ids: string[] = [];
  for (let i = 0; i < MAX_ENDPOINTS; i++) ids.push((await endpoint(c, `/cap${i}`)).id);
  expect((await c.post(`/v1/webhook_endpoints/${ids[0]}`, { status: 'disabled' })).status).toBe(200);
  // The disabled one does not count: a new one fits, and then the cap is full.
  await endpoint(c, '/cap-extra');
  const refused = await c.post(`/v1/webhook_endpoints/${ids[0]}`, { status: 'enabled' });
  expect([refused.status, refused.body.error?.code]).toEqual([422, 'endpoint_limit_reached']);
  expect((await c.get(`/v1/webhook_endpoints/${ids[0]}`)).body.status).toBe('disabled');
  // Enabling an enabled endpoint is not one more.
  expect((await c.post(`/v1/webhook_endpoints/${ids[1]}`, { status: 'enabled', url: `${rx.url}/cap1b` })).status).toBe(200);
  // Parallel: disable one, then race two re-enables: exactly one wins.
  expect((await c.post(`/v1/webhook_endpoints/${ids[2]}`, { status: 'disabled' })).status).toBe(200);
  const race = await Promise.all([ids[0], ids[2]].map((id) => c.post(`/v1/webhook_endpoints/${id}`, { status: 'enabled' })));
  expect(race.map((r) => r.status).sort()).toEqual([200, 422]);
  const enabled = (await c.get('/v1/webhook_endpoints?limit=100')).body.data.filter((e: any) => e.status === 'enabled');
  expect(enabled).toHaveLength(MAX_ENDPOINTS);
});

test('rotation: for the overlap both old-only and new-only receivers verify; after it only the new one; secrets stored sealed', async () => {
  const c = await srv.merchant();
  const ep = await endpoint(c, '/rot', ['payout_intent.created']);
  const rotated = await c.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`, {}, { idempotencyKey: `rot-${ep.id}` });
  expect(rotated.status).toBe(200);
  expect(rotated.body).toEqual(
    expect.objectContaining({ object: 'webhook_endpoint', id: ep.id, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32,}$/) }),
  );
  const newSecret = rotated.body.secret as string;
  expect(newSecret).not.toBe(ep.secret);
  expect((await c.get(`/v1/webhook_endpoints/${ep.id}`)).text).not.toContain('whsec_');
  // A replay under the same key answers the same secret (the stored answer is sealed by the pipeline) and does not rotate again.
  const replay = await c.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`, {}, { idempotencyKey: `rot-${ep.id}` });
  expect(replay.body.secret).toBe(newSecret);

  // Neither secret is in the database in clear.
  const row = await srv.app.db.read((em) => em.findOneByOrFail(WebhookEndpoint, { id: ep.id }));
  const stored = JSON.stringify(row);
  for (const s of [ep.secret, newSecret]) expect(stored).not.toContain(s.slice('whsec_'.length));
  expect(row.previousSecretEncrypted).not.toBeNull();
  expect(row.previousSecretExpiresAt!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);

  await payoutCreated(c);
  const [during] = await eventually(async () => forPath('/rot').length >= 1 && forPath('/rot'));
  expect(headersOf(during)['webhook-signature'].split(' ')).toHaveLength(2);
  expect({ old: verifies(ep.secret, during), new: verifies(newSecret, during) }).toEqual({ old: true, new: true });

  // The overlap ends (the stored expiry moved into the past): only the new secret signs.
  await srv.app.db.tx((em) => em.update(WebhookEndpoint, { id: ep.id }, { previousSecretExpiresAt: new Date(Date.now() - 1000) }));
  await payoutCreated(c);
  const after = (await eventually(async () => forPath('/rot').length >= 2 && forPath('/rot')))[1];
  expect(headersOf(after)['webhook-signature'].split(' ')).toHaveLength(1);
  expect({ old: verifies(ep.secret, after), new: verifies(newSecret, after) }).toEqual({ old: false, new: true });

  const audit = (await c.get(`/v1/audit_log?resource_id=${ep.id}`)).body.data.map((a: any) => a.operation);
  expect(audit.filter((op: string) => op === 'POST /v1/webhook_endpoints/:id/rotate_secret')).toHaveLength(1);
});

test('resend: exactly one new recorded attempt with the same webhook-id, not retried; also to a disabled endpoint; 404s', async () => {
  const c = await srv.merchant();
  const ep = await endpoint(c, '/resend', ['payout_intent.created']);
  await payoutCreated(c);
  const [first] = await eventually(async () => forPath('/resend').length >= 1 && forPath('/resend'));
  const eventId = headersOf(first)['webhook-id'];
  await sleep(300);

  // A failing receiver: the resend is one attempt, not retried on the schedule.
  const previous = rx.respond;
  rx.respond = (req, n) => (req.path === '/resend' ? { status: 500 } : previous(req, n));
  try {
    const res = await c.post(`/v1/events/${eventId}/resend`, { webhook_endpoint: ep.id });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      object: 'webhook_delivery',
      id: expect.any(String),
      webhook_endpoint: ep.id,
      event: eventId,
      status: 'pending',
      created_at: expect.any(String),
    });
    await eventually(async () => forPath('/resend').length >= 2);
    await sleep(1000); // longer than the retry schedule: no further attempt
  } finally {
    rx.respond = previous;
  }
  const got = forPath('/resend');
  expect(got).toHaveLength(2);
  expect(headersOf(got[1])['webhook-id']).toBe(eventId);
  expect(got[1].body).toBe(first.body);
  expect(verifies(ep.secret, got[1])).toBe(true);
  const attempts = (await c.get(`/v1/webhook_endpoints/${ep.id}/attempts`)).body.data.map((a: any) => [a.event, a.status_code, a.attempt_number]);
  expect(attempts).toEqual([
    [eventId, 500, 1],
    [eventId, 200, 1],
  ]);

  // To a disabled endpoint, and one not subscribed to the type: sent (the caller named both).
  const other = await endpoint(c, '/resend-other', ['topup_intent.*']);
  expect((await c.post(`/v1/webhook_endpoints/${other.id}`, { status: 'disabled' })).status).toBe(200);
  expect((await c.post(`/v1/events/${eventId}/resend`, { webhook_endpoint: other.id })).status).toBe(202);
  await eventually(async () => forPath('/resend-other').length >= 1);
  expect(headersOf(forPath('/resend-other')[0])['webhook-id']).toBe(eventId);
  expect((await c.get(`/v1/webhook_endpoints/${other.id}`)).body.status).toBe('disabled');

  // Audit: the resend is recorded with its delivery.
  const audit = (await c.get(`/v1/audit_log?operation=${encodeURIComponent('POST /v1/events/:id/resend')}`)).body.data;
  expect(audit.map((a: any) => [a.resource_type, a.status_code])).toEqual([
    ['webhook_delivery', 202],
    ['webhook_delivery', 202],
  ]);

  // 404: unknown event, event or endpoint of another merchant or environment, deleted endpoint; 400 without the endpoint.
  const stranger = await srv.merchant(undefined, 'test', { fund: false });
  const strangerEp = await endpoint(stranger, '/resend-stranger');
  const live = await srv.keyFor(c.merchantId, 'live');
  const liveEp = await endpoint(live, '/resend-live');
  const notFound: [Client, string, string][] = [
    [c, 'evt_nope', ep.id],
    [c, eventId, 'we_nope'],
    [c, eventId, strangerEp.id],
    [c, eventId, liveEp.id],
    [stranger, eventId, strangerEp.id],
    [live, eventId, liveEp.id],
  ];
  for (const [client, evt, we] of notFound) {
    const res = await client.post(`/v1/events/${evt}/resend`, { webhook_endpoint: we });
    expect({ evt, we, status: res.status, code: res.body.error?.code }).toEqual({ evt, we, status: 404, code: 'not_found' });
  }
  expect((await c.request('DELETE', `/v1/webhook_endpoints/${other.id}`)).status).toBe(200);
  expect((await c.post(`/v1/events/${eventId}/resend`, { webhook_endpoint: other.id })).status).toBe(404);
  const missing = await c.post(`/v1/events/${eventId}/resend`, {});
  expect([missing.status, missing.body.error?.param]).toEqual([400, 'webhook_endpoint']);
  await sleep(300);
  expect(forPath('/resend-stranger')).toHaveLength(0);
  expect(forPath('/resend-live')).toHaveLength(0);
});

test('GraphQL: updateWebhookEndpoint, rotateWebhookEndpointSecret, resendEvent', async () => {
  const c = await srv.merchant();
  const ep = await endpoint(c, '/g', ['topup_intent.*']);
  const upd = await c.gql(
    `mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { id url enabledEvents status disabledReason secret } }`,
    { id: ep.id, input: { url: `${rx.url}/g2`, enabledEvents: ['payout_intent.created'], status: null } },
  );
  expect(upd.body.errors).toBeUndefined();
  expect(upd.body.data.updateWebhookEndpoint).toEqual({
    id: ep.id,
    url: `${rx.url}/g2`,
    enabledEvents: ['payout_intent.created'],
    status: 'enabled',
    disabledReason: null,
    secret: null,
  });
  const bad = await c.gql(`mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: { status: "paused" }) { id } }`, { id: ep.id });
  expect([bad.body.errors?.[0].extensions.code, bad.body.errors?.[0].extensions.param]).toEqual(['validation_error', 'input.status']);

  const rot = await c.gql(`mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { id secret } }`, { id: ep.id });
  expect(rot.body.errors).toBeUndefined();
  const newSecret = rot.body.data.rotateWebhookEndpointSecret.secret as string;
  expect(newSecret).toMatch(/^whsec_/);

  await payoutCreated(c);
  const [r] = await eventually(async () => forPath('/g2').length >= 1 && forPath('/g2'));
  expect([verifies(ep.secret, r), verifies(newSecret, r)]).toEqual([true, true]);
  const eventId = headersOf(r)['webhook-id'];
  const resent = await c.gql(`mutation($id: ID!, $we: ID!) { resendEvent(id: $id, webhookEndpointId: $we) { webhookEndpointId eventId status } }`, {
    id: eventId,
    we: ep.id,
  });
  expect(resent.body.errors).toBeUndefined();
  expect(resent.body.data.resendEvent).toEqual({ webhookEndpointId: ep.id, eventId, status: 'pending' });
  await eventually(async () => forPath('/g2').length >= 2);
  expect(headersOf(forPath('/g2')[1])['webhook-id']).toBe(eventId);
  const missing = await c.gql(`mutation($id: ID!) { resendEvent(id: $id, webhookEndpointId: "we_nope") { id } }`, { id: eventId });
  expect(missing.body.errors?.[0].extensions.code).toBe('not_found');
  const stranger = await srv.merchant(undefined, 'test', { fund: false });
  const foreign = await stranger.gql(`mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { id } }`, { id: ep.id });
  expect(foreign.body.errors?.[0].extensions.code).toBe('not_found');
});

test('every new answer matches its published model (update, rotate_secret, resend)', async () => {
  const ajv = addFormats(new Ajv({ strict: false }), ['date-time']);
  const expectModel = (schema: TSchema, value: unknown) => {
    const ok = ajv.validate(schema, value);
    expect({ value, errors: ok ? null : ajv.errors }).toEqual({ value, errors: null });
  };
  const c = await srv.merchant();
  const ep = await endpoint(c, '/models', ['payout_intent.created']);
  expectModel(WebhookEndpointSchema, (await c.post(`/v1/webhook_endpoints/${ep.id}`, { status: 'disabled' })).body);
  expectModel(WebhookEndpointWithSecretSchema, (await c.post(`/v1/webhook_endpoints/${ep.id}/rotate_secret`)).body);
  await payoutCreated(c);
  const event = (await c.get('/v1/events?limit=1')).body.data[0];
  const resent = await c.post(`/v1/events/${event.id}/resend`, { webhook_endpoint: ep.id });
  expect(resent.status).toBe(202);
  expectModel(WebhookDeliverySchema, resent.body);
});
