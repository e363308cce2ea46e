/**
 * Live approvals by members need an authentication code from the last 5 minutes: the one of
 * their sign-in, or a step-up (`confirmSecondFactor`) entered again later. A refused approve
 * changes nothing; a wrong code is 401 and counts against the account like a failed sign-in.
 */
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from '../helpers/server';
import { addMember, enrolTotp, signedInAs, type MemberClient } from '../helpers/members';
import { payoutBody, type Client } from '../helpers/client';
import { totpCode } from '../../src/modules/people/credentials';
import { approvalsModule } from '../../src/modules/approvals/approval.module';
import { Session } from '../../src/modules/people/session.entity';

let srv: TestServer;
let key: Client;
let finance: MemberClient;
let recoveryCodes: string[];

beforeAll(async () => {
  srv = await startServer({ env: { SIMULATED_PROVIDERS_IN_LIVE: '1', REDIS_URL: '' } });
  key = await srv.merchant(undefined, 'live');
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  await srv.app.db.tx((tx) =>
    approvalPolicies.set(tx, { merchantId: key.merchantId, environment: 'live' }, { currency: 'THB', minAmount: 1000n, approvals: 1, keysCount: false }),
  );
  const member = await addMember(srv, key.merchantId, `finance.${process.pid}@example.com`, 'finance');
  // Turning the authenticator on spent the current step's code: sign-in takes the next step's.
  const enrolled = await enrolTotp(member);
  recoveryCodes = enrolled.recoveryCodes;
  finance = await signedInAs(srv, member.email, member.userId, key.merchantId, totpCode(enrolled.secret, Date.now() + 30_000));
  const live = await finance.gql('mutation($m: ID!) { switchMerchant(merchantId: $m, environment: LIVE) { environment } }', { m: key.merchantId });
  expect(live.body.data.switchMerchant.environment).toBe('LIVE');
});
afterAll(async () => {
  await srv?.close();
});

async function livePayout(): Promise<string> {
  const res = await key.post('/v1/payout_intents', payoutBody({ amount: '5000' }), { idempotencyKey: randomUUID() });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ approvals_required: 1, status: 'requires_approval' });
  return res.body.id;
}

/** Moves the session's last code `minutes` into the past. */
async function codeEnteredAgo(minutes: number): Promise<void> {
  const sessions = (await finance.gql('{ sessions { id current } }')).body.data.sessions as { id: string; current: boolean }[];
  const current = sessions.find((s) => s.current)!.id;
  await srv.app.db.tx((tx) => tx.update(Session, { id: current }, { secondFactorAt: new Date(Date.now() - minutes * 60_000) }));
}

test('the code entered at sign-in lets the member approve a live payout within 5 minutes', async () => {
  const id = await livePayout();
  const approved = await finance.post(`/v1/payout_intents/${id}/approve`);
  expect(approved.status).toBe(202);
  expect(approved.body).toMatchObject({ status: 'processing', approvals: [{ actor: { type: 'member', id: finance.userId } }] });
});

test('after 5 minutes the approve is refused and changes nothing; confirmSecondFactor with a current code allows it again', async () => {
  await codeEnteredAgo(6);
  const id = await livePayout();
  const refused = await finance.post(`/v1/payout_intents/${id}/approve`);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toEqual({ code: 'permission_denied', message: expect.stringContaining('authentication code entered in the last 5 minutes') });
  expect((await key.get(`/v1/payout_intents/${id}`)).body).toMatchObject({ status: 'requires_approval', approvals: [] });

  const wrong = await finance.gql('mutation { confirmSecondFactor(code: "000000") }');
  expect(wrong.body.errors![0].extensions.code).toBe('unauthorized');
  // A code is accepted once per 30 s step (the next one was spent at sign-in): a recovery code here.
  const ok = await finance.gql('mutation($c: String!) { confirmSecondFactor(code: $c) }', { c: recoveryCodes[0] });
  expect(ok.body.errors).toBeUndefined();
  expect(Date.parse(ok.body.data.confirmSecondFactor)).toBeGreaterThan(Date.now() - 60_000);

  const approved = await finance.post(`/v1/payout_intents/${id}/approve`);
  expect(approved.status).toBe(202);
  expect(approved.body.status).toBe('processing');
});
