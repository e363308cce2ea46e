/**
 * API key management (REST /v1/api_keys and GraphQL apiKeys, createApiKey, rollApiKey,
 * revokeApiKey): only an unrestricted key or a member whose role may manage keys; the secret
 * is in the create and roll answers only (never stored or recorded in clear, an Idempotency-Key
 * replay answers the sealed answer); a rolled key works until its overlap ends, then 401, and
 * its sockets close; a revoked key's close at once; every action is in the audit log with its actor.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, eventually, payoutBody } from '../helpers/client';
import { addMember } from '../helpers/members';
import { ApiKey } from '../../src/modules/auth/api-key.entity';

/** Every line the service logs (at trace): no secret may be in one. */
const logLines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(chunk.toString());
    done();
  },
});

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ env: { REVOCATION_POLL_MS: '100', LOG_LEVEL: 'trace' }, logDestination: capture });
});
afterAll(async () => {
  await srv?.close();
});

/** A client authenticating with a key the API answered. */
const clientOf = (owner: Client, key: { id: string; public_key: string; secret_key: string }) =>
  new Client(srv.url, `${key.public_key}:${key.secret_key}`, { ...owner.key!, apiKeyId: key.id });

/** Every table row that could hold text, as one string: a secret must appear in none. */
async function everyStoredText(): Promise<string> {
  const tables = ['api_keys', 'audit_log', 'idempotency_keys', 'events'];
  const dumps = await Promise.all(tables.map((t) => srv.app.db.read((em) => em.query(`SELECT * FROM ${t}`))));
  return JSON.stringify(dumps);
}

/** A graphql-ws socket subscribed to events with `c`'s key; resolves `closed` with the close code. */
async function openSocket(c: Client): Promise<{ closed: Promise<number>; dispose: () => Promise<void> }> {
  let closedWith!: (code: number) => void;
  const closed = new Promise<number>((r) => (closedWith = r));
  const client = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: c.authorization },
    retryAttempts: 0,
    on: { closed: (e: any) => closedWith(e?.code ?? 0) },
  });
  const before = srv.app.eventHub.streamCount;
  client.subscribe({ query: 'subscription { events { id } }' }, { next: () => undefined, error: () => undefined, complete: () => undefined });
  await eventually(async () => srv.app.eventHub.streamCount > before, 5000, 10);
  return { closed, dispose: () => client.dispose() as Promise<void> };
}

test('an unrestricted key creates a restricted key: rk_ secret shown once, works at once with its grants only; the listing shows it without a secret, with its last use', async () => {
  const owner = await srv.merchant();
  const created = await owner.post('/v1/api_keys', { permissions: ['payout_intents:read', 'events:read'] });
  expect(created.status).toBe(201);
  expect(created.body).toEqual({
    object: 'api_key',
    name: null,
    id: expect.stringMatching(/^key_/),
    environment: 'test',
    public_key: expect.stringMatching(/^pk_test_/),
    secret_key: expect.stringMatching(/^rk_test_/),
    restricted: true,
    permissions: ['payout_intents:read', 'events:read'],
    status: 'active',
    created_at: expect.any(String),
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
  });
  const rk = clientOf(owner, created.body);
  expect((await rk.get('/v1/payout_intents')).status).toBe(200);
  const refused = await rk.post('/v1/payout_intents', payoutBody());
  expect([refused.status, refused.body.error.code]).toEqual([403, 'permission_denied']);
  // A restricted key may not manage keys.
  expect((await rk.get('/v1/api_keys')).status).toBe(403);
  expect((await rk.post('/v1/api_keys', {})).status).toBe(403);

  const list = await owner.get('/v1/api_keys');
  expect(list.status).toBe(200);
  expect(list.body.has_more).toBe(false);
  const listed = list.body.data.find((k: any) => k.id === created.body.id);
  expect(listed).toEqual({ ...created.body, secret_key: undefined, last_used_at: expect.any(String) });
  expect(listed).not.toHaveProperty('secret_key');
  expect(list.body.data.map((k: any) => k.id)).toContain(owner.key!.apiKeyId);

  // A full key (no permissions) is an sk_ key.
  const full = await owner.post('/v1/api_keys', {});
  expect(full.body).toMatchObject({ secret_key: expect.stringMatching(/^sk_test_/), restricted: false, permissions: null });
  expect((await clientOf(owner, full.body).post('/v1/payout_intents', payoutBody())).status).toBe(201);

  const stored = await everyStoredText();
  expect(stored).not.toContain(created.body.secret_key);
  expect(stored).not.toContain(full.body.secret_key);
});

test('roll: the new secret works at once, the old one until the overlap ends, then 401 and its socket closes; overlap over 168 hours is refused', async () => {
  const owner = await srv.merchant();
  const made = (await owner.post('/v1/api_keys', { permissions: ['payout_intents:write', 'events:read'] })).body;
  const old = clientOf(owner, made);

  const tooLong = await owner.post(`/v1/api_keys/${made.id}/roll`, { overlap_hours: 169 });
  expect([tooLong.status, tooLong.body.error.code, tooLong.body.error.param]).toEqual([400, 'validation_error', 'overlap_hours']);

  const rolled = await owner.post(`/v1/api_keys/${made.id}/roll`, { overlap_hours: 2 });
  expect(rolled.status).toBe(201);
  expect(rolled.body).toMatchObject({ restricted: true, permissions: made.permissions, status: 'active', secret_key: expect.stringMatching(/^rk_test_/) });
  expect(rolled.body.id).not.toBe(made.id);
  const fresh = clientOf(owner, rolled.body);
  expect((await fresh.get('/v1/payout_intents')).status).toBe(200);
  expect((await old.get('/v1/payout_intents')).status).toBe(200);

  const listed = (await owner.get('/v1/api_keys')).body.data.find((k: any) => k.id === made.id);
  expect(listed.status).toBe('expiring');
  const expires = Date.parse(listed.expires_at);
  expect(expires - Date.now()).toBeGreaterThan(2 * 3600_000 - 60_000);
  expect(expires - Date.now()).toBeLessThanOrEqual(2 * 3600_000);

  // A rolled key is not rolled again.
  const again = await owner.post(`/v1/api_keys/${made.id}/roll`, {});
  expect([again.status, again.body.error.code]).toEqual([422, 'invalid_state']);

  // The overlap ends (its end moved to now, as two hours passing would): 401, and the old key's socket closes.
  // Written straight to the database, behind the service's back: this process's copy of the
  // key (it was just used) lapses within API_KEY_CACHE_MS (500 ms), well within a second.
  const socket = await openSocket(old);
  expect((await old.get('/v1/payout_intents')).status).toBe(200);
  const endedAt = Date.now();
  await srv.app.db.tx((em) => em.update(ApiKey, { id: made.id }, { expiresAt: new Date(Date.now() - 1) }));
  await eventually(async () => (await old.get('/v1/payout_intents')).status === 401, 1000, 20);
  expect(Date.now() - endedAt).toBeLessThan(1000);
  expect(await socket.closed).toBe(4403);
  await socket.dispose();
  expect((await fresh.get('/v1/payout_intents')).status).toBe(200);
  expect((await owner.get('/v1/api_keys')).body.data.find((k: any) => k.id === made.id).status).toBe('expired');

  // overlap 0: the old secret stops at once, though this process held it in memory a moment ago.
  expect((await fresh.post('/v1/payout_intents', payoutBody())).status).toBe(201);
  const zero = await owner.post(`/v1/api_keys/${rolled.body.id}/roll`, { overlap_hours: 0 });
  expect(zero.status).toBe(201);
  expect((await fresh.get('/v1/payout_intents')).status).toBe(401);
  expect((await clientOf(owner, zero.body).get('/v1/payout_intents')).status).toBe(200);
  expect(await everyStoredText()).not.toContain(zero.body.secret_key);
});

test('a key is named at create: REST and GraphQL show the name, a roll keeps it; a blank or over-long name is refused and creates nothing', async () => {
  const owner = await srv.merchant();
  const created = await owner.post('/v1/api_keys', { name: '  Checkout server ' });
  expect(created.status).toBe(201);
  expect(created.body.name).toBe('Checkout server');
  const rolled = await owner.post(`/v1/api_keys/${created.body.id}/roll`, { overlap_hours: 0 });
  expect(rolled.status).toBe(201);
  expect(rolled.body).toMatchObject({ name: 'Checkout server', id: expect.not.stringMatching(created.body.id) });
  const gql = await owner.gql('mutation { createApiKey(input: { name: "Reports job", permissions: ["report_runs:read"] }) { id name restricted } }');
  expect(gql.body.data.createApiKey).toMatchObject({ name: 'Reports job', restricted: true });
  const listed = (await owner.gql('{ apiKeys { id name } }')).body.data.apiKeys as { id: string; name: string | null }[];
  expect(listed.find((k) => k.id === rolled.body.id)?.name).toBe('Checkout server');
  expect(listed.find((k) => k.id === gql.body.data.createApiKey.id)?.name).toBe('Reports job');
  const before = (await owner.get('/v1/api_keys')).body.data.length;
  for (const name of ['', '   ', 'x'.repeat(101), 42]) {
    const bad = await owner.post('/v1/api_keys', { name });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  }
  expect((await owner.get('/v1/api_keys')).body.data.length).toBe(before);
});

test('revoke: 401 at once and the open socket closes; revoking again answers it unchanged; an unknown or foreign id is 404', async () => {
  const owner = await srv.merchant();
  const made = (await owner.post('/v1/api_keys', {})).body;
  const victim = clientOf(owner, made);
  const socket = await openSocket(victim);
  // Used just before: this process holds the key in memory when it is revoked.
  expect((await victim.get('/v1/payout_intents')).status).toBe(200);
  const revoked = await owner.post(`/v1/api_keys/${made.id}/revoke`, {});
  expect(revoked.status).toBe(200);
  expect(revoked.body).toMatchObject({ id: made.id, status: 'revoked', revoked_at: expect.any(String) });
  expect(revoked.body).not.toHaveProperty('secret_key');
  expect((await victim.get('/v1/payout_intents')).status).toBe(401);
  expect(await socket.closed).toBe(4403);
  await socket.dispose();
  const again = await owner.post(`/v1/api_keys/${made.id}/revoke`, {});
  expect(again.body.revoked_at).toBe(revoked.body.revoked_at);

  const other = await srv.merchant();
  expect((await other.post(`/v1/api_keys/${made.id}/revoke`, {})).status).toBe(404);
  expect((await other.post(`/v1/api_keys/${made.id}/roll`, {})).status).toBe(404);
  expect((await owner.post('/v1/api_keys/key_nope/revoke', {})).status).toBe(404);
  // The other merchant does not see it.
  expect((await other.get('/v1/api_keys')).body.data.map((k: any) => k.id)).not.toContain(made.id);
});

test('an Idempotency-Key replay answers the same key (the sealed answer), creating no second key; the stored answer holds no secret in clear', async () => {
  const owner = await srv.merchant();
  const key = randomUUID();
  const first = await owner.post('/v1/api_keys', { permissions: ['balances:read'] }, { idempotencyKey: key });
  const second = await owner.post('/v1/api_keys', { permissions: ['balances:read'] }, { idempotencyKey: key });
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);
  expect(second.body).toEqual(first.body);
  const count = await srv.app.db.read((em) => em.count(ApiKey, { where: { merchantId: owner.merchantId } }));
  expect(count).toBe(2);
  expect(await everyStoredText()).not.toContain(first.body.secret_key);
});

test('members: an admin manages keys over GraphQL, the audit log names them; a developer cannot give more than their role; finance and viewers may not manage keys', async () => {
  const owner = await srv.merchant();
  const admin = await addMember(srv, owner.merchantId, `admin-${randomUUID()}@example.com`, 'admin');
  const created = await admin.gql(
    'mutation { createApiKey(input: { permissions: ["payout_intents:write"] }) { id publicKey secretKey restricted permissions status lastUsedAt } }',
  );
  expect(created.body.errors).toBeUndefined();
  const k = created.body.data.createApiKey;
  expect(k).toMatchObject({
    restricted: true,
    permissions: ['payout_intents:write'],
    status: 'ACTIVE',
    lastUsedAt: null,
    secretKey: expect.stringMatching(/^rk_test_/),
  });

  const listed = await admin.gql('{ apiKeys { id secretKey status } }');
  expect(listed.body.data.apiKeys).toContainEqual({ id: k.id, secretKey: null, status: 'ACTIVE' });

  const rolled = await admin.gql('mutation($id: ID!) { rollApiKey(id: $id, overlapHours: 168) { id secretKey expiresAt } }', { id: k.id });
  expect(rolled.body.errors).toBeUndefined();
  const tooLong = await admin.gql('mutation($id: ID!) { rollApiKey(id: $id, overlapHours: 169) { id } }', { id: rolled.body.data.rollApiKey.id });
  expect(tooLong.body.errors![0].extensions.code).toBe('validation_error');
  const revoked = await admin.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id status revokedAt } }', { id: rolled.body.data.rollApiKey.id });
  expect(revoked.body.data.revokeApiKey).toMatchObject({ status: 'REVOKED', revokedAt: expect.any(String) });

  const memberActor = { type: 'member', id: admin.userId, email: admin.email };
  const audit = (await owner.get('/v1/audit_log?limit=100')).body.data.filter((a: any) => a.resource_type === 'api_key');
  expect(audit.map((a: any) => [a.operation, a.actor])).toEqual([
    ['POST /v1/api_keys/:id/revoke', memberActor],
    ['POST /v1/api_keys/:id/roll', memberActor],
    ['POST /v1/api_keys', memberActor],
  ]);
  expect(await everyStoredText()).not.toContain(k.secretKey);

  // A key's own management is audited with the key as actor.
  const byKey = await owner.post(`/v1/api_keys/${k.id}/revoke`, {});
  expect(byKey.status).toBe(200);
  const entry = (await owner.get(`/v1/audit_log?resource_id=${k.id}`)).body.data[0];
  expect(entry).toMatchObject({ operation: 'POST /v1/api_keys/:id/revoke', actor: { type: 'api_key', id: owner.key!.apiKeyId, restricted: false } });

  const developer = await addMember(srv, owner.merchantId, `dev-${randomUUID()}@example.com`, 'developer');
  const readOnly = await developer.post('/v1/api_keys', { permissions: ['payout_intents:read', 'webhook_endpoints:write'] });
  expect(readOnly.status).toBe(201);
  const fullByDev = await developer.post('/v1/api_keys', {});
  expect([fullByDev.status, fullByDev.body.error.code]).toEqual([403, 'permission_denied']);
  expect(fullByDev.body.error.message).toContain('payment_intents:write');
  const writeByDev = await developer.post('/v1/api_keys', { permissions: ['payout_intents:write'] });
  expect(writeByDev.body.error.message).toContain('payout_intents:write');
  // Nor roll a key that may do more than the developer.
  const rollByDev = await developer.post(`/v1/api_keys/${owner.key!.apiKeyId}/roll`, {});
  expect([rollByDev.status, rollByDev.body.error.code]).toEqual([403, 'permission_denied']);
  // Nor revoke it, on REST or GraphQL; the key keeps working. A key within the role's grants the developer may revoke.
  const revokeByDev = await developer.post(`/v1/api_keys/${owner.key!.apiKeyId}/revoke`, {});
  expect([revokeByDev.status, revokeByDev.body.error.code]).toEqual([403, 'permission_denied']);
  expect(revokeByDev.body.error.message).toContain('payment_intents:write');
  const gqlRevokeByDev = await developer.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: owner.key!.apiKeyId });
  expect(gqlRevokeByDev.body.errors![0].extensions.code).toBe('permission_denied');
  const writeKey = await owner.post('/v1/api_keys', { permissions: ['payout_intents:write'] });
  const gqlRollByDev = await developer.gql('mutation($id: ID!) { rollApiKey(id: $id) { id } }', { id: writeKey.body.id });
  expect(gqlRollByDev.body.errors![0].extensions.code).toBe('permission_denied');
  expect((await developer.post(`/v1/api_keys/${writeKey.body.id}/revoke`, {})).status).toBe(403);
  expect((await owner.get('/v1/balances')).status).toBe(200);
  expect((await owner.get('/v1/api_keys')).body.data.filter((x: any) => x.status === 'revoked').map((x: any) => x.id)).not.toContain(owner.key!.apiKeyId);
  const ownRevoke = await developer.post(`/v1/api_keys/${readOnly.body.id}/revoke`, {});
  expect([ownRevoke.status, ownRevoke.body.status]).toEqual([200, 'revoked']);

  for (const role of ['finance', 'viewer'] as const) {
    const m = await addMember(srv, owner.merchantId, `${role}-${randomUUID()}@example.com`, role);
    const res = await m.get('/v1/api_keys');
    expect([res.status, res.body.error.code]).toEqual([403, 'permission_denied']);
    const gql = await m.gql('{ apiKeys { id } }');
    expect(gql.body.errors![0].extensions.code).toBe('permission_denied');
  }
});

test('the service log (at trace) never carries a secret key', () => {
  expect(logLines.length).toBeGreaterThan(10);
  expect(logLines.join('\n')).not.toMatch(/(?:sk|rk)_(?:test|live)_[A-Za-z0-9]{16}/);
});
