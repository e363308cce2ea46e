/**
 * `npm run demo:live`: the gateway in live mode against local fakes of Stripe and Opn Payments
 * (test/helpers/fake-*.ts), with SIMULATED_PROVIDERS_IN_LIVE off and no credentials. It
 * connects one account at each fake with the CLI, starts the server on a fresh SQLite database
 * in a temporary directory, and walks a live PromptPay payment (routed to the first account,
 * paid by a signed webhook), an internet-banking payment (through the bank's page, paid by a
 * webhook fetched back by id), and a payout (an Opn transfer, paid by the bank); then
 * `ledger verify`. Everything it started is stopped at the end. `--keep` leaves the server and
 * the fakes running until Ctrl-C, to explore with the printed live key.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FakeOpn } from '../helpers/fake-opn';
import { FakeStripe } from '../helpers/fake-stripe';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const MAIN = path.join(ROOT, 'dist/src/main.js');

type Json = Record<string, any>;

const say = (text: string) => process.stdout.write(`${text}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((r) => server.close(r));
  return port;
}

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-demo-live-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATA_DIR: dir,
    SEED_DEMO: '0',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    SIMULATED_PROVIDERS_IN_LIVE: '',
    PROVIDER_RECONCILE_AFTER_MS: '2000',
    LOG_LEVEL: 'warn',
  };
  const cli = (...args: string[]): Json =>
    JSON.parse(
      execFileSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' })
        .trim()
        .split('\n')
        .pop()!,
    );
  const [stripe, opn] = await Promise.all([FakeStripe.start(), FakeOpn.start()]);
  let server: ChildProcess | undefined;
  const stop = async () => {
    server?.kill('SIGTERM');
    await Promise.all([stripe.close(), opn.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    say(`Fake Stripe at ${stripe.url}, fake Opn at ${opn.url}; database in ${dir}.`);
    execFileSync(process.execPath, [CLI, 'migrate'], { env, stdio: 'ignore' });
    const whsec = `whsec_demo_${randomBytes(8).toString('hex')}`;
    const sa = cli(
      'providers',
      'connect',
      '--env',
      'live',
      '--provider',
      'stripe',
      '--secret-key',
      'sk_test_demo',
      '--webhook-secret',
      whsec,
      '--api-base',
      stripe.url,
    );
    const oa = cli(
      'providers',
      'connect',
      '--env',
      'live',
      '--provider',
      'opn',
      '--public-key',
      'pkey_test_demo',
      '--secret-key',
      'skey_test_demo',
      '--api-base',
      opn.url,
    );
    say(`\n1. Provider accounts (cli providers connect): ${sa.id} (stripe), ${oa.id} (opn); webhooks at ${sa.webhook_url} and ${oa.webhook_url}`);
    const key = cli('keys', 'create', '--merchant', 'Demo Live Shop', '--env', 'live');
    say(`2. A live key for merchant "Demo Live Shop": ${key.public_key}`);

    server = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const auth = `Basic ${Buffer.from(`${key.public_key}:${key.secret_key}`).toString('base64')}`;
    const api = async (method: string, p: string, body?: unknown): Promise<Json> => {
      const res = await fetch(`${base}${p}`, {
        method,
        headers: { authorization: auth, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return (await res.json()) as Json;
    };
    const until = async (p: string, ok: (b: Json) => boolean): Promise<Json> => {
      for (let i = 0; i < 200; i++) {
        const b = await api('GET', p).catch(() => ({}));
        if (ok(b)) return b;
        await sleep(100);
      }
      throw new Error(`timed out waiting on ${p}`);
    };
    await until('/v1/balances', (b) => Array.isArray(b.data));
    say(`3. The gateway listens at ${base} in live mode (SIMULATED_PROVIDERS_IN_LIVE off).`);

    const options = await until('/v1/payment_method_options?amount=100000&currency=THB&country=TH', (b) => b.data?.length > 1);
    say(`4. Live discovery: ${options.data.map((o: Json) => `${o.payment_method}${o.bank ? `:${o.bank}` : ''}`).join(', ')}`);

    const qr = await api('POST', '/v1/payment_intents', {
      amount: '100000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: `demo-qr-${Date.now()}`,
      customer: { name: 'Somchai Jaidee' },
      payment_method: 'promptpay',
    });
    if (!qr.next_action) throw new Error(`payment create: ${JSON.stringify(qr)}`);
    say(`5. PromptPay payment ${qr.id}: ${qr.status}, QR payload ${String(qr.next_action.display_qr_code.data).slice(0, 32)}...`);
    const pi = [...stripe.intents.values()].find((x) => x.metadata.gateway_payment_intent === qr.id)!;
    const paid = stripe.pay(pi.id, whsec);
    await fetch(sa.webhook_url, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': paid.signature }, body: paid.payload });
    say(
      `   The payer scans and pays; the provider's signed webhook arrives: ${(await until(`/v1/payment_intents/${qr.id}`, (b) => b.status === 'succeeded')).status}`,
    );

    const ib = await api('POST', '/v1/payment_intents', {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: `demo-ib-${Date.now()}`,
      customer: { name: 'Somchai Jaidee' },
      payment_method: 'online_banking',
      payment_method_options: { bank: 'BBL' },
    });
    say(`6. Internet-banking payment ${ib.id}: ${ib.status}, the payer goes to ${ib.next_action.url}`);
    const hop = await fetch(ib.next_action.url, { redirect: 'manual' });
    say(`   ... which sends them on to the bank's page (${hop.status}); they approve there and come back.`);
    await fetch(hop.headers.get('location')!, { redirect: 'manual' });
    const charge = [...opn.charges.values()].find((c) => c.metadata.gateway_payment_intent === ib.id)!;
    const event = [...opn.events.values()].find((e) => e.key === 'charge.complete' && e.data.id === charge.id)!;
    await fetch(oa.webhook_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event) });
    say(`   Opn's webhook, fetched back by id before it is believed: ${(await until(`/v1/payment_intents/${ib.id}`, (b) => b.status === 'succeeded')).status}`);

    const po = await api('POST', '/v1/payout_intents', {
      amount: '30000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: `demo-po-${Date.now()}`,
      recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
    });
    say(`7. Payout ${po.id}: ${po.status}`);
    await api('POST', `/v1/payout_intents/${po.id}/approve`, {});
    let transfer: Json | undefined;
    for (let i = 0; i < 100 && !transfer; i++) {
      transfer = [...opn.transfers.values()].find((t) => t.metadata.gateway_payout_intent === po.id);
      if (!transfer) await sleep(100);
    }
    if (!transfer) throw new Error('the payout was not sent');
    say(`   Approved: sent as a transfer; the bank pays it.`);
    opn.payTransfer(transfer.id);
    say(`   ${(await until(`/v1/payout_intents/${po.id}`, (b) => b.status === 'succeeded')).status}`);

    const thb = (await api('GET', '/v1/balances')).data.find((b: Json) => b.currency === 'THB');
    say(`8. THB balance: available ${thb.available}, reserved ${thb.reserved ?? '0'} (minor units)`);
    const verify = execFileSync(process.execPath, [CLI, 'ledger', 'verify'], { env, encoding: 'utf8' }).trim().split('\n').pop();
    say(`9. cli ledger verify: ${verify}`);
    if (keep) {
      say(`\nStill running at ${base} (live key ${key.public_key} / ${key.secret_key}); Ctrl-C stops everything.`);
      await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    }
  } finally {
    await stop();
  }
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${(err as Error).message}\n`);
  process.exit(1);
});
