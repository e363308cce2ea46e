/**
 * The load generator of `npm run bench`, in its own process (forked by bench/run.ts, talks
 * over IPC) so that its CPU is never the measured server's. Two jobs:
 *
 *  - `http`: one autocannon window. A body containing FRESH gets a new random token there,
 *    and such requests a new Idempotency-Key, on every request; `auths` rotates the
 *    Authorization header per request (several merchants).
 *  - `subscribers`: opens N graphql-ws subscriptions and records, for each event, when each
 *    subscriber received it (CLOCK_MONOTONIC via process.hrtime, shared by every process on
 *    the machine, so the writer's commit times compare).
 */
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { FRESH } from './queries';

export interface HttpJob {
  kind: 'http';
  url: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  auths: string[];
  connections: number;
  seconds: number;
  /** Requests per second over all connections (autocannon's overallRate); as fast as answered when absent. */
  rate?: number;
}

export interface HttpResult {
  rps: number;
  p50: number;
  p99: number;
  /** Answered within the window. */
  requests: number;
  /** Sent, including those still in flight when the window closed (the servers finish them: statements are divided by this). */
  sent: number;
  non2xx: number;
  errors: number;
  /** Request count per status code class. */
  statusCodes: Record<string, number>;
  /** Up to 5 answers that were not 2xx: status and the start of the body. */
  refusals?: string[];
}

export interface SubscribeJob {
  kind: 'subscribe';
  wsUrl: string;
  auth: string;
  count: number;
  query: string;
}

async function runHttp(job: HttpJob): Promise<HttpResult> {
  const fresh = job.body?.includes(FRESH) ?? false;
  let n = 0;
  const headers = (): Record<string, string> => {
    const h: Record<string, string> = { authorization: job.auths[n++ % job.auths.length] };
    if (job.body !== undefined) h['content-type'] = 'application/json';
    if (fresh) h['idempotency-key'] = randomBytes(12).toString('hex');
    return h;
  };
  const refusals: string[] = [];
  const result = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.seconds,
    ...(job.rate ? { overallRate: job.rate } : {}),
    requests: [
      {
        method: job.method,
        path: job.path,
        setupRequest: (req: any) => ({
          ...req,
          headers: headers(),
          body: job.body === undefined ? undefined : fresh ? job.body.split(FRESH).join(randomBytes(8).toString('hex')) : job.body,
        }),
        // The first few answers that were not 2xx, with their bodies, so a refusal can be explained.
        onResponse: (status: number, body: string) => {
          if ((status < 200 || status > 299) && refusals.length < 5) refusals.push(`${status} ${String(body).slice(0, 300)}`);
        },
      },
    ],
  });
  const statusCodes: Record<string, number> = {};
  for (const k of ['1', '2', '3', '4', '5']) statusCodes[`${k}xx`] = (result as any)[`${k}xx`] ?? 0;
  return {
    rps: result.requests.total / job.seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    sent: (result.requests as any).sent ?? result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    ...(refusals.length ? { refusals } : {}),
  };
}

let subscribers: { client: Client; received: Map<string, bigint>; failure?: unknown }[] = [];

async function openSubscribers(job: SubscribeJob): Promise<{ opened: number }> {
  const header = `Basic ${Buffer.from(job.auth).toString('base64')}`;
  const open = async () => {
    const received = new Map<string, bigint>();
    const sub: (typeof subscribers)[number] = { client: undefined as unknown as Client, received };
    let acked!: () => void;
    let failed!: (e: unknown) => void;
    const ack = new Promise<void>((resolve, reject) => {
      acked = resolve;
      failed = reject;
    });
    sub.client = createClient({
      url: job.wsUrl,
      webSocketImpl: WebSocket,
      lazy: false,
      retryAttempts: 0,
      connectionParams: { authorization: header },
      on: { connected: () => acked(), closed: (e) => failed(e) },
      onNonLazyError: (e) => failed(e),
    });
    sub.client.subscribe(
      { query: job.query },
      {
        next: (msg: any) => {
          const t = process.hrtime.bigint();
          if (msg.errors) sub.failure = msg.errors;
          else received.set(msg.data.events.id, t);
        },
        error: (err) => (sub.failure = err),
        complete: () => undefined,
      },
    );
    await ack;
    subscribers.push(sub);
  };
  // Connect in batches: 500 handshakes at once would be a benchmark of their own.
  for (let i = 0; i < job.count; i += 50) await Promise.all(Array.from({ length: Math.min(50, job.count - i) }, open));
  return { opened: subscribers.length };
}

/** Receipts of the given events: per event id, each subscriber's receipt time (ns, as string) or null. */
function receipts(ids: string[]): { times: (string | null)[][]; failures: number } {
  return {
    times: ids.map((id) => subscribers.map((s) => s.received.get(id)?.toString() ?? null)),
    failures: subscribers.filter((s) => s.failure).length,
  };
}

async function closeSubscribers(): Promise<void> {
  await Promise.all(subscribers.map((s) => Promise.resolve(s.client.dispose())));
  subscribers = [];
}

process.on('message', (msg: any) => {
  // Each job's outcome, success or failure, goes back to the parent as a message.
  const reply = (p: Promise<unknown>): void =>
    void p.then(
      (result) => process.send!({ id: msg.id, result }),
      (err) => process.send!({ id: msg.id, error: String(err?.stack ?? err) }),
    );
  if (msg.job.kind === 'http') reply(runHttp(msg.job));
  else if (msg.job.kind === 'subscribe') reply(openSubscribers(msg.job));
  else if (msg.job.kind === 'receipts') reply(Promise.resolve(receipts(msg.job.ids)));
  else if (msg.job.kind === 'unsubscribe') reply(closeSubscribers());
});
process.on('disconnect', () => process.exit(0));
