/**
 * `npm run bench`: throughput of the main routes, reported as ratios against a baseline
 * (GET /healthz: no auth, no database) measured in the same run on the same machine, so
 * the figures compare across machines. Uses the embedded SQLite file unless
 * DATABASE_URL=mysql://... is set. Traffic goes to 127.0.0.1 only and every run is bounded.
 *
 *   BENCH_SECONDS (default 5)   BENCH_CONNECTIONS (default 20)
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, startServer } from '../test/helpers/server';
import { payoutBody } from '../test/helpers/client';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

interface Scenario {
  name: string;
  options: Partial<autocannon.Options>;
}

async function measure(url: string, scenario: Scenario): Promise<{ rps: number; p50: number; p99: number; errors: number; non2xx: number }> {
  const result = await autocannon({ url, connections, duration: seconds, ...scenario.options } as autocannon.Options);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const srv = await startServer({ database, scheduler: false });
  try {
    const client = await srv.merchant('bench');
    const auth = client.authorization!;
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await client.post('/v1/payout_intents', payoutBody())).body.id);
    const json = { authorization: auth, 'content-type': 'application/json' };
    const gql = JSON.stringify({ query: '{ payoutIntents(first: 25) { nodes { id amount status recipient { accountLast4 } } pageInfo { hasNextPage endCursor } } }' });

    /** A request whose Idempotency-Key and merchant_reference are new every time. */
    const freshPost = (path: string, body: () => Record<string, unknown>): Partial<autocannon.Options> => ({
      url: `${srv.url}${path}`,
      method: 'POST',
      headers: json,
      requests: [{
        method: 'POST',
        setupRequest: (req: autocannon.Request) => ({
          ...req,
          headers: { ...json, 'idempotency-key': randomBytes(12).toString('hex') },
          body: JSON.stringify(body()),
        }),
      }],
    } as Partial<autocannon.Options>);
    const paymentBody = () => ({
      amount: '50000', currency: 'THB', country: 'TH', merchant_reference: `bench-${randomBytes(8).toString('hex')}`,
      payment_method: 'promptpay', customer: { name: 'Bench Payer', email: 'payer@example.com' },
    });

    const scenarios: Scenario[] = [
      { name: 'baseline GET /healthz', options: { url: `${srv.url}/healthz` } },
      { name: 'GET /v1/payment_method_options', options: { url: `${srv.url}/v1/payment_method_options?amount=50000&currency=THB&country=TH`, headers: { authorization: auth } } },
      { name: 'GET /v1/payout_intents/:id', options: { url: `${srv.url}/v1/payout_intents/${ids[0]}`, headers: { authorization: auth } } },
      { name: 'GET /v1/payout_intents?limit=25', options: { url: `${srv.url}/v1/payout_intents?limit=25`, headers: { authorization: auth } } },
      { name: 'POST /graphql payoutIntents(first: 25)', options: { url: `${srv.url}/graphql`, method: 'POST', headers: json, body: gql } },
      { name: 'POST /v1/payout_intents (new, with Idempotency-Key)', options: freshPost('/v1/payout_intents', () => payoutBody({ amount: '1' })) },
      { name: 'POST /v1/payment_intents (PromptPay QR, with Idempotency-Key)', options: freshPost('/v1/payment_intents', paymentBody) },
    ];

    const rows: { scenario: string; rps: number; ratio: string; p50_ms: number; p99_ms: number; errors: number; non2xx: number }[] = [];
    let baseline = 0;
    for (const s of scenarios) {
      const m = await measure(srv.url, s);
      if (!baseline) baseline = m.rps;
      rows.push({ scenario: s.name, rps: Math.round(m.rps), ratio: (m.rps / baseline).toFixed(3), p50_ms: m.p50, p99_ms: m.p99, errors: m.errors, non2xx: m.non2xx });
    }
    // eslint-disable-next-line no-console
    console.table(rows);
    process.stdout.write(`${JSON.stringify({ database: database.kind, seconds, connections, rows })}\n`);
  } finally {
    await srv.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    // eslint-disable-next-line no-console
    console.error(err);
    process.exit(1);
  },
);
