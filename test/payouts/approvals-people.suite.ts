/**
 * Approvals count people, not keys: a key counts as the member who made it (or, made by
 * another key, as that key's person; the operator's CLI keys each count as themselves). Two
 * approvals by one person's keys, or by a person and their own key, count once (409
 * approval_already_recorded), and the creator rule covers the keys the creator made
 * (403 approval_by_creator), for payout intents and payout batches alike, in parallel too.
 */
import { randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { addMember, MemberClient } from '../helpers/members';
import { approvalsModule } from '../../src/modules/approvals/approval.module';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ scheduler: false });
});
afterAll(async () => {
  await srv?.close();
});

async function keysCountPolicy(c: Client, approvals: number): Promise<void> {
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  const scope = { merchantId: c.merchantId, environment: 'test' as const };
  await srv.app.db.tx((tx) => approvalPolicies.set(tx, scope, { currency: 'THB', minAmount: 1000n, approvals, keysCount: true }));
}

/** A key made by `maker` (a member over GraphQL, or a key over REST), as a client. */
async function keyMadeBy(owner: Client, maker: Client): Promise<Client> {
  const permissions = ['payout_approvals:write', 'payout_intents:read', 'payout_batches:read'];
  if (maker instanceof MemberClient) {
    const made = await maker.gql('mutation($p: [String!]) { createApiKey(input: { permissions: $p }) { id publicKey secretKey } }', { p: permissions });
    expect(made.body.errors).toBeUndefined();
    const k = made.body.data.createApiKey;
    return new Client(srv.url, `${k.publicKey}:${k.secretKey}`, { ...owner.key!, apiKeyId: k.id });
  }
  const made = await maker.post('/v1/api_keys', { permissions }, { idempotencyKey: randomUUID() });
  expect(made.status).toBe(201);
  return new Client(srv.url, `${made.body.public_key}:${made.body.secret_key}`, { ...owner.key!, apiKeyId: made.body.id });
}

async function newPayout(c: Client, amount = '5000'): Promise<string> {
  const res = await c.post('/v1/payout_intents', payoutBody({ amount }), { idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('requires_approval');
  return res.body.id;
}

async function newBatch(c: Client): Promise<string> {
  const items = [1, 2].map(() => payoutBody({ amount: '3000', merchant_reference: ref('pb') }));
  const res = await c.post('/v1/payout_batches', { items });
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('requires_approval');
  return res.body.id;
}

const approve = (c: Client, path: string) => c.post(`${path}/approve`);

describe.each([
  ['payout intent', '/v1/payout_intents', newPayout],
  ['payout batch', '/v1/payout_batches', newBatch],
] as const)('a %s', (_noun, base, create) => {
  let owner: Client;
  let admin: MemberClient;
  let finance: MemberClient;
  let ownerMember: MemberClient;
  beforeAll(async () => {
    owner = await srv.merchant();
    await keysCountPolicy(owner, 2);
    admin = await addMember(srv, owner.merchantId, `admin-${randomUUID()}@example.com`, 'admin');
    finance = await addMember(srv, owner.merchantId, `fin-${randomUUID()}@example.com`, 'finance');
    ownerMember = await addMember(srv, owner.merchantId, `owner-${randomUUID()}@example.com`, 'owner');
  });

  test("one person's two keys count once; the person after their key counts once; another person completes it", async () => {
    const [k1, k2] = [await keyMadeBy(owner, admin), await keyMadeBy(owner, admin)];
    const id = await create(owner);
    const path = `${base}/${id}`;
    const first = await approve(k1, path);
    expect([first.status, first.body.status]).toEqual([202, 'requires_approval']);
    for (const again of [k2, admin]) {
      const res = await approve(again, path);
      expect([res.status, res.body.error?.code]).toEqual([409, 'approval_already_recorded']);
    }
    const now = (await owner.get(path)).body;
    expect(now.status).toBe('requires_approval');
    expect(now.approvals).toEqual([{ actor: { type: 'api_key', id: k1.key!.apiKeyId, restricted: true }, created_at: expect.any(String) }]);
    const last = await approve(finance, path);
    expect([last.status, last.body.status]).toEqual([202, 'processing']);
    expect(last.body.approvals.map((a: any) => a.actor.id)).toEqual([k1.key!.apiKeyId, finance.userId]);
    // The person behind a vote is kept, never shown.
    expect(JSON.stringify(last.body)).not.toContain('person');
  });

  test('a member, then their key: counted once', async () => {
    const key = await keyMadeBy(owner, ownerMember);
    const id = await create(owner);
    expect((await approve(ownerMember, `${base}/${id}`)).status).toBe(202);
    const res = await approve(key, `${base}/${id}`);
    expect([res.status, res.body.error?.code]).toEqual([409, 'approval_already_recorded']);
  });

  test("the creator's keys may not approve: made by the creator, made by the creator's key, or rolled", async () => {
    const key = await keyMadeBy(owner, admin);
    const keyOfKey = await keyMadeBy(owner, await keyMadeFull(owner, admin));
    const id = await create(admin);
    for (const c of [admin, key, keyOfKey]) {
      const res = await approve(c, `${base}/${id}`);
      expect([res.status, res.body.error?.code]).toEqual([403, 'approval_by_creator']);
    }
    const rolled = await admin.gql('mutation($id: ID!) { rollApiKey(id: $id) { id publicKey secretKey } }', { id: key.key!.apiKeyId });
    expect(rolled.body.errors).toBeUndefined();
    const r = rolled.body.data.rollApiKey;
    const successor = new Client(srv.url, `${r.publicKey}:${r.secretKey}`, { ...owner.key!, apiKeyId: r.id });
    const res = await approve(successor, `${base}/${id}`);
    expect([res.status, res.body.error?.code]).toEqual([403, 'approval_by_creator']);
    // The operator's CLI keys are each their own actor: one created it, another approves.
    const cli = await srv.keyFor(owner.merchantId);
    const byOperatorKey = await create(owner);
    expect((await approve(owner, `${base}/${byOperatorKey}`)).body.error?.code).toBe('approval_by_creator');
    expect((await approve(cli, `${base}/${byOperatorKey}`)).status).toBe(202);
    // A key an operator's key made is that key: refused where the making key created it.
    const madeByCli = await keyMadeBy(owner, owner);
    expect((await approve(madeByCli, `${base}/${await create(owner)}`)).body.error?.code).toBe('approval_by_creator');
    expect((await owner.get(`${base}/${id}`)).body).toMatchObject({ status: 'requires_approval', approvals: [] });
  });

  test("parallel approvals by one person's keys and session: exactly one counts, the others are 409", async () => {
    const keys = await Promise.all([1, 2, 3].map(() => keyMadeBy(owner, admin)));
    for (let round = 0; round < 3; round++) {
      const id = await create(owner);
      const answers = await Promise.all([...keys, admin].map((c) => approve(c, `${base}/${id}`)));
      expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.code).toBe('approval_already_recorded');
      const now = (await owner.get(`${base}/${id}`)).body;
      expect(now.status).toBe('requires_approval');
      expect(now.approvals).toHaveLength(1);
    }
  });
});

/** A full key made by `member` over GraphQL (admins may make full keys). */
async function keyMadeFull(owner: Client, member: MemberClient): Promise<Client> {
  const made = await member.gql('mutation { createApiKey { id publicKey secretKey } }');
  expect(made.body.errors).toBeUndefined();
  const k = made.body.data.createApiKey;
  return new Client(srv.url, `${k.publicKey}:${k.secretKey}`, { ...owner.key!, apiKeyId: k.id });
}
