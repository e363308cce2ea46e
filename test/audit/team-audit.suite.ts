/**
 * Who did what on the team: an invite, a new setup link, a role change and a removal are each
 * an audit entry naming the member who made it (refused changes leave none); a new setup link
 * retires the earlier one; the audit log filters by actor (a member's user id or a key's id),
 * on REST and GraphQL, and refuses a malformed actor.
 */
import { startServer, type TestServer } from '../helpers/server';
import { addMember, dashboardPost, PASSWORD, type MemberClient } from '../helpers/members';

let srv: TestServer;
let merchantId: string;
let owner: MemberClient;
let admin: MemberClient;

const INVITE = 'mutation($e: String!, $r: Role!) { inviteMember(email: $e, role: $r) { userId setupUrl } }';
const REISSUE = 'mutation($u: ID!) { issueSetupLink(userId: $u) { userId setupUrl } }';
const CHANGE = 'mutation($u: ID!, $r: Role!) { changeMemberRole(userId: $u, role: $r) { id role } }';
const REMOVE = 'mutation($u: ID!) { removeMember(userId: $u) }';
const AUDIT = 'query($f: AuditLogFilter) { auditLog(first: 50, filter: $f) { nodes { operation resourceType resourceId actor { type id email } } } }';
const codeOf = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;
const tokenOf = (url: string) => url.slice(url.indexOf('#setup=') + 7);
type Entry = { operation: string; resourceType: string; resourceId: string; actor: { type: string; id: string; email: string | null } };

beforeAll(async () => {
  srv = await startServer({ env: { REDIS_URL: '' } });
  merchantId = (await srv.app.auth.createMerchant(`Team audit ${process.pid}`)).id;
  owner = await addMember(srv, merchantId, `owner.${process.pid}@audit.example`, 'owner');
  admin = await addMember(srv, merchantId, `admin.${process.pid}@audit.example`, 'admin');
});
afterAll(async () => {
  await srv?.close();
});

test('invite, new setup link, role change and removal are audited with the member who made them', async () => {
  const invited = await admin.gql(INVITE, { e: `dev.${process.pid}@audit.example`, r: 'DEVELOPER' });
  const devId = invited.body.data.inviteMember.userId as string;
  const first = invited.body.data.inviteMember.setupUrl as string;
  // A new link: the first stops working, the new one works once.
  const reissued = await admin.gql(REISSUE, { u: devId });
  expect(reissued.body.errors).toBeUndefined();
  const second = reissued.body.data.issueSetupLink.setupUrl as string;
  expect(second).not.toBe(first);
  expect((await dashboardPost(srv, '/dashboard/setup', { token: tokenOf(first), password: PASSWORD })).status).toBe(404);
  expect((await dashboardPost(srv, '/dashboard/setup', { token: tokenOf(second), password: PASSWORD })).status).toBe(200);
  // Once the password is set there is nothing to set up: refused, and not audited.
  expect(codeOf(await admin.gql(REISSUE, { u: devId }))).toBe('invalid_state');
  expect((await owner.gql(CHANGE, { u: devId, r: 'VIEWER' })).body.data.changeMemberRole.role).toBe('VIEWER');
  // A refused change (an admin may not demote an owner) leaves no entry.
  expect(codeOf(await admin.gql(CHANGE, { u: owner.userId, r: 'VIEWER' }))).toBe('permission_denied');
  expect((await owner.gql(REMOVE, { u: devId })).body.data.removeMember).toBe(true);

  const nodes = (await owner.gql(AUDIT, { f: { resourceId: devId } })).body.data.auditLog.nodes as Entry[];
  const adminActor = { type: 'member', id: admin.userId, email: admin.email };
  const ownerActor = { type: 'member', id: owner.userId, email: owner.email };
  expect(nodes.map((n) => [n.operation, n.resourceType, n.actor])).toEqual([
    ['removeMember', 'member', ownerActor],
    ['changeMemberRole', 'member', ownerActor],
    ['issueSetupLink', 'member', adminActor],
    ['inviteMember', 'member', adminActor],
  ]);
  const byOperation = await owner.get(`/v1/audit_log?operation=changeMemberRole`);
  expect(byOperation.status).toBe(200);
  expect(byOperation.body.data.map((e: { resource_id: string }) => e.resource_id)).toContain(devId);
});

test('the audit log filters by actor, on REST and GraphQL: a member, or an API key', async () => {
  const key = await srv.keyFor(merchantId);
  const created = await owner.post('/v1/api_keys', {});
  expect(created.status).toBe(201);
  await key.post('/v1/webhook_endpoints', { url: 'https://example.com/hook', enabled_events: ['*'] });
  const mine = (await owner.gql(AUDIT, { f: { actor: owner.userId } })).body.data.auditLog.nodes as Entry[];
  expect(mine.length).toBeGreaterThanOrEqual(3);
  expect(mine.every((n) => n.actor.id === owner.userId)).toBe(true);
  expect(mine.map((n) => n.operation)).toContain('POST /v1/api_keys');
  const rest = await owner.get(`/v1/audit_log?actor=${admin.userId}`);
  expect(rest.status).toBe(200);
  expect(rest.body.data.length).toBeGreaterThanOrEqual(2);
  expect(rest.body.data.every((e: { actor: { id: string } }) => e.actor.id === admin.userId)).toBe(true);
  const byKey = (await owner.get(`/v1/audit_log?actor=${key.key!.apiKeyId}`)).body.data as { actor: { type: string; id: string }; operation: string }[];
  expect(byKey).toEqual([
    expect.objectContaining({ operation: 'POST /v1/webhook_endpoints', actor: expect.objectContaining({ type: 'api_key', id: key.key!.apiKeyId }) }),
  ]);
  const bad = await owner.get('/v1/audit_log?actor=not%20an%20id');
  expect(bad.status).toBe(400);
  expect(codeOf(await owner.gql(AUDIT, { f: { actor: 'DROP TABLE' } }))).toBe('validation_error');
});

test("an owner issues a password reset link: it sets a new password once and ends the person's sessions; admins may not; a person without a password gets a setup link instead", async () => {
  const RESET = 'mutation($u: ID!) { issuePasswordResetLink(userId: $u) { userId setupUrl } }';
  const person = await addMember(srv, merchantId, `forgot.${process.pid}@audit.example`, 'finance');
  expect((await person.gql('{ me { id } }')).body.data.me.id).toBe(person.userId);
  expect(codeOf(await admin.gql(RESET, { u: person.userId }))).toBe('permission_denied');
  const first = (await owner.gql(RESET, { u: person.userId })).body.data.issuePasswordResetLink.setupUrl as string;
  const second = (await owner.gql(RESET, { u: person.userId })).body.data.issuePasswordResetLink.setupUrl as string;
  expect((await dashboardPost(srv, '/dashboard/setup', { token: tokenOf(first), password: 'a fresh passphrase here' })).status).toBe(404);
  expect((await dashboardPost(srv, '/dashboard/setup', { token: tokenOf(second), password: 'a fresh passphrase here' })).status).toBe(200);
  expect((await dashboardPost(srv, '/dashboard/setup', { token: tokenOf(second), password: 'another passphrase now' })).status).toBe(404);
  // The old session ended; the new password signs in.
  expect((await person.gql('{ me { id } }')).status).toBe(401);
  expect((await dashboardPost(srv, '/dashboard/sign-in', { email: person.email, password: 'a fresh passphrase here' })).status).toBe(200);
  const invited = await owner.gql(INVITE, { e: `new.${process.pid}@audit.example`, r: 'VIEWER' });
  expect(codeOf(await owner.gql(RESET, { u: invited.body.data.inviteMember.userId }))).toBe('invalid_state');
  const entries = (await owner.gql(AUDIT, { f: { resourceId: person.userId } })).body.data.auditLog.nodes as Entry[];
  expect(entries.filter((n) => n.operation === 'issuePasswordResetLink')).toHaveLength(2);
});
