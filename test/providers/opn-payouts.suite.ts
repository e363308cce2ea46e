/**
 * Live payouts at Opn, driven by Opn's transfer webhooks (each fetched back by id before it is
 * believed): a paid or failed transfer settles its payout at once, through the same
 * transitions and ledger entries as the simulated bank's; duplicate and older events change
 * nothing; a failure reported after the transfer was paid leaves the payout succeeded (the
 * contract has no payout state after it) and is logged for the operator. The reconciliation
 * wait is long here, so only the webhook can have moved a payout. Then a live batch whose only
 * paying account is disabled between create and approve: the approval is refused, nothing
 * changed. `ledger verify` passes after each.
 */
import { randomBytes } from 'node:crypto';
import { FakeOpn } from '../helpers/fake-opn';
import { cliLedgerVerifyTest, expectLedgerBalanced, runCli, startServer, TestServer } from '../helpers/server';
import { payoutBody, until, type Client } from '../helpers/client';
import { PayoutIntent } from '../../src/modules/payouts/payout.entity';
import { CONNECTOR_FACTORIES } from '../../src/modules/providers/live-connectors';

const BASE = 'https://pay.example.test';

/** A server in live mode with one Opn account at a fresh fake; transfers are read back only after 10 minutes. */
async function liveServer(logs: string[]): Promise<{ srv: TestServer; opn: FakeOpn; account: string; m: Client; secretKey: string }> {
  const opn = await FakeOpn.start();
  const srv = await startServer({
    env: { SIMULATED_PROVIDERS_IN_LIVE: '', PROVIDER_RECONCILE_AFTER_MS: '600000', PROVIDER_TIMEOUT_MS: '800', PUBLIC_BASE_URL: BASE, LOG_LEVEL: 'info' },
    logDestination: { write: (line: string) => void logs.push(line) },
  });
  const m = await srv.merchant(undefined, 'live', { fund: false });
  await srv.fund(m, 'THB', '100000');
  const { id: account, secretKey } = await connectOpn(srv, opn.url);
  return { srv, opn, account, m, secretKey };
}

/** Connects a live Opn account at `apiBase`; answers its id and its secret key. */
async function connectOpn(srv: TestServer, apiBase: string): Promise<{ id: string; secretKey: string }> {
  const key = randomBytes(12).toString('hex');
  const run = await runCli(
    srv.database,
    [
      'providers',
      'connect',
      '--env',
      'live',
      '--provider',
      'opn',
      '--public-key',
      `pkey_test_${key}`,
      '--secret-key',
      `skey_test_${key}`,
      '--api-base',
      apiBase,
    ],
    { PUBLIC_BASE_URL: BASE },
  );
  expect(run.code).toBe(0);
  return { id: JSON.parse(run.stdout.trim()).id, secretKey: `skey_test_${key}` };
}

/** Nothing of the provider in a merchant-facing text: its name, host, ids. */
function expectNoLeak(raw: string, opn: FakeOpn): void {
  expect(raw).not.toMatch(/opn|omise/i);
  expect(raw).not.toMatch(/\b(trsf|recp|evnt)_test_/);
  expect(raw).not.toMatch(/\bpa_[0-9a-z]{26}\b/);
  expect(raw).not.toContain(new URL(opn.url).host);
}

describe('transfer webhooks settle live payouts', () => {
  const logs: string[] = [];
  let srv: TestServer;
  let opn: FakeOpn;
  let account: string;
  let m: Client;
  let secretKey: string;

  beforeAll(async () => {
    ({ srv, opn, account, m, secretKey } = await liveServer(logs));
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await opn?.close();
  });

  const balance = async (): Promise<{ available: string; reserved: string; pending: string }> => {
    const { available, reserved, pending } = (await m.get('/v1/balances')).body.data.find((b: { currency: string }) => b.currency === 'THB');
    return { available, reserved, pending };
  };

  async function sendWebhook(body: string): Promise<number> {
    const res = await fetch(`${srv.url}/v1/provider_webhooks/${account}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await res.json()).toEqual({ received: true });
    return res.status;
  }

  /** An approved payout, once the settle job has sent its transfer (and kept the transfer's id). */
  async function sentPayout(overrides: Record<string, unknown> = {}): Promise<{ id: string; transfer: Record<string, any> }> {
    const created = await m.post('/v1/payout_intents', payoutBody(overrides), { idempotencyKey: randomBytes(8).toString('hex') });
    expect(created.status).toBe(201);
    expect((await m.post(`/v1/payout_intents/${created.body.id}/approve`, {})).status).toBe(202);
    const row = await until(
      () => srv.app.db.read((em) => em.findOneOrFail(PayoutIntent, { where: { id: created.body.id } })),
      (r) => r.providerReference !== null,
    );
    expect(row.providerReference).not.toBeNull();
    const transfer = opn.transfers.get(row.providerReference!)!;
    expect(transfer).toMatchObject({ metadata: { gateway_payout_intent: created.body.id }, paid: false });
    return { id: created.body.id, transfer };
  }

  const eventsOf = async (payout: string): Promise<string[]> =>
    ((await m.get('/v1/events?limit=100')).body.data as { type: string; data: { object: { id: string } } }[])
      .filter((e) => e.data.object.id === payout)
      .map((e) => e.type)
      .sort();

  test('a paid transfer: its webhook settles the payout at once; a duplicate and an older event change nothing', async () => {
    const start = await balance();
    const { id, transfer } = await sentPayout({ amount: '3000' });
    expect((await m.get(`/v1/payout_intents/${id}`)).body.status).toBe('processing');
    const held = await balance();
    expect(BigInt(held.available)).toBe(BigInt(start.available) - 3000n);

    const reads = opn.eventReads;
    const paid = opn.payTransfer(transfer.id);
    expect(await sendWebhook(opn.webhookBody(paid))).toBe(200);
    expect(opn.eventReads).toBe(reads + 1);
    const after = await m.get(`/v1/payout_intents/${id}`);
    expect(after.body.status).toBe('succeeded');
    expectNoLeak(after.text, opn);
    // As the simulated bank's: the held amount leaves (reserved goes down), available stays where the hold put it.
    const settled = await balance();
    expect(settled.available).toBe(held.available);
    expect(BigInt(settled.reserved)).toBe(BigInt(held.reserved) - 3000n);

    // The same event again, and the transfer's older creation event (out of order): nothing moves.
    expect(await sendWebhook(opn.webhookBody(paid))).toBe(200);
    const older = [...opn.events.values()].find((e) => e.key === 'transfer.create' && e.data.id === transfer.id)!;
    expect(await sendWebhook(JSON.stringify(older))).toBe(200);
    expect((await m.get(`/v1/payout_intents/${id}`)).body.status).toBe('succeeded');
    expect(await balance()).toEqual(settled);
    const events = await eventsOf(id);
    expect(events).toEqual(['payout_intent.created', 'payout_intent.processing', 'payout_intent.succeeded']);
    expectNoLeak((await m.get('/v1/events?limit=100')).text, opn);
    await expectLedgerBalanced(srv);
  }, 30_000);

  test("a failed transfer: its webhook fails the payout and returns its money; the provider's code stays in the log", async () => {
    const start = await balance();
    const { id, transfer } = await sentPayout({
      amount: '4000',
      recipient: { type: 'bank_account', bank_code: 'SCB', account_number: '9876543210', holder_name: 'Malee Dee' },
    });
    const failed = opn.failTransfer(transfer.id);
    expect(await sendWebhook(opn.webhookBody(failed))).toBe(200);
    const after = await m.get(`/v1/payout_intents/${id}`);
    expect(after.body).toMatchObject({ status: 'failed', failure_code: 'payout_failed' });
    expectNoLeak(after.text, opn);
    expect(await balance()).toEqual(start);
    expect(logs.some((l) => l.includes(id) && l.includes('transfer_failed'))).toBe(true);

    // Again, and an older event: nothing moves, the money is not given back twice.
    expect(await sendWebhook(opn.webhookBody(failed))).toBe(200);
    const older = [...opn.events.values()].find((e) => e.key === 'transfer.create' && e.data.id === transfer.id)!;
    expect(await sendWebhook(JSON.stringify(older))).toBe(200);
    expect((await m.get(`/v1/payout_intents/${id}`)).body.status).toBe('failed');
    expect(await balance()).toEqual(start);
    expect(await eventsOf(id)).toEqual(['payout_intent.created', 'payout_intent.failed', 'payout_intent.processing']);
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a transfer that fails in the answer that sent it: the payout fails, its money returns, and the transfer id is kept', async () => {
    const start = await balance();
    const before = new Set(opn.transfers.keys());
    opn.failFastCode = 'insufficient_balance';
    try {
      const created = await m.post('/v1/payout_intents', payoutBody({ amount: '1500' }), { idempotencyKey: randomBytes(8).toString('hex') });
      expect((await m.post(`/v1/payout_intents/${created.body.id}/approve`, {})).status).toBe(202);
      const row = await until(
        () => srv.app.db.read((em) => em.findOneOrFail(PayoutIntent, { where: { id: created.body.id } })),
        (r) => r.status !== 'processing',
      );
      const sent = [...opn.transfers.keys()].filter((t) => !before.has(t));
      expect(sent).toHaveLength(1);
      expect({ status: row.status, failureCode: row.failureCode, providerReference: row.providerReference }).toEqual({
        status: 'failed',
        failureCode: 'payout_failed',
        providerReference: sent[0],
      });
      expect(await balance()).toEqual(start);
      expect(logs.some((l) => l.includes(created.body.id) && l.includes('insufficient_balance'))).toBe(true);
    } finally {
      opn.failFastCode = null;
    }
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a failure reported after the transfer was paid: the payout stays succeeded, the balance does not move, the operator is told', async () => {
    const { id, transfer } = await sentPayout({
      amount: '2500',
      recipient: { type: 'bank_account', bank_code: 'BBL', account_number: '1112223334', holder_name: 'Anan Sukjai' },
    });
    expect(await sendWebhook(opn.webhookBody(opn.payTransfer(transfer.id)))).toBe(200);
    expect((await m.get(`/v1/payout_intents/${id}`)).body.status).toBe('succeeded');
    const paid = await balance();

    const reversed = opn.failTransfer(transfer.id);
    expect(await sendWebhook(opn.webhookBody(reversed))).toBe(200);
    expect(await sendWebhook(opn.webhookBody(reversed))).toBe(200);
    const after = await m.get(`/v1/payout_intents/${id}`);
    expect(after.body).toMatchObject({ status: 'succeeded', failure_code: null });
    expect(await balance()).toEqual(paid);
    expect(await eventsOf(id)).toEqual(['payout_intent.created', 'payout_intent.processing', 'payout_intent.succeeded']);
    const warned = logs.filter((l) => l.includes(id) && l.includes('had reported paid'));
    expect(warned).toHaveLength(2);
    expect(warned[0]).toContain(reversed);
    expect(warned[0]).toContain('transfer_failed');
    // No account number, no key in any log line.
    for (const l of logs) {
      expect(l).not.toContain('1112223334');
      expect(l).not.toContain(secretKey);
    }
    await expectLedgerBalanced(srv);
  }, 30_000);

  test('a transfer event about no payout of ours is answered 200 without asking the provider', async () => {
    const reads = opn.eventReads;
    const body = {
      object: 'event',
      id: 'evnt_test_notours000000',
      key: 'transfer.pay',
      data: { object: 'transfer', id: 'trsf_test_notours00000', paid: true },
    };
    expect(await sendWebhook(JSON.stringify(body))).toBe(200);
    expect(opn.eventReads).toBe(reads);
  });

  cliLedgerVerifyTest(() => srv);
});

describe('live batch approval after a paying account is disabled', () => {
  const logs: string[] = [];
  let srv: TestServer;
  let opn: FakeOpn;
  let account: string;
  let m: Client;

  beforeAll(async () => {
    ({ srv, opn, account, m } = await liveServer(logs));
  }, 60_000);

  afterAll(async () => {
    await srv?.close();
    await opn?.close();
  });

  test('the approval is refused with 422 no_provider_available and nothing changes; the batch can still be cancelled', async () => {
    const balances = async () =>
      ((await m.get('/v1/balances')).body.data as Record<string, string>[]).map(({ currency, available, reserved, pending }) => ({
        currency,
        available,
        reserved,
        pending,
      }));
    const start = await balances();
    const row = (i: number) =>
      payoutBody({
        amount: String(1000 + i),
        merchant_reference: `batch-${randomBytes(6).toString('hex')}`,
        recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: `77700000${i}1`, holder_name: `Row ${i}` },
      });
    const created = await m.post('/v1/payout_batches', { items: [row(1), row(2)] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'requires_approval', totals: [{ currency: 'THB', amount: '2003' }] });
    const held = await balances();
    expect(held).not.toEqual(start);

    const disabled = await runCli(srv.database, ['providers', 'disable', account]);
    expect(disabled.code).toBe(0);
    // The server reads the list of active accounts again after ACCOUNTS_CACHE_MS (1 s).
    await new Promise((r) => setTimeout(r, 1200));

    const refused = await m.post(`/v1/payout_batches/${created.body.id}/approve`, {});
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('no_provider_available');
    expectNoLeak(refused.text, opn);

    const batch = await m.get(`/v1/payout_batches/${created.body.id}`);
    expect(batch.body).toMatchObject({ status: 'requires_approval' });
    expect((await m.get(`/v1/payout_batches/${created.body.id}/items?limit=10`)).body.data).toEqual([]);
    expect(await balances()).toEqual(held);
    expect(opn.transfers.size).toBe(0);
    expect(opn.recipients.size).toBe(0);
    const types = ((await m.get('/v1/events?limit=100')).body.data as { type: string }[]).map((e) => e.type);
    expect(types).toContain('payout_batch.created');
    expect(types).not.toContain('payout_batch.approved');
    expect(types.filter((t) => t.startsWith('payout_intent.'))).toEqual([]);
    // A second try after the payouts job ran: still refused, still nothing sent.
    await new Promise((r) => setTimeout(r, 300));
    expect((await m.post(`/v1/payout_batches/${created.body.id}/approve`, {})).status).toBe(422);
    expect(opn.transfers.size).toBe(0);

    // What the refusal advises: cancel, and the held amount is available again.
    expect((await m.post(`/v1/payout_batches/${created.body.id}/cancel`, {})).status).toBe(202);
    expect(await balances()).toEqual(start);
    await expectLedgerBalanced(srv);
  }, 30_000);

  test("another account still pays out, but not to one row's bank: the approval is refused naming that row, nothing changes", async () => {
    // An account that pays to every bank but SCB stands for a provider with fewer banks (all Opn
    // accounts pay to the same five): its connector is Opn's with a narrower paysOutTo.
    const narrow = await FakeOpn.start();
    const original = CONNECTOR_FACTORIES.opn;
    CONNECTOR_FACTORIES.opn = (acc, accounts, timeoutMs) => {
      const c = original(acc, accounts, timeoutMs);
      if (acc.apiBase === narrow.url) c.paysOutTo = (bank, currency) => bank !== 'SCB' && currency === 'THB';
      return c;
    };
    try {
      const { id: wide } = await connectOpn(srv, opn.url);
      await new Promise((r) => setTimeout(r, 1200));
      const items = ['KBANK', 'SCB'].map((bank, i) =>
        payoutBody({
          amount: String(2000 + i),
          merchant_reference: `batch-${randomBytes(6).toString('hex')}`,
          recipient: { type: 'bank_account', bank_code: bank, account_number: `88800000${i}1`, holder_name: `Row ${i + 1}` },
        }),
      );
      const created = await m.post('/v1/payout_batches', { items });
      expect(created.status).toBe(201);
      expect(created.body.status).toBe('requires_approval');
      const balance = (await m.get('/v1/balances')).body.data[0];

      // Two operator commands, each a process start: run side by side (both finish before the wait).
      const [, disabled] = await Promise.all([connectOpn(srv, narrow.url), runCli(srv.database, ['providers', 'disable', wide])]);
      expect(disabled.code).toBe(0);
      await new Promise((r) => setTimeout(r, 1200));

      const refused = await m.post(`/v1/payout_batches/${created.body.id}/approve`, {});
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('no_provider_available');
      expect(refused.body.error.message).toMatch(/^Row 2: .*SCB/);
      expectNoLeak(refused.text, opn);
      expect((await m.get(`/v1/payout_batches/${created.body.id}`)).body.status).toBe('requires_approval');
      expect((await m.get(`/v1/payout_batches/${created.body.id}/items?limit=10`)).body.data).toEqual([]);
      expect((await m.get('/v1/balances')).body.data[0]).toEqual(balance);
      await new Promise((r) => setTimeout(r, 300));
      expect(opn.transfers.size).toBe(0);
      expect(narrow.transfers.size).toBe(0);
      await expectLedgerBalanced(srv);
    } finally {
      CONNECTOR_FACTORIES.opn = original;
      await narrow.close();
    }
  }, 30_000);

  cliLedgerVerifyTest(() => srv);
});
