/**
 * `npm run bench:latency`: time from an event's commit to its receipt by a graphql-ws
 * subscriber, over BENCH_EVENTS (default 1,000) events caused one REST request at a time:
 *
 *   (a) same process: the writer and the subscribed server are one process (in-process wake-up);
 *   (b) other process, database polling only (EVENTS_POLL_MS, default 100);
 *   (c) other process with Redis pub/sub (REDIS_URL, default redis://127.0.0.1:6379), same poll interval.
 *
 * MariaDB/MySQL when DATABASE_URL=mysql://... is set (a fresh database, dropped after),
 * else SQLite, which runs (a) only: SQLite is single-process by design. Commit time is
 * taken in the writer right after COMMIT returns; receipt time in the WebSocket client's
 * `next`, both from CLOCK_MONOTONIC (process.hrtime), which all processes share. The
 * subscriber checks that every event arrives once and in order.
 */
import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { createTestDatabase, redisProblem, startServer, TestDatabase, TestServer, TEST_ENCRYPTION_KEY } from '../test/helpers/server';
import { payoutBody } from '../test/helpers/client';
import { EventRecord } from '../src/modules/events/event.entity';
import type { WriterJob } from './latency-writer';

const COUNT = Number(process.env.BENCH_EVENTS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const POLL_MS = process.env.EVENTS_POLL_MS || '100';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

interface Row {
  scenario: string;
  events: number;
  median_ms: number | string;
  p90_ms: number | string;
  p99_ms: number | string;
  max_ms: number | string;
  mean_ms: number | string;
  note: string;
}

const ms = (ns: bigint) => Number(ns) / 1e6;
const round = (x: number) => Math.round(x * 100) / 100;

function quantile(sorted: number[], q: number): number {
  // Nearest rank: the smallest value with at least q of the sample at or below it.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Subscribes on `srv` as `auth`; resolves once the server has registered the stream. */
async function subscribe(srv: TestServer, auth: string) {
  const received: { id: string; t: bigint }[] = [];
  const client = createClient({
    url: srv.url.replace(/^http/, 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: { authorization: `Basic ${Buffer.from(auth).toString('base64')}` },
    onNonLazyError: () => undefined,
  });
  let failure: unknown;
  const before = srv.app.eventHub.streamCount;
  const dispose = client.subscribe(
    { query: 'subscription { events(types: ["payout_intent.created"]) { id } }' },
    {
      next: (msg: any) => {
        const t = process.hrtime.bigint();
        if (msg.errors) failure = msg.errors;
        else received.push({ id: msg.data.events.id, t });
      },
      error: (err) => (failure = err),
      complete: () => undefined,
    },
  );
  const deadline = Date.now() + 10000;
  while (srv.app.eventHub.streamCount <= before) {
    if (failure || Date.now() > deadline) throw new Error(`subscribe failed: ${JSON.stringify(failure)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return {
    received,
    get failure() {
      return failure;
    },
    async stop() {
      dispose();
      await client.dispose();
    },
  };
}

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Latencies (ms) of `received` against commit times by seq; checks once-each and order. */
async function latencies(
  srv: TestServer,
  merchantId: string,
  received: { id: string; t: bigint }[],
  commits: Map<number, bigint>,
  skip: number,
): Promise<number[]> {
  const rows = await srv.app.db.read((em) =>
    em.find(EventRecord, { where: { merchantId, environment: 'test', type: 'payout_intent.created' }, order: { seq: 'ASC' } }),
  );
  const seqOf = new Map(rows.map((r) => [r.id, r.seq!]));
  const ids = received.map((r) => r.id);
  if (new Set(ids).size !== ids.length) throw new Error('an event was received twice');
  const seqs = ids.map((id) => seqOf.get(id)!);
  if (seqs.some((s, i) => s === undefined || (i > 0 && s <= seqs[i - 1]))) throw new Error('events arrived out of order');
  const expected = rows.filter((r) => commits.has(r.seq!)).length;
  if (received.length !== expected) throw new Error(`received ${received.length} of ${expected} events`);
  return received.slice(skip).map((r) => ms(r.t - commits.get(seqOf.get(r.id)!)!));
}

function summarise(scenario: string, values: number[], note: string): Row {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    scenario,
    events: sorted.length,
    median_ms: round(quantile(sorted, 0.5)),
    p90_ms: round(quantile(sorted, 0.9)),
    p99_ms: round(quantile(sorted, 0.99)),
    max_ms: round(sorted[sorted.length - 1]),
    mean_ms: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
    note,
  };
}

function skipped(scenario: string, note: string): Row {
  return { scenario, events: 0, median_ms: '-', p90_ms: '-', p99_ms: '-', max_ms: '-', mean_ms: '-', note };
}

/** (a): one process writes through its own REST routes and serves the subscription. */
async function sameProcess(database: TestDatabase): Promise<Row> {
  const srv = await startServer({ database, scheduler: false, env: { REDIS_URL: '', EVENTS_POLL_MS: POLL_MS } });
  try {
    const c = await srv.merchant('bench-latency-a');
    const commits = new Map<number, bigint>();
    srv.app.events.onCommitted((events) => {
      const t = process.hrtime.bigint();
      for (const e of events) if (e.merchantId === c.merchantId) commits.set(e.seq, t);
    });
    const sub = await subscribe(srv, c.auth!);
    for (let i = 0; i < WARMUP + COUNT; i++) {
      const res = await c.post('/v1/payout_intents', payoutBody({ amount: '1' }));
      if (res.status !== 201) throw new Error(`POST /v1/payout_intents ${res.status} ${res.text}`);
    }
    await waitFor(() => sub.received.length >= WARMUP + COUNT || !!sub.failure, 30000, 'the subscriber');
    await sub.stop();
    return summarise('(a) same process', await latencies(srv, c.merchantId, sub.received, commits, WARMUP), `in-process wake-up; EVENTS_POLL_MS=${POLL_MS}`);
  } finally {
    await srv.close();
  }
}

/** (b)/(c): a forked gateway process writes; this process serves the subscription. */
async function otherProcess(database: TestDatabase, scenario: string, redisUrl: string): Promise<Row> {
  const env = { REDIS_URL: redisUrl, EVENTS_POLL_MS: POLL_MS, DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
  const srv = await startServer({ database, scheduler: false, env });
  const child = fork(path.join(__dirname, 'latency-writer.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    if (redisUrl) await waitFor(() => srv.app.eventHub.redisReady, 5000, 'Redis');
    const c = await srv.merchant(`bench-latency-${scenario[1]}`);
    const messages: any[] = [];
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.on('message', (m) => messages.push(m));
    const job: WriterJob = { database: database.env, env, auth: c.auth!, merchantId: c.merchantId, count: WARMUP + COUNT };
    child.send(job);
    await Promise.race([waitFor(() => messages.some((m) => m.ready || m.error), 60000, 'the writer to start'), exited]);
    if (messages.some((m) => m.error)) throw new Error(messages.find((m) => m.error).error);
    const sub = await subscribe(srv, c.auth!);
    child.send({ go: true });
    await Promise.race([waitFor(() => messages.some((m) => m.commits || m.error), 300000, 'the writer'), exited]);
    const done = messages.find((m) => m.commits || m.error);
    if (!done) throw new Error('the writer exited without reporting');
    if (done.error) throw new Error(done.error);
    const commits = new Map<number, bigint>((done.commits as [number, string][]).map(([seq, t]) => [seq, BigInt(t)]));
    await waitFor(() => sub.received.length >= WARMUP + COUNT || !!sub.failure, 30000, 'the subscriber');
    await sub.stop();
    const how = redisUrl ? `Redis pub/sub wake-up (poller still every ${POLL_MS} ms)` : `database poll every ${POLL_MS} ms`;
    return summarise(scenario, await latencies(srv, c.merchantId, sub.received, commits, WARMUP), how);
  } finally {
    if (child.exitCode === null) child.kill();
    await srv.close();
  }
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const rows: Row[] = [];
  try {
    rows.push(await sameProcess(database));
    if (database.kind !== 'mysql') {
      rows.push(skipped('(b) other process, DB polling', 'skipped: SQLite is single-process; set DATABASE_URL=mysql://...'));
      rows.push(skipped('(c) other process, Redis', 'skipped: SQLite is single-process; set DATABASE_URL=mysql://...'));
    } else {
      rows.push(await otherProcess(database, '(b) other process, DB polling', ''));
      const problem = await redisProblem(REDIS_URL);
      rows.push(
        problem
          ? skipped('(c) other process, Redis', `skipped: ${REDIS_URL} unreachable (${problem})`)
          : await otherProcess(database, '(c) other process, Redis', REDIS_URL),
      );
    }
  } finally {
    await database.drop();
  }

  console.table(rows);
  const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg().map(round), node: process.version };
  process.stdout.write(
    `${JSON.stringify({ date: new Date().toISOString(), database: database.kind, events: COUNT, warmup: WARMUP, eventsPollMs: Number(POLL_MS), machine, rows })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
