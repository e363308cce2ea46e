/**
 * The refund provider: it settles a pending refund on its own SIMULATED_SETTLE_MS after the
 * create (the scheduler calls it outside any transaction), succeeds, or fails for a magic
 * test amount and gives the amount back. Its answer and the test helpers race under the
 * refund's row lock: whoever commits first wins, the other changes nothing, so a failed
 * refund restores the balance exactly once.
 */
import { startServer, TestServer } from '../helpers/server';
import type { Client } from '../helpers/client';
import { amountRefunded, balanceOf, createRefund, is, succeededPayment, waitForStatus } from '../helpers/fixtures';

let srv: TestServer;

beforeAll(async () => {
  // The scheduler is started by the test that wants the provider to act on its own.
  srv = await startServer({ env: { SIMULATED_SETTLE_MS: '100' }, scheduler: false });
});
afterAll(async () => {
  srv.app.refunds.hooks.beforeProviderCall = undefined;
  await srv?.close();
});

const later = () => new Date(Date.now() + 60_000);

async function releases(refundId: string): Promise<number> {
  const rows: any[] = await srv.app.db.ds.query('SELECT COUNT(*) AS n FROM ledger_entries WHERE source_id = ? AND entry_type = ? AND bucket = ?', [
    refundId,
    'refund_released',
    'available',
  ]);
  return Number(rows[0].n);
}

async function fresh(amount = '5000'): Promise<{ c: Client; p: any }> {
  const c = await srv.merchant(undefined, 'test', { fund: false });
  const p = await succeededPayment(c, amount);
  return { c, p };
}

test('on its own: the provider settles after SIMULATED_SETTLE_MS; a magic amount fails and gives the amount back', async () => {
  const { c, p } = await fresh('6000');
  const ok = await createRefund(c, { payment_intent: p.id, amount: '1000' });
  const ko = await createRefund(c, { payment_intent: p.id, amount: '4002' });
  expect(await balanceOf(c)).toEqual({ available: '998', pending: '0', reserved: '5002' });
  srv.app.scheduler.start();
  try {
    const succeeded = await waitForStatus(c, `/v1/refunds/${ok.id}`, is('succeeded'));
    const failed = await waitForStatus(c, `/v1/refunds/${ko.id}`, is('failed'));
    expect(succeeded.failure_code).toBeNull();
    expect(failed).toMatchObject({
      failure_code: 'account_closed',
      failure_message: "The payer's account has been closed; the refund could not be credited.",
    });
  } finally {
    await srv.app.scheduler.stop();
  }
  expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });
  expect(await amountRefunded(c, p.id)).toBe('1000');
  const types = (await c.get('/v1/events?type=refund.*')).body.data.map((e: any) => `${e.type} ${e.data.object.id}`).sort();
  expect(types).toEqual([`refund.created ${ko.id}`, `refund.created ${ok.id}`, `refund.failed ${ko.id}`, `refund.succeeded ${ok.id}`].sort());
  // The scheduler's transitions are not API calls: the audit log has the creates only.
  const audit = (await c.get('/v1/audit_log')).body.data.filter((e: any) => e.resource_type === 'refund');
  expect(audit.map((e: any) => e.operation)).toEqual(['POST /v1/refunds', 'POST /v1/refunds']);
});

test("the helper fails the refund while the provider is answering: the provider's failure then changes nothing", async () => {
  const { c, p } = await fresh();
  const r = await createRefund(c, { payment_intent: p.id, amount: '4001' });
  let release!: () => void;
  let called!: () => void;
  const inCall = new Promise<void>((resolve) => {
    called = resolve;
  });
  srv.app.refunds.hooks.beforeProviderCall = () => {
    called();
    return new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  try {
    const provider = srv.app.refunds.settleDue(later());
    await inCall;
    const helper = await c.post(`/v1/test_helpers/refunds/${r.id}/fail`, { failure_code: 'by_helper' });
    expect(helper.status).toBe(200);
    expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });
    release();
    await provider;
  } finally {
    srv.app.refunds.hooks.beforeProviderCall = undefined;
  }
  expect((await c.get(`/v1/refunds/${r.id}`)).body).toMatchObject({ status: 'failed', failure_code: 'by_helper' });
  expect(await releases(r.id)).toBe(1);
  expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });
  expect(await amountRefunded(c, p.id)).toBe('0');
  expect((await c.get(`/v1/events?type=refund.failed`)).body.data).toHaveLength(1);
});

test('the provider fails it first: the helper is 422 invalid_state and gives nothing back again', async () => {
  const { c, p } = await fresh();
  const r = await createRefund(c, { payment_intent: p.id, amount: '4001' });
  expect(await srv.app.refunds.settleDue(later())).toBeGreaterThanOrEqual(1);
  const helper = await c.post(`/v1/test_helpers/refunds/${r.id}/fail`);
  expect({ status: helper.status, code: helper.body.error.code }).toEqual({ status: 422, code: 'invalid_state' });
  expect((await c.get(`/v1/refunds/${r.id}`)).body.failure_code).toBe('refund_declined');
  expect(await releases(r.id)).toBe(1);
  expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });
});

test('provider and helpers at the same moment, 10 times: each failed refund is given back once; the helper succeed may win instead', async () => {
  const { c, p } = await fresh();
  for (let i = 0; i < 10; i++) {
    const r = await createRefund(c, { payment_intent: p.id, amount: '4001' });
    const [, ...answers] = await Promise.all([
      srv.app.refunds.settleDue(later()),
      c.post(`/v1/test_helpers/refunds/${r.id}/fail`),
      c.post(`/v1/test_helpers/refunds/${r.id}/fail`),
      c.post(`/v1/test_helpers/refunds/${r.id}/${i === 9 ? 'succeed' : 'fail'}`),
    ]);
    for (const a of answers) expect([200, 422]).toContain(a.status);
    const byHelper = answers.filter((a) => a.status === 200);
    expect(byHelper.length).toBeLessThanOrEqual(1);
    const now = (await c.get(`/v1/refunds/${r.id}`)).body;
    // No helper won: the provider did (its magic failure).
    if (byHelper.length === 0) expect(now).toMatchObject({ status: 'failed', failure_code: 'refund_declined' });
    else expect(now).toEqual(byHelper[0].body);
    if (now.status === 'succeeded') {
      expect(await releases(r.id)).toBe(0);
      // Money left: nothing more can be refunded, and the rest of the test has nothing to work with.
      expect(await balanceOf(c)).toEqual({ available: '999', pending: '0', reserved: '0' });
      expect(await amountRefunded(c, p.id)).toBe('4001');
      break;
    }
    expect(await releases(r.id)).toBe(1);
    expect(await balanceOf(c)).toEqual({ available: '5000', pending: '0', reserved: '0' });
    expect(await amountRefunded(c, p.id)).toBe('0');
  }
  expect(await srv.app.ledger.verify()).toMatchObject({ mismatches: [] });
});
