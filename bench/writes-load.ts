/** The load generator of bench/writes.ts, in its own process: fresh Idempotency-Key and merchant_reference per request. */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';

const url = process.env.LOAD_URL!;
const route = process.env.LOAD_ROUTE!;
const auths: string[] = JSON.parse(process.env.LOAD_AUTHS!);
const seconds = Number(process.env.LOAD_SECONDS);
const connections = Number(process.env.LOAD_CONNECTIONS);

const body = (): Record<string, unknown> => {
  const ref = `bench-${randomBytes(8).toString('hex')}`;
  if (route === 'payment') {
    return {
      amount: '50000',
      currency: 'THB',
      country: 'TH',
      merchant_reference: ref,
      payment_method: 'promptpay',
      customer: { name: 'Bench Payer', email: 'payer@example.com' },
    };
  }
  return {
    amount: '1',
    currency: 'THB',
    country: 'TH',
    merchant_reference: ref,
    recipient: { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' },
  };
};
const path = route === 'payment' ? '/v1/payment_intents' : '/v1/payout_intents';
let n = 0;
autocannon({
  url: `${url}${path}`,
  connections,
  duration: seconds,
  requests: [
    {
      method: 'POST',
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        headers: {
          authorization: auths[n++ % auths.length],
          'content-type': 'application/json',
          'idempotency-key': randomBytes(12).toString('hex'),
        },
        body: JSON.stringify(body()),
      }),
    },
  ],
}).then(
  (r) => {
    process.send!({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, non2xx: r.non2xx, errors: r.errors }, () =>
      process.exit(0),
    );
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
