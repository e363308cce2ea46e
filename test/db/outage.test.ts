/**
 * A database that stalls or stops. A TCP proxy written here sits between
 * gateway processes (the compiled service, spawned) and the shared MariaDB. Under parallel
 * load - payouts with Idempotency-Keys over REST and GraphQL, reads, lists, GraphQL queries,
 * the hosted checkout page - the proxy
 *  - stalls: it stops forwarding bytes both ways and keeps every socket open, as a frozen
 *    server does (new connections are accepted and get no greeting). Every answer must be
 *    503 `service_unavailable` with Retry-After within 10 s, /readyz 503 within 2 s, and a
 *    process sent SIGTERM must finish its shutdown;
 *  - resumes: the processes must recover by themselves (the recovery time is measured);
 *  - stops: it refuses connections and closes the open ones: fast 503s; then starts again.
 * Afterwards every Idempotency-Key used is retried and must end in a 201 (run afresh or
 * replayed), never a stuck 409; each key made at most one payout; the ledger verifies.
 * The figures (codes seen, worst latencies, recovery times) are printed at the end.
 *
 * MariaDB only: SQLite is embedded and cannot stall by network.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { connectMysql } from '../helpers/mysql';
import { createTestDatabase, ledgerVerifyCli, PRODUCTION_DB_LIMITS, startProcess, startServer, TestDatabase } from '../helpers/server';
import { Client, payoutBody, ref } from '../helpers/client';
import { describeIf, NEEDS_MYSQL, usingMysql } from '../helpers/skip';

jest.setTimeout(300_000);

// ------------------------------------------------------------------------------ the proxy

type Pair = { client: net.Socket; upstream?: net.Socket; clientGone: boolean; insertedPayout: boolean };

/**
 * Forwards TCP to `target`; can stall (forward nothing, keep sockets open), stop (refuse,
 * close all), and trap a COMMIT: stall right after forwarding the COMMIT of a transaction
 * that inserted a payout, so the server commits and the answer never reaches the service.
 */
class DbProxy {
  port = 0;
  private server?: net.Server;
  private stalled = false;
  private readonly pairs = new Set<Pair>();
  private trap?: () => void;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Frozen: nothing is read or written on any socket; connections are still accepted (by the kernel's backlog too). */
  stall(): void {
    this.stalled = true;
    for (const p of this.pairs) {
      p.client.pause();
      p.upstream?.pause();
    }
  }

  /** Thawed: what each side sent meanwhile is delivered, then any close that happened meanwhile. */
  resume(): void {
    this.stalled = false;
    for (const p of [...this.pairs]) {
      if (!p.upstream) {
        this.connectUpstream(p);
        continue;
      }
      p.client.resume();
      p.upstream.resume();
      if (p.clientGone) p.upstream.end();
    }
  }

  /** Resolves when the COMMIT of a transaction that inserted a payout has been forwarded and the proxy stalled behind it. */
  trapPayoutCommit(): Promise<void> {
    return new Promise((resolve) => (this.trap = resolve));
  }

  /** Stopped: the port refuses connections and every open connection is closed. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      for (const p of this.pairs) {
        p.client.destroy();
        p.upstream?.destroy();
      }
      this.pairs.clear();
    });
  }

  private accept(client: net.Socket): void {
    const pair: Pair = { client, clientGone: false, insertedPayout: false };
    this.pairs.add(pair);
    client.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => this.toServer(pair, chunk));
    client.on('end', () => pair.upstream?.end());
    client.on('close', () => {
      pair.clientGone = true;
      // While stalled the far side does not learn of it yet; it does when the proxy thaws.
      if (!this.stalled) this.drop(pair);
    });
    if (this.stalled) client.pause();
    else this.connectUpstream(pair);
  }

  private toServer(pair: Pair, chunk: Buffer): void {
    pair.upstream!.write(chunk);
    if (!this.trap) return;
    if (chunk.includes('INSERT INTO `payout_intents`')) pair.insertedPayout = true;
    if (pair.insertedPayout && chunk.includes('COMMIT')) {
      const fired = this.trap;
      this.trap = undefined;
      this.stall();
      fired();
    }
  }

  private connectUpstream(pair: Pair): void {
    if (pair.clientGone) {
      this.drop(pair);
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('data', (chunk: Buffer) => pair.client.write(chunk));
    upstream.on('end', () => pair.client.end());
    upstream.on('close', () => this.drop(pair));
    pair.client.resume();
  }

  private drop(pair: Pair): void {
    pair.client.destroy();
    pair.upstream?.destroy();
    this.pairs.delete(pair);
  }
}

// ------------------------------------------------------------------------------ load and samples

type Phase = 'before' | 'stalled' | 'recovering' | 'stopped' | 'restarting' | 'after';

interface Sample {
  op: string;
  proc: string;
  phase: Phase;
  start: number;
  ms: number;
  status: number;
  /** error.code (REST) or errors[0].extensions.code (GraphQL); `network` / `timeout` when no answer came. */
  code?: string;
  retryAfter: string | null;
  contentType: string | null;
  shaped: boolean;
  /** Idempotent-Replayed: true */
  replayed: boolean;
}

interface KeyUse {
  key: string;
  via: 'rest' | 'graphql';
  body: Record<string, any>;
  /** `id` is set when the answer carried the payout (a success); `code` when it carried an error. */
  answers: { status: number; id?: string; code?: string; replayed: boolean; phase: Phase; text: string }[];
}

const CLIENT_TIMEOUT_MS = 30_000;

/** True when `body` is the contract's error shape (REST) or GraphQL's errors array with a code. */
function contractShaped(op: string, body: any): boolean {
  if (op.startsWith('gql'))
    return Array.isArray(body?.errors) && typeof body.errors[0]?.extensions?.code === 'string' && typeof body.errors[0]?.message === 'string';
  return !!body && typeof body.error?.code === 'string' && typeof body.error?.message === 'string' && Object.keys(body).length === 1;
}

function errorCode(body: any): string | undefined {
  return body?.error?.code ?? body?.errors?.[0]?.extensions?.code;
}

describeIf(usingMysql(), NEEDS_MYSQL)('a stalled or stopped database (TCP proxy in front of MariaDB)', () => {
  let database: TestDatabase;
  let proxy: DbProxy;
  let proxied: TestDatabase;
  const procs: { name: string; url: string; child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> }[] = [];
  let merchant: Client;
  let knownPayout: string;
  let checkoutPath: string;
  let phase: Phase = 'before';
  const samples: Sample[] = [];
  const keys: KeyUse[] = [];
  const figures: Record<string, unknown> = {};
  let loadRunning = false;
  let loadPause = 20;
  let load: Promise<void> | undefined;

  const now = () => Date.now();

  /** One request, measured; never throws. */
  async function measured(op: string, proc: string, send: (signal: AbortSignal) => Promise<Response>): Promise<{ sample: Sample; text: string; body: any }> {
    const start = now();
    const started = phase;
    let status = 0;
    let text = '';
    let code: string | undefined;
    let retryAfter: string | null = null;
    let contentType: string | null = null;
    let replayed = false;
    try {
      const res = await send(AbortSignal.timeout(CLIENT_TIMEOUT_MS));
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      contentType = res.headers.get('content-type');
      replayed = res.headers.get('idempotent-replayed') === 'true';
      text = await res.text();
    } catch (err) {
      code = (err as Error).name === 'TimeoutError' ? 'timeout' : 'network';
    }
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    code ??= errorCode(body);
    const sample: Sample = {
      op,
      proc,
      phase: started,
      start,
      ms: now() - start,
      status,
      code,
      retryAfter,
      contentType,
      shaped: contractShaped(op, body),
      replayed,
    };
    samples.push(sample);
    return { sample, text, body };
  }

  function rest(op: string, proc: { name: string; url: string }, method: string, path: string, body?: unknown, key?: string) {
    const headers: Record<string, string> = { authorization: merchant.authorization! };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key) headers['idempotency-key'] = key;
    return measured(op, proc.name, (signal) =>
      fetch(proc.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }),
    );
  }

  function gql(op: string, proc: { name: string; url: string }, query: string, variables?: Record<string, unknown>, key?: string) {
    const headers: Record<string, string> = { authorization: merchant.authorization!, 'content-type': 'application/json' };
    if (key) headers['idempotency-key'] = key;
    return measured(op, proc.name, (signal) => fetch(proc.url + '/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal }));
  }

  const CREATE_GQL = 'mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id status merchantReference } }';

  async function payoutRest(proc: { name: string; url: string }, use?: KeyUse) {
    const u = use ?? {
      key: randomUUID(),
      via: 'rest' as const,
      body: payoutBody({ amount: '1000', merchant_reference: ref('outage') }),
      answers: [],
    };
    if (!use) keys.push(u);
    const at = phase;
    const { sample, text, body } = await rest('payout.create', proc, 'POST', '/v1/payout_intents', u.body, u.key);
    u.answers.push({
      status: sample.status,
      id: sample.status === 201 || sample.status === 200 ? body?.id : undefined,
      code: sample.code,
      replayed: sample.replayed,
      phase: at,
      text,
    });
    return sample;
  }

  async function payoutGql(proc: { name: string; url: string }, use?: KeyUse) {
    const u = use ?? {
      key: randomUUID(),
      via: 'graphql' as const,
      answers: [],
      body: {
        amount: '1000',
        currency: 'THB',
        country: 'TH',
        merchantReference: ref('outage-gql'),
        recipient: { type: 'BANK_ACCOUNT', bankCode: 'KBANK', accountNumber: '1234567890', holderName: 'Somchai Jaidee' },
      },
    };
    if (!use) keys.push(u);
    const at = phase;
    const { sample, text, body } = await gql('gql.createPayout', proc, CREATE_GQL, { input: u.body }, u.key);
    u.answers.push({
      status: sample.status,
      id: body?.data?.createPayoutIntent?.id,
      code: sample.code,
      replayed: sample.replayed,
      phase: at,
      text,
    });
    return sample;
  }

  const READS: ((proc: { name: string; url: string }) => Promise<unknown>)[] = [
    (p) => rest('payout.get', p, 'GET', `/v1/payout_intents/${knownPayout}`),
    (p) => rest('payout.list', p, 'GET', '/v1/payout_intents?limit=5'),
    (p) => rest('balances', p, 'GET', '/v1/balances'),
    (p) => rest('events.list', p, 'GET', '/v1/events?limit=3'),
    (p) => gql('gql.query', p, '{ viewer { apiKeyId environment } payoutIntents(first: 3) { pageInfo { hasNextPage } nodes { id status } } }'),
    (p) => measured('checkout.page', p.name, (signal) => fetch(p.url + checkoutPath, { signal })),
  ];

  /** Workers that keep sending a mix of requests to the load processes until `loadRunning` is false. */
  function startLoad(workers: number, targets: { name: string; url: string }[]): Promise<void> {
    loadRunning = true;
    let turn = 0;
    const worker = async () => {
      while (loadRunning) {
        const proc = targets[turn++ % targets.length];
        const pick = turn % 4;
        if (pick === 0) await payoutRest(proc);
        else if (pick === 1) await payoutGql(proc);
        else await READS[turn % READS.length](proc);
        // A short pause; longer after a refusal, as a client honouring Retry-After would (shortened).
        await new Promise((r) => setTimeout(r, loadPause));
      }
    };
    return Promise.all(Array.from({ length: workers }, worker)).then(() => undefined);
  }

  /** Every route of the OpenAPI document (read without the database), plus GraphQL and the checkout page, once each. */
  async function sweep(proc: { name: string; url: string }): Promise<Sample[]> {
    const doc = (await (await fetch(proc.url + '/v1/openapi.json')).json()) as {
      servers: { url: string }[];
      paths: Record<string, Record<string, unknown>>;
    };
    const prefix = doc.servers[0].url;
    const out: Sample[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'delete', 'patch', 'put'].includes(m))) {
        if (path === '/openapi.json') continue;
        // A provider's webhook names its account in the path; the sweep's placeholder id is not one, refused (404) before any read.
        if (path.startsWith('/provider_webhooks/')) continue;
        const concrete = prefix + path.replace(/\{[^}]+\}/g, 'xx_0000');
        const { sample } = await rest(
          `sweep ${method.toUpperCase()} ${path}`,
          proc,
          method.toUpperCase(),
          concrete,
          method === 'post' ? {} : undefined,
          method === 'post' ? randomUUID() : undefined,
        );
        out.push(sample);
      }
    }
    out.push((await gql('gql.sweep', proc, '{ viewer { apiKeyId } }')).sample);
    out.push(
      (
        await measured('gql.sweep GET', proc.name, (signal) =>
          fetch(`${proc.url}/graphql?query=${encodeURIComponent('{ viewer { apiKeyId } }')}`, {
            headers: { authorization: merchant.authorization! },
            signal,
          }),
        )
      ).sample,
    );
    out.push((await measured('checkout.sweep', proc.name, (signal) => fetch(proc.url + checkoutPath, { signal }))).sample);
    out.push(
      (
        await measured('checkout.sweep POST', proc.name, (signal) =>
          fetch(proc.url + checkoutPath, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'option=promptpay',
            signal,
          }),
        )
      ).sample,
    );
    out.push(
      (
        await measured('auth.unknown-key', proc.name, (signal) =>
          fetch(proc.url + '/v1/balances', {
            headers: {
              authorization: `Basic ${Buffer.from('pk_test_0000000000000000nobody:sk_test_0000000000000000nothing').toString('base64')}`,
            },
            signal,
          }),
        )
      ).sample,
    );
    return out;
  }

  async function readyz(proc: { name: string; url: string }): Promise<Sample> {
    return (await measured('readyz', proc.name, (signal) => fetch(proc.url + '/readyz', { signal }))).sample;
  }

  /** Milliseconds from `since` until GET /v1/balances answers 200 on `proc`. */
  async function recoveredAfter(proc: { name: string; url: string }, since: number, limitMs = 60_000): Promise<number> {
    for (;;) {
      const res = await fetch(proc.url + '/v1/balances', {
        headers: { authorization: merchant.authorization! },
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      }).catch(() => undefined);
      if (res?.status === 200) return now() - since;
      if (now() - since > limitMs) throw new Error(`${proc.name} did not recover within ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const worst = (list: Sample[]) => list.reduce((m, s) => Math.max(m, s.ms), 0);
  const codes = (list: Sample[]) => {
    const out: Record<string, number> = {};
    for (const s of list) {
      const k = `${s.status} ${s.code ?? ''}`.trim();
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.env.DATABASE_URL);
    proxy = new DbProxy({ host: direct.hostname, port: Number(direct.port || 3306) });
    await proxy.start();
    const viaProxy = new URL(direct.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    proxied = { ...database, env: { DATABASE_URL: viaProxy.toString() } };

    // Provisioning straight on the database (in-process server, closed before the outage).
    const setup = await startServer({ database, scheduler: false });
    try {
      merchant = await setup.merchant('outage-merchant');
      const created = await merchant.post('/v1/payout_intents', payoutBody({ amount: '1000' }));
      expect(created.status).toBe(201);
      knownPayout = created.body.id;
      const hosted = await merchant.post('/v1/payment_intents', {
        amount: '25000',
        currency: 'THB',
        country: 'TH',
        checkout_mode: 'hosted',
        merchant_reference: ref('co'),
        customer: { email: 'somchai@example.com' },
        return_url: 'https://shop.example/orders/1',
      });
      expect(hosted.status).toBe(201);
      checkoutPath = new URL(hosted.body.next_action.url).pathname;
    } finally {
      await setup.close();
    }

    // Two processes under load and one that is sent SIGTERM during the stall; small pools, so
    // they run dry; the production time limits (the other tests relax them).
    const env = { ...PRODUCTION_DB_LIMITS, DB_POOL_SIZE: '6', EVENTS_POLL_MS: '200' };
    const started = await Promise.all(['A', 'B', 'C'].map(async (name) => ({ name, ...(await startProcess(proxied, env)) })));
    procs.push(...started);
  });

  afterAll(async () => {
    loadRunning = false;
    await load?.catch(() => undefined);
    await Promise.all(procs.map((p) => p.stop('SIGKILL')));
    await proxy?.stop().catch(() => undefined);
    await database?.drop();
    if (Object.keys(figures).length > 0) process.stdout.write(`\nDB OUTAGE FIGURES ${JSON.stringify(figures, null, 2)}\n`);
  });

  test('under load, before any fault, everything answers 2xx', async () => {
    const [a, b] = procs;
    load = startLoad(10, [a, b]);
    const until = now() + 15_000;
    while (samples.filter((s) => s.phase === 'before').length < 40 && now() < until) await sleep(100);
    const before = samples.filter((s) => s.phase === 'before');
    expect(before.length).toBeGreaterThanOrEqual(40);
    expect(before.filter((s) => s.status < 200 || s.status >= 300)).toEqual([]);
  });

  test('stalled: every route answers 503 service_unavailable with Retry-After within 10 s, /readyz 503 within 2 s; SIGTERM finishes', async () => {
    const [a, b, c] = procs;
    // Process C gets requests of its own that are caught by the stall, then SIGTERM.
    const cRequests = [payoutRest(c), rest('balances', c, 'GET', '/v1/balances'), payoutGql(c)];
    await sleep(100);
    const stalledAt = now();
    phase = 'stalled';
    loadPause = 250;
    proxy.stall();
    await sleep(1000);
    const cExit = new Promise<{ code: number | null; ms: number }>((resolve) => {
      const t = now();
      c.child.once('exit', (code) => resolve({ code, ms: now() - t }));
    });
    c.child.kill('SIGTERM');

    // /readyz while stalled, on both load processes, several times.
    const ready: Sample[] = [];
    for (let i = 0; i < 4; i++) {
      ready.push(...(await Promise.all([readyz(a), readyz(b)])));
      await sleep(300);
    }
    // Let every request caught in flight by the stall run into its deadline, under continued load.
    await sleep(Math.max(0, stalledAt + 10_000 - now()));
    const sweeps = [...(await sweep(a)), ...(await sweep(b))];
    const exit = await cExit;
    await Promise.all(cRequests);
    phase = 'recovering';

    const stalled = samples.filter((s) => s.phase === 'stalled' && s.op !== 'readyz');
    const afterStart = stalled.filter((s) => s.start >= stalledAt);
    figures.stalled = {
      requests: stalled.length,
      codes: codes(stalled),
      worstMs: worst(stalled),
      worstMsOfRequestsCaughtInFlight: worst(samples.filter((s) => s.start < stalledAt && s.start + s.ms > stalledAt)),
      readyz: { codes: codes(ready), worstMs: worst(ready) },
      sweepRoutes: sweeps.length / 2,
      sweepWorstMs: worst(sweeps),
      sigtermWhileStalled: exit,
    };
    // Never a hang, never a 500: every answer in time, 2xx (done before the stall bit) or 503.
    const caught = samples.filter((s) => s.start + s.ms >= stalledAt && s.start < stalledAt);
    for (const s of [...stalled, ...caught]) {
      expect({ op: s.op, ms: s.ms, ok: s.ms <= 10_000 }).toEqual({ op: s.op, ms: s.ms, ok: true });
      expect([s.op, s.status === 503 || (s.status >= 200 && s.status < 300)]).toEqual([s.op, true]);
    }
    // Everything asked after the stall began is a contract-shaped 503 with Retry-After.
    for (const s of [...afterStart, ...sweeps]) {
      expect({
        op: s.op,
        status: s.status,
        code: s.code,
        retryAfter: !!s.retryAfter,
        shaped: s.shaped || s.op.startsWith('checkout'),
      }).toEqual({
        op: s.op,
        status: 503,
        code: s.op.startsWith('checkout') ? undefined : 'service_unavailable',
        retryAfter: true,
        shaped: true,
      });
    }
    expect(afterStart.length).toBeGreaterThan(20);
    expect(sweeps.length).toBeGreaterThan(30);
    for (const r of ready) {
      expect({ status: r.status, fast: r.ms <= 2000 }).toEqual({ status: 503, fast: true });
    }
    // The process sent SIGTERM while stalled finished its shutdown by itself.
    expect(exit.code).toBe(0);
    expect(exit.ms).toBeLessThan(20_000);
  });

  test('thawed: the processes recover by themselves', async () => {
    const [a, b] = procs;
    const resumedAt = now();
    proxy.resume();
    const ms = await Promise.all([recoveredAfter(a, resumedAt), recoveredAfter(b, resumedAt)]);
    figures.recoveryAfterStallMs = Math.max(...ms);
    expect(Math.max(...ms)).toBeLessThan(10_000);
    expect((await readyz(a)).status).toBe(200);
    expect((await readyz(b)).status).toBe(200);
    await sleep(1000);
    const fresh = samples.filter((s) => s.phase === 'recovering' && s.start > resumedAt + Math.max(...ms));
    expect(fresh.length).toBeGreaterThan(5);
    expect(fresh.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);
  });

  test('stopped: fast 503s with Retry-After; restarted: recovery by itself', async () => {
    const [a, b] = procs;
    const stoppedAt = now();
    phase = 'stopped';
    await proxy.stop();
    await sleep(2000);
    const sweeps = [...(await sweep(a)), ...(await sweep(b))];
    const ready = await Promise.all([readyz(a), readyz(b)]);
    await sleep(500);
    phase = 'restarting';
    const restartedAt = now();
    await proxy.start();
    const ms = await Promise.all([recoveredAfter(a, restartedAt), recoveredAfter(b, restartedAt)]);
    figures.recoveryAfterRestartMs = Math.max(...ms);
    phase = 'after';
    await sleep(1000);
    loadRunning = false;
    await load;

    const stopped = samples.filter((s) => s.phase === 'stopped' && s.op !== 'readyz');
    const afterStart = stopped.filter((s) => s.start >= stoppedAt);
    figures.stopped = {
      requests: stopped.length,
      codes: codes(stopped),
      worstMs: worst(stopped),
      sweepWorstMs: worst(sweeps),
      readyz: { codes: codes(ready), worstMs: worst(ready) },
    };
    for (const s of [...afterStart, ...sweeps]) {
      expect({
        op: s.op,
        status: s.status,
        retryAfter: !!s.retryAfter,
        shaped: s.shaped || s.op.startsWith('checkout'),
        fast: s.ms <= 2000,
      }).toEqual({ op: s.op, status: 503, retryAfter: true, shaped: true, fast: true });
    }
    for (const r of ready) expect({ status: r.status, fast: r.ms <= 2000 }).toEqual({ status: 503, fast: true });
    expect(Math.max(...ms)).toBeLessThan(10_000);
    const last = samples.filter((s) => s.phase === 'after');
    expect(last.filter((s) => s.status !== 200 && s.status !== 201)).toEqual([]);
  });

  test('a COMMIT whose answer is lost: 503, the payout committed once, and the retry with the key replays it', async () => {
    const [a, b] = procs;
    const trapped = proxy.trapPayoutCommit();
    const use: KeyUse = {
      key: randomUUID(),
      via: 'rest',
      body: payoutBody({ amount: '1000', merchant_reference: ref('outage-commit') }),
      answers: [],
    };
    keys.push(use);
    phase = 'stalled';
    const answer = payoutRest(a, use);
    await trapped;
    const refused = await answer;
    expect({ status: refused.status, code: refused.code, retryAfter: !!refused.retryAfter, fast: refused.ms <= 10_000 }).toEqual({
      status: 503,
      code: 'service_unavailable',
      retryAfter: true,
      fast: true,
    });
    // The server did commit it (read straight from MariaDB, not through the frozen proxy).
    const url = new URL(database.env.DATABASE_URL);
    const conn = await connectMysql(url, url.pathname.slice(1));
    let committed: { id: string }[];
    try {
      [committed] = (await conn.query('SELECT id FROM payout_intents WHERE merchant_reference = ?', [use.body.merchant_reference])) as unknown as [
        { id: string }[],
      ];
      const [key] = (await conn.query('SELECT state FROM idempotency_keys WHERE idem_key = ?', [use.key])) as unknown as [{ state: string }[]];
      expect({ payouts: committed.length, key: key.map((k) => k.state) }).toEqual({ payouts: 1, key: ['done'] });
    } finally {
      await conn.end();
    }
    const resumedAt = now();
    proxy.resume();
    phase = 'after';
    await Promise.all([recoveredAfter(a, resumedAt), recoveredAfter(b, resumedAt)]);
    const retry = await payoutRest(a, use);
    expect({ status: retry.status, replayed: retry.replayed }).toEqual({ status: 201, replayed: true });
    expect(use.answers[use.answers.length - 1].id).toBe(committed[0].id);
    figures.lostCommit = {
      firstAnswer: `${refused.status} ${refused.code} in ${refused.ms} ms`,
      retry: `${retry.status} replayed, same payout`,
    };
  });

  test('every Idempotency-Key used is retried and ends in one payout; no duplicates; the ledger verifies', async () => {
    const [a, b] = procs;
    const refused = keys.filter((k) => !k.answers.some((x) => x.id));
    const answered = keys.filter((k) => k.answers.some((x) => x.id));
    expect(refused.length).toBeGreaterThan(10);
    // Retry each key once, on the other process than its first answer came from when possible.
    // Retry each key once, alternating processes, a few at a time.
    const retried: { key: string; via: string; status: number; code?: string; ok: boolean; replayed: boolean }[] = [];
    let next = 0;
    const retrier = async () => {
      for (let i = next++; i < keys.length; i = next++) {
        const k = keys[i];
        const proc = i % 2 === 0 ? a : b;
        if (k.via === 'rest') await payoutRest(proc, k);
        else await payoutGql(proc, k);
        const last = k.answers[k.answers.length - 1];
        retried.push({ key: k.key, via: k.via, status: last.status, code: last.code, ok: !!last.id, replayed: last.replayed });
      }
    };
    await Promise.all(Array.from({ length: 6 }, retrier));
    const outcomes: Record<string, number> = {};
    for (const r of retried) {
      const name = `${r.via} ${r.status}${r.code ? ` ${r.code}` : ''}${r.replayed ? ' replayed' : ''}`;
      outcomes[name] = (outcomes[name] ?? 0) + 1;
    }
    // Keys refused with 503 whose retry was a replay: their write had committed although the answer was 503.
    const committedDespite503 = refused.filter((k) => k.answers[k.answers.length - 1].replayed).length;
    figures.idempotencyRetries = {
      keys: keys.length,
      refusedDuringOutage: refused.length,
      succeededFirstTime: answered.length,
      committedDespite503,
      retryOutcomes: outcomes,
    };
    // REST 201 (fresh or replayed; a 200 "existing" would mean a committed key was released and
    // the merchant_reference rule caught the rerun), GraphQL 200 with the payout: never a 409, never a 5xx.
    expect(retried.filter((r) => !r.ok || r.code !== undefined || (r.via === 'rest' && r.status !== 201))).toEqual([]);

    // One payout per key: every successful answer of a key names the same payout.
    for (const k of keys) {
      const ids = new Set(k.answers.filter((x) => x.id).map((x) => x.id));
      expect({ key: k.key, ids: ids.size }).toEqual({ key: k.key, ids: 1 });
    }
    const url = new URL(database.env.DATABASE_URL);
    const conn = await connectMysql(url, url.pathname.slice(1));
    try {
      const [dups] = await conn.query(
        'SELECT merchant_reference, COUNT(*) AS n FROM payout_intents GROUP BY merchant_id, environment, merchant_reference HAVING COUNT(*) > 1',
      );
      expect(dups).toEqual([]);
      const refs = keys.map((k) => (k.via === 'rest' ? k.body.merchant_reference : k.body.merchantReference));
      const [rows] = await conn.query('SELECT merchant_reference FROM payout_intents WHERE merchant_reference IN (?)', [refs]);
      expect((rows as unknown[]).length).toBe(keys.length);
      const [stuck] = await conn.query("SELECT COUNT(*) AS n FROM idempotency_keys WHERE state = 'in_flight'");
      expect(Number((stuck as { n: number }[])[0].n)).toBe(0);
    } finally {
      await conn.end();
    }
    const verify = await ledgerVerifyCli(database);
    expect(verify.report?.mismatches).toEqual([]);
    expect(verify.code).toBe(0);
    figures.ledger = { ok: verify.report?.ok, balances: verify.report?.balances, entries: verify.report?.entries };
  });
});
