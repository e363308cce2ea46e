/**
 * Approval policies as the dashboard sets them (GraphQL setApprovalPolicy /
 * deleteApprovalPolicy): owners list, add, change and delete them; every other role and every
 * API key is refused and changes nothing; in live mode a change needs an authentication code
 * from the last 5 minutes, as a live approval does; each change is in the audit log with its
 * actor; every role reads the policies and the fee schedule.
 */
import { startServer, type TestServer } from '../helpers/server';
import { addMember, enrolTotp, signedInAs, type MemberClient } from '../helpers/members';
import { totpCode } from '../../src/modules/people/credentials';
import { Session } from '../../src/modules/people/session.entity';
import type { Role } from '../../src/domain/permissions';

let srv: TestServer;
let merchantId: string;
let owner: MemberClient;
const others: Partial<Record<Role, MemberClient>> = {};

const SET = 'mutation($i: SetApprovalPolicyInput!) { setApprovalPolicy(input: $i) { id currency minAmount approvals keysCount } }';
const DELETE = 'mutation($id: ID!) { deleteApprovalPolicy(id: $id) { id currency } }';
const LIST = '{ approvalPolicies { id currency minAmount approvals keysCount } feeSchedule { taxBps } }';
const codeOf = (res: { body: { errors?: { extensions: { code: string } }[] } }) => res.body.errors?.[0]?.extensions.code;
const email = (who: string) => `${who}.${process.pid}@policy.example`;

beforeAll(async () => {
  srv = await startServer({ env: { REDIS_URL: '' } });
  merchantId = (await srv.app.auth.createMerchant(`Policies ${process.pid}`)).id;
  owner = await addMember(srv, merchantId, email('owner'), 'owner');
  for (const role of ['admin', 'developer', 'finance', 'viewer'] as const) others[role] = await addMember(srv, merchantId, email(role), role);
});
afterAll(async () => {
  await srv?.close();
});

test('an owner adds, changes and deletes a policy; every role reads the policies and the fee schedule', async () => {
  const added = await owner.gql(SET, { i: { currency: 'thb', minAmount: '100000', approvals: 2 } });
  expect(added.body.errors).toBeUndefined();
  expect(added.body.data.setApprovalPolicy).toMatchObject({ currency: 'THB', minAmount: '100000', approvals: 2, keysCount: false });
  const id = added.body.data.setApprovalPolicy.id as string;
  const changed = await owner.gql(SET, { i: { currency: 'THB', minAmount: '500000', approvals: 3, keysCount: true } });
  expect(changed.body.data.setApprovalPolicy).toEqual({ id, currency: 'THB', minAmount: '500000', approvals: 3, keysCount: true });
  for (const member of Object.values(others)) {
    const read = await member.gql(LIST);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.approvalPolicies).toEqual([{ id, currency: 'THB', minAmount: '500000', approvals: 3, keysCount: true }]);
    expect(read.body.data).toHaveProperty('feeSchedule');
  }
  const deleted = await owner.gql(DELETE, { id });
  expect(deleted.body.data.deleteApprovalPolicy).toEqual({ id, currency: 'THB' });
  expect((await owner.gql(LIST)).body.data.approvalPolicies).toEqual([]);
  // Each change is audited with the owner as its actor.
  const audit = await owner.gql('{ auditLog(first: 10) { nodes { operation resourceId actor { type id email } } } }');
  const policyEntries = audit.body.data.auditLog.nodes.filter((n: { operation: string }) => n.operation.includes('approval_policies'));
  expect(policyEntries).toHaveLength(3);
  for (const e of policyEntries) expect(e).toMatchObject({ resourceId: id, actor: { type: 'member', id: owner.userId, email: owner.email } });
});

test('admins, developers, finance, viewers and API keys cannot set or delete a policy, and nothing changes', async () => {
  const kept = await owner.gql(SET, { i: { currency: 'USD', minAmount: '1000', approvals: 2 } });
  const id = kept.body.data.setApprovalPolicy.id as string;
  const key = await srv.keyFor(merchantId);
  for (const caller of [...Object.values(others), key]) {
    expect(codeOf(await caller.gql(SET, { i: { currency: 'USD', minAmount: '1', approvals: 1 } }))).toBe('permission_denied');
    expect(codeOf(await caller.gql(SET, { i: { currency: 'EUR', minAmount: '1', approvals: 1 } }))).toBe('permission_denied');
    expect(codeOf(await caller.gql(DELETE, { id }))).toBe('permission_denied');
  }
  expect((await owner.gql(LIST)).body.data.approvalPolicies).toEqual([{ id, currency: 'USD', minAmount: '1000', approvals: 2, keysCount: false }]);
  expect(codeOf(await owner.gql(SET, { i: { currency: 'USD', minAmount: '-5', approvals: 2 } }))).toBe('validation_error');
  expect(codeOf(await owner.gql(SET, { i: { currency: 'USD', minAmount: '5', approvals: 4 } }))).toBe('validation_error');
  expect((await owner.gql(LIST)).body.data.approvalPolicies).toEqual([{ id, currency: 'USD', minAmount: '1000', approvals: 2, keysCount: false }]);
});

test('in live mode an owner changes a policy only with an authentication code from the last 5 minutes', async () => {
  const liveOwner = await addMember(srv, merchantId, email('live-owner'), 'owner');
  const { secret, recoveryCodes } = await enrolTotp(liveOwner);
  const me = await signedInAs(srv, liveOwner.email, liveOwner.userId, merchantId, totpCode(secret, Date.now() + 30_000));
  const live = await me.gql('mutation($m: ID!) { switchMerchant(merchantId: $m, environment: LIVE) { environment } }', { m: merchantId });
  expect(live.body.data.switchMerchant.environment).toBe('LIVE');
  // The code of the sign-in is fresh: the change goes through.
  const set = await me.gql(SET, { i: { currency: 'THB', minAmount: '100', approvals: 2 } });
  expect(set.body.data.setApprovalPolicy).toMatchObject({ currency: 'THB', minAmount: '100' });
  // Six minutes later it is refused and changes nothing, until a new code is entered.
  const sessions = (await me.gql('{ sessions { id current } }')).body.data.sessions as { id: string; current: boolean }[];
  const current = sessions.find((s) => s.current)!.id;
  await srv.app.db.tx((tx) => tx.update(Session, { id: current }, { secondFactorAt: new Date(Date.now() - 6 * 60_000) }));
  const stale = await me.gql(SET, { i: { currency: 'THB', minAmount: '999', approvals: 3 } });
  expect(codeOf(stale)).toBe('permission_denied');
  expect(stale.body.errors![0].message).toMatch(/authentication code/);
  expect(codeOf(await me.gql(DELETE, { id: 'THB' }))).toBe('permission_denied');
  expect((await me.gql(LIST)).body.data.approvalPolicies).toMatchObject([{ currency: 'THB', minAmount: '100', approvals: 2 }]);
  const again = await me.gql('mutation($c: String!) { confirmSecondFactor(code: $c) }', { c: recoveryCodes[0] });
  expect(again.body.errors).toBeUndefined();
  expect((await me.gql(SET, { i: { currency: 'THB', minAmount: '999', approvals: 3 } })).body.data.setApprovalPolicy).toMatchObject({ minAmount: '999' });
  expect((await me.gql(DELETE, { id: 'THB' })).body.data.deleteApprovalPolicy).toMatchObject({ currency: 'THB' });
});
