/** Payout batches over JSON: create (valid, invalid, over the balance, retried), approve, cancel, settle to completion. */
import { startServer, TestServer, ledgerVerifyCli } from '../helpers/server';
import { payoutBody, ref, type Client } from '../helpers/client';
import { balanceOf, fundedMerchant, waitForStatus, is } from '../helpers/fixtures';
import { addMember } from '../helpers/members';
import { approvalsModule } from '../../src/modules/approvals/approval.module';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv.close();
});

const items = (n: number, amount = '1000', extra: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => payoutBody({ amount, merchant_reference: ref(`b${i}`), ...extra(i) }));

async function allItems(c: Client, id: string): Promise<any[]> {
  const out: any[] = [];
  for (let cursor: string | null = null; ;) {
    const page: any = await c.get(`/v1/payout_batches/${id}/items?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.status).toBe(200);
    out.push(...page.body.data);
    if (!page.body.has_more) return out;
    cursor = page.body.next_cursor;
  }
}

test('a valid batch reserves its totals; approve makes processing payouts; settling completes it', async () => {
  const c = await fundedMerchant(srv, '100000');
  const body = {
    items: [
      ...items(3, '1000'),
      payoutBody({
        amount: '500',
        merchant_reference: ref('fail'),
        recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '000111111116', holder_name: 'สมชาย ใจดี' },
      }),
    ],
  };
  const created = await c.post('/v1/payout_batches', body);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    object: 'payout_batch',
    status: 'requires_approval',
    item_count: 4,
    totals: [{ currency: 'THB', amount: '3500' }],
    errors: [],
  });
  expect(created.body.id).toMatch(/^pob_/);
  expect(await balanceOf(c)).toEqual({ available: '96500', pending: '0', reserved: '3500' });
  expect((await c.get(`/v1/payout_batches/${created.body.id}/items`)).body.data).toEqual([]);

  const approved = await c.post(`/v1/payout_batches/${created.body.id}/approve`);
  expect(approved.status).toBe(202);
  expect(approved.body.status).toBe('processing');
  expect(await balanceOf(c)).toEqual({ available: '96500', pending: '0', reserved: '3500' });
  const payouts = await allItems(c, created.body.id);
  expect(payouts).toHaveLength(4);
  for (const p of payouts) expect(p).toMatchObject({ object: 'payout_intent', status: 'processing', payout_batch: created.body.id });
  expect(payouts.map((p) => p.recipient.holder_name)).toContain('สมชาย ใจดี');
  // GraphQL names the batch too.
  const read = await c.gql(`query($id: ID!) { payoutIntent(id: $id) { payoutBatch } }`, { id: payouts[0].id });
  expect(read.body).toMatchObject({ data: { payoutIntent: { payoutBatch: created.body.id } } });

  const again = await c.post(`/v1/payout_batches/${created.body.id}/approve`);
  expect(again.status).toBe(422);
  expect(again.body.error.code).toBe('invalid_state');
  expect(await allItems(c, created.body.id)).toHaveLength(4);

  for (const p of payouts) {
    const outcome = p.recipient.account_last4 === '1116' ? 'fail' : 'succeed';
    expect((await c.post(`/v1/test_helpers/payout_intents/${p.id}/${outcome}`, {})).status).toBe(200);
  }
  const done = await waitForStatus(c, `/v1/payout_batches/${created.body.id}`, is('completed', 'partially_completed'));
  expect(done.status).toBe('partially_completed');
  expect(await balanceOf(c)).toEqual({ available: '97000', pending: '0', reserved: '0' });
  const events = await c.get(`/v1/events?type=payout_batch.*&limit=100`);
  expect(events.body.data.map((e: any) => e.type).sort()).toEqual(['payout_batch.approved', 'payout_batch.completed', 'payout_batch.created']);
  const itemEvents = await c.get(`/v1/events?type=payout_intent.created,payout_intent.processing&limit=100`);
  expect(itemEvents.body.data).toHaveLength(8);
  const verify = await ledgerVerifyCli(srv.database);
  expect(verify.code).toBe(0);
  expect(verify.report.mismatches).toEqual([]);
});

test('invalid rows make the batch invalid with every error and create nothing', async () => {
  const c = await fundedMerchant(srv, '100000');
  const rows = items(6);
  rows[1] = { ...rows[1], amount: '-5' };
  rows[3] = { ...rows[3], recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '12', holder_name: 'x' } };
  rows[5] = { ...rows[5], merchant_reference: rows[0].merchant_reference };
  const created = await c.post('/v1/payout_batches', { items: rows });
  expect(created.status).toBe(201);
  expect(created.body.status).toBe('invalid');
  expect(created.body.totals).toEqual([]);
  expect(created.body.errors.map((e: any) => [e.row, e.param])).toEqual([
    [2, 'amount'],
    [4, 'recipient.account_number'],
    [6, 'merchant_reference'],
  ]);
  expect(await balanceOf(c)).toEqual({ available: '100000', pending: '0', reserved: '0' });
  expect((await c.get('/v1/payout_intents')).body.data).toEqual([]);
  expect((await c.post(`/v1/payout_batches/${created.body.id}/approve`)).status).toBe(422);
});

test('over the balance is refused whole; a retried batch creates nothing twice', async () => {
  const c = await fundedMerchant(srv, '5000');
  const over = await c.post('/v1/payout_batches', { items: items(6, '1000') });
  expect(over.status).toBe(422);
  expect(over.body.error.code).toBe('insufficient_balance');
  expect((await c.get('/v1/payout_batches')).body.data).toEqual([]);
  expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });

  const body = { items: items(5, '1000') };
  const first = await c.post('/v1/payout_batches', body, { idempotencyKey: 'batch-1' });
  expect(first.status).toBe(201);
  const replay = await c.post('/v1/payout_batches', body, { idempotencyKey: 'batch-1' });
  expect(replay.status).toBe(201);
  expect(replay.body.id).toBe(first.body.id);
  const sameRefs = await c.post('/v1/payout_batches', body);
  expect(sameRefs.status).toBe(200);
  expect(sameRefs.body.id).toBe(first.body.id);
  const overlapping = await c.post('/v1/payout_batches', { items: [body.items[0], ...items(1)] });
  expect(overlapping.body.status).toBe('invalid');
  expect(overlapping.body.errors).toEqual([{ row: 1, param: 'merchant_reference', message: `merchant_reference is already used by ${first.body.id}.` }]);
  expect(await balanceOf(c)).toEqual({ available: '0', pending: '0', reserved: '5000' });
  expect((await c.get('/v1/payout_batches?status=requires_approval')).body.data).toHaveLength(1);
});

test('concurrent approves and cancels race to one outcome', async () => {
  const c = await fundedMerchant(srv, '1000000');
  for (let round = 0; round < 3; round++) {
    const created = await c.post('/v1/payout_batches', { items: items(20, '100') });
    const id = created.body.id;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 === 0 ? c.post(`/v1/payout_batches/${id}/approve`) : c.post(`/v1/payout_batches/${id}/cancel`, { reason: 'race' }),
      ),
    );
    const won = answers.filter((a) => a.status === 202);
    expect(won).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 202)) expect(a.body.error.code).toBe('invalid_state');
    const batch = (await c.get(`/v1/payout_batches/${id}`)).body;
    expect(batch.status).toBe(won[0].body.status);
    expect(await allItems(c, id)).toHaveLength(batch.status === 'processing' ? 20 : 0);
  }
  const verify = await ledgerVerifyCli(srv.database);
  expect(verify.report.mismatches).toEqual([]);
});

test('cancel releases the reservation; batches are scoped to their merchant', async () => {
  const c = await fundedMerchant(srv, '10000');
  const created = await c.post('/v1/payout_batches', { items: [...items(2, '1000'), payoutBody({ amount: '300', currency: 'USD', country: 'US' })] });
  expect(created.status).toBe(422); // no USD balance
  const ok = await c.post('/v1/payout_batches', { items: items(2, '1000') });
  const other = await srv.merchant();
  expect((await other.get(`/v1/payout_batches/${ok.body.id}`)).status).toBe(404);
  expect((await other.post(`/v1/payout_batches/${ok.body.id}/cancel`)).status).toBe(404);
  const cancelled = await c.post(`/v1/payout_batches/${ok.body.id}/cancel`, { reason: 'wrong file' });
  expect(cancelled.status).toBe(202);
  expect(cancelled.body.status).toBe('cancelled');
  expect(await balanceOf(c)).toEqual({ available: '10000', pending: '0', reserved: '0' });
});

test('under an approval policy one set of approvals covers the batch: the strictest policy of its totals, members only, not its creator', async () => {
  const c = await fundedMerchant(srv, '1000000');
  const { approvalPolicies } = srv.app.modules.of(approvalsModule);
  const scope = { merchantId: c.merchantId, environment: 'test' as const };
  await srv.app.db.tx((tx) => approvalPolicies.set(tx, scope, { currency: 'THB', minAmount: 3000n, approvals: 2, keysCount: false }));
  const [finance, second] = await Promise.all([
    addMember(srv, c.merchantId, `fin-${ref('a')}@example.com`, 'finance'),
    addMember(srv, c.merchantId, `fin-${ref('b')}@example.com`, 'finance'),
  ]);

  // Under the policy's amount: one approve by the key moves it, as without a policy.
  const small = await c.post('/v1/payout_batches', { items: items(2, '1000') });
  expect(small.body).toMatchObject({ status: 'requires_approval', approvals_required: 1, approvals: [] });

  const created = await c.post('/v1/payout_batches', { items: items(3, '1000') });
  expect(created.body).toMatchObject({ status: 'requires_approval', approvals_required: 2, approvals: [] });
  const id = created.body.id;
  const byKey = await c.post(`/v1/payout_batches/${id}/approve`);
  expect(byKey.status).toBe(403);
  expect(byKey.body.error.code).toBe('approval_requires_member');

  const first = await finance.post(`/v1/payout_batches/${id}/approve`);
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ status: 'requires_approval', approvals: [{ actor: { type: 'member', id: finance.userId, email: finance.email } }] });
  const again = await finance.post(`/v1/payout_batches/${id}/approve`);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('approval_already_recorded');
  expect(await allItems(c, id)).toEqual([]);

  const last = await second.post(`/v1/payout_batches/${id}/approve`);
  expect(last.status).toBe(202);
  expect(last.body.status).toBe('processing');
  expect(last.body.approvals.map((a: any) => a.actor.id)).toEqual([finance.userId, second.userId]);
  const payouts = await allItems(c, id);
  expect(payouts).toHaveLength(3);
  for (const p of payouts) expect(p).toMatchObject({ status: 'processing', approvals_required: 2, approvals: last.body.approvals });

  // A batch a member created: that member cannot approve it.
  const own = await finance.post('/v1/payout_batches', { items: items(3, '1000') });
  expect(own.status).toBe(201);
  const refused = await finance.post(`/v1/payout_batches/${own.body.id}/approve`);
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('approval_by_creator');
  expect((await c.get(`/v1/payout_batches/${own.body.id}`)).body).toMatchObject({ status: 'requires_approval', approvals: [] });
});

test("a batch's payouts hold their payout fee when approval creates them: paid out on success, given back on failure; the ledger holds", async () => {
  const c = await fundedMerchant(srv, '100000');
  await srv.app.fees.set({ merchantId: c.merchantId, environment: 'test' }, { taxBps: 700, payoutFixed: 2500n });
  const failing = payoutBody({
    amount: '1000',
    merchant_reference: ref('fail'),
    recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '000111111116', holder_name: 'สมชาย ใจดี' },
  });
  const created = await c.post('/v1/payout_batches', { items: [...items(2, '1000'), failing] });
  expect(created.status).toBe(201);
  // Reserved at creation: the amounts only (the payouts, and their fees, do not exist yet).
  expect(await balanceOf(c)).toEqual({ available: '97000', pending: '0', reserved: '3000' });
  expect((await c.post(`/v1/payout_batches/${created.body.id}/approve`)).status).toBe(202);
  // Each payout holds 2500 + 175 tax as a payout created on its own does.
  expect(await balanceOf(c)).toEqual({ available: String(97000 - 3 * 2675), pending: '0', reserved: String(3000 + 3 * 2675) });
  const payouts = await allItems(c, created.body.id);
  for (const p of payouts) {
    const txns = (await c.get(`/v1/balance_transactions?source=${p.id}`)).body.data;
    expect(txns.map((t: any) => [t.type, t.amount])).toEqual([['payout_fee', '-2675']]);
  }
  for (const p of payouts) {
    const outcome = p.recipient.account_last4 === '1116' ? 'fail' : 'succeed';
    expect((await c.post(`/v1/test_helpers/payout_intents/${p.id}/${outcome}`, {})).status).toBe(200);
  }
  // Two paid out with their fees; the failed one's amount and fee are back.
  expect(await balanceOf(c)).toEqual({ available: String(100000 - 2 * 1000 - 2 * 2675), pending: '0', reserved: '0' });
  await waitForStatus(c, `/v1/payout_batches/${created.body.id}`, is('partially_completed'));
  const verify = await ledgerVerifyCli(srv.database);
  expect(verify.report.mismatches).toEqual([]);
});
