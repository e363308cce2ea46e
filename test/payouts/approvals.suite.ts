/**
 * Approval policies (four eyes), by API keys (`keys_count`): a payout at or above the policy's
 * amount needs N approvals from distinct principals, none its creator; each vote is recorded,
 * the Nth moves it; refusals change nothing; parallel last votes make exactly one transition.
 * Without a policy the spec's single approve stands. Member flows: test/payouts/approval-rules.spec.ts
 * (the rules) and the people work's end-to-end tests.
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { approvalsCommand } from '../../src/cli/approvals';
import { Client, payoutBody } from '../helpers/client';
import { approvalsModule } from '../../src/modules/approvals/approval.module';

let srv: TestServer;
let creator: Client;
let second: Client;
let third: Client;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
  creator = await srv.merchant();
  [second, third] = await Promise.all([1, 2].map(() => srv.keyFor(creator.merchantId)));
});
afterAll(async () => {
  await srv?.close();
});

async function setPolicy(client: Client, currency: string, minAmount: string, approvals: number, keysCount: boolean): Promise<void> {
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  const scope = { merchantId: client.merchantId, environment: client.key!.environment };
  await srv.app.db.tx((tx) => approvalPolicies.set(tx, scope, { currency, minAmount: BigInt(minAmount), approvals, keysCount }));
}

const actorOf = (c: Client) => ({ type: 'api_key', id: c.key!.apiKeyId, restricted: false });

async function createPayout(client: Client, amount: string): Promise<any> {
  const res = await client.post('/v1/payout_intents', payoutBody({ amount }), { idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  return res.body;
}

test('without a policy: approvals_required 1, one approve by the creator moves it (the spec), and the approval is listed', async () => {
  const m = await srv.merchant();
  const p = await createPayout(m, '500000');
  expect(p).toMatchObject({ status: 'requires_approval', approvals_required: 1, approvals: [] });
  const approved = await m.post(`/v1/payout_intents/${p.id}/approve`);
  expect(approved.status).toBe(202);
  expect(approved.body).toMatchObject({ status: 'processing', approvals_required: 1, approvals: [{ actor: actorOf(m), created_at: expect.any(String) }] });
});

test('keys_count policy: creator refused, a vote is 202 requires_approval, a repeat 409, the second vote moves it; REST and GraphQL show the votes', async () => {
  await setPolicy(creator, 'THB', '100000', 2, true);
  const p = await createPayout(creator, '100000');
  expect(p).toMatchObject({ status: 'requires_approval', approvals_required: 2, approvals: [] });
  const balance = (await creator.get('/v1/balances')).body;

  const own = await creator.post(`/v1/payout_intents/${p.id}/approve`);
  expect(own.status).toBe(403);
  expect(own.body.error.code).toBe('approval_by_creator');

  const first = await second.post(`/v1/payout_intents/${p.id}/approve`);
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ status: 'requires_approval', approvals: [{ actor: actorOf(second) }] });

  const again = await second.post(`/v1/payout_intents/${p.id}/approve`);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('approval_already_recorded');
  expect((await creator.get(`/v1/payout_intents/${p.id}`)).body).toMatchObject({ status: 'requires_approval', approvals: [{ actor: actorOf(second) }] });
  expect((await creator.get('/v1/balances')).body).toEqual(balance);

  const last = await third.post(`/v1/payout_intents/${p.id}/approve`);
  expect(last.status).toBe(202);
  expect(last.body.status).toBe('processing');
  expect(last.body.approvals.map((a: any) => a.actor.id)).toEqual([second.key!.apiKeyId, third.key!.apiKeyId]);

  const gql = await creator.gql(`{ payoutIntent(id: "${p.id}") { status approvalsRequired approvals { actor { type id restricted email } createdAt } } }`);
  expect(gql.body.data.payoutIntent).toEqual({
    status: 'PROCESSING',
    approvalsRequired: 2,
    approvals: [second, third].map((c) => ({ actor: { ...actorOf(c), email: null }, createdAt: expect.any(String) })),
  });
  const events = (await creator.get(`/v1/events?type=payout_intent.processing&limit=100`)).body.data.filter((e: any) => e.data.object.id === p.id);
  expect(events).toHaveLength(1);
});

test('below the amount, in another currency, or before the policy: the spec behaviour', async () => {
  await setPolicy(creator, 'THB', '100000', 2, true);
  const small = await createPayout(creator, '99999');
  expect(small.approvals_required).toBe(1);
  expect((await creator.post(`/v1/payout_intents/${small.id}/approve`)).body.status).toBe('processing');
});

test('a policy without keys_count: a key is refused approval_requires_member, nothing changes', async () => {
  const m = await srv.merchant();
  const other = await srv.keyFor(m.merchantId);
  await setPolicy(m, 'THB', '1000', 1, false);
  const p = await createPayout(m, '1000');
  expect(p.approvals_required).toBe(1);
  const res = await other.post(`/v1/payout_intents/${p.id}/approve`);
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('approval_requires_member');
  const gql = await other.gql(`mutation { approvePayoutIntent(id: "${p.id}") { status } }`);
  expect(gql.body.errors![0].extensions.code).toBe('approval_requires_member');
  expect((await m.get(`/v1/payout_intents/${p.id}`)).body).toMatchObject({ status: 'requires_approval', approvals: [] });
});

test('a policy change applies to payouts created after it; a deleted policy leaves earlier payouts their gate', async () => {
  const m = await srv.merchant();
  await setPolicy(m, 'THB', '1000', 2, true);
  const before = await createPayout(m, '5000');
  await setPolicy(m, 'THB', '1000', 3, true);
  const after = await createPayout(m, '5000');
  expect([before.approvals_required, after.approvals_required]).toEqual([2, 3]);
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  await srv.app.db.tx((tx) => approvalPolicies.remove(tx, { merchantId: m.merchantId, environment: 'test' }, 'THB'));
  expect((await createPayout(m, '5000')).approvals_required).toBe(1);
  expect((await m.get(`/v1/payout_intents/${after.id}`)).body.approvals_required).toBe(3);
});

test('parallel last votes: exactly one moves the payout, the others find it moved (422 invalid_state); one event, one vote each recorded', async () => {
  const m = await srv.merchant();
  const voters = await Promise.all([1, 2, 3, 4].map(() => srv.keyFor(m.merchantId)));
  await setPolicy(m, 'THB', '1000', 2, true);
  for (let round = 0; round < 3; round++) {
    const p = await createPayout(m, '2000');
    expect((await voters[0].post(`/v1/payout_intents/${p.id}/approve`)).status).toBe(202);
    const answers = await Promise.all(voters.slice(1).map((v) => v.post(`/v1/payout_intents/${p.id}/approve`)));
    const moved = answers.filter((a) => a.status === 202);
    expect(moved).toHaveLength(1);
    expect(moved[0].body.status).toBe('processing');
    for (const a of answers.filter((x) => x.status !== 202)) expect(a.body.error.code).toBe('invalid_state');
    const final = (await m.get(`/v1/payout_intents/${p.id}`)).body;
    expect(final.status).toBe('processing');
    expect(final.approvals).toHaveLength(2);
    const events = (await m.get(`/v1/events?type=payout_intent.processing&limit=100`)).body.data.filter((e: any) => e.data.object.id === p.id);
    expect(events).toHaveLength(1);
  }
});

test('REST and GraphQL policies: anyone with payout_intents:read lists them; setting needs an owner (REST has no such route, GraphQL refuses a key)', async () => {
  await setPolicy(creator, 'THB', '100000', 2, true);
  const list = await creator.get('/v1/approval_policies');
  expect(list.status).toBe(200);
  expect(list.body.data).toEqual([
    expect.objectContaining({ object: 'approval_policy', currency: 'THB', min_amount: '100000', approvals: 2, keys_count: true, environment: 'test' }),
  ]);
  // No REST route sets a policy: a key could never call it.
  const set = await creator.post('/v1/approval_policies', { currency: 'THB', min_amount: '1', approvals: 1 });
  expect(set.status).toBe(405);
  expect(set.body.error.code).toBe('method_not_allowed');
  expect((await creator.request('DELETE', '/v1/approval_policies/THB')).status).toBe(404);
  const gql = await creator.gql('{ approvalPolicies { currency minAmount approvals keysCount } }');
  expect(gql.body.data.approvalPolicies).toEqual([{ currency: 'THB', minAmount: '100000', approvals: 2, keysCount: true }]);
  const denied = await creator.gql('mutation { setApprovalPolicy(input: { currency: "THB", minAmount: "1", approvals: 1 }) { id } }');
  expect(denied.body.errors![0].extensions.code).toBe('permission_denied');
  const restricted = await srv.keyFor(creator.merchantId, 'test', ['balances:read']);
  expect((await restricted.get('/v1/approval_policies')).status).toBe(403);
});

test('cli approvals set / list / delete (the command, run in process)', async () => {
  const m = await srv.merchant();
  const run = async (command: string, args: Record<string, string>, flags: string[] = []) => {
    const out: unknown[] = [];
    const code = await approvalsCommand(srv.app, command, {
      option: (name) => ({ merchant: m.merchantId, env: 'test', ...args })[name],
      flag: (name) => flags.includes(name),
      fail: (message) => {
        throw new Error(message);
      },
      print: (value) => out.push(value),
    }).catch((err: Error) => err.message);
    return { code, out: out[0] as any };
  };
  const set = await run('set', { currency: 'THB', 'min-amount': '100000', approvals: '2' }, ['keys-count']);
  expect(set.code).toBe(0);
  expect(set.out).toMatchObject({ object: 'approval_policy', currency: 'THB', min_amount: '100000', approvals: 2, keys_count: true });
  expect((await createPayout(m, '100000')).approvals_required).toBe(2);
  expect((await run('list', {})).out).toHaveLength(1);
  expect((await run('set', { currency: 'THB', 'min-amount': '1', approvals: '4' })).code).toMatch(/approvals/);
  expect((await run('delete', { currency: 'THB' })).code).toBe(0);
  expect((await createPayout(m, '100000')).approvals_required).toBe(1);
});
