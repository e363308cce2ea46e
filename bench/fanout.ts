/**
 * Subscription fan-out: BENCH_SUBSCRIBERS graphql-ws subscribers (in the load generator's
 * process) on one merchant's `events`; a writer in this process commits that merchant's events
 * at BENCH_EVENT_RATE with the gateway's own statements (next sequence number, event row: what
 * another gateway process commits), so the gateway learns of them as it learns of another
 * process's writes. Latency: commit (after COMMIT returned, in the writer) to receipt (in the
 * subscriber), per subscriber and event, both on CLOCK_MONOTONIC.
 */
import type { Pool } from 'mysql2/promise';
import { ulid } from 'ulid';
import type { LoadGen } from './lifecycle';
import { gatewayCounters } from './measure';
import { GQL_EVENTS_SUBSCRIPTION } from './queries';
import type { Merchant } from './seed';
import { EVENT_RATE, EVENT_SECONDS, log, quantile, round1, round2, sleep, SUBSCRIBERS } from './settings';
import * as SQL from './sql';

const env = process.env;

export async function subscriptionFanout(pool: Pool, gwUrl: string, metricsUrl: string, loadgen: LoadGen, m: Merchant): Promise<Record<string, unknown>> {
  log(`subscription fan-out: opening ${SUBSCRIBERS} graphql-ws subscribers`);
  const wsUrl = `${gwUrl.replace(/^http/, 'ws')}/graphql`;
  const { opened } = await loadgen.run<{ opened: number }>({
    kind: 'subscribe',
    wsUrl,
    auth: m.auth,
    count: SUBSCRIBERS,
    query: GQL_EVENTS_SUBSCRIPTION,
  });
  await sleep(1000); // the last subscribe messages reach the server's streams
  const [[template]] = (await pool.query('SELECT data, type, resource_id FROM events WHERE merchant_id = ? ORDER BY created_at DESC LIMIT 1', [m.id])) as any;
  const data = template?.data ?? '{}';
  const conn = await pool.getConnection();
  const commits = new Map<string, bigint>();
  const write = async () => {
    const now = Date.now();
    const id = `evt_${ulid(now).toLowerCase()}`;
    await conn.query('START TRANSACTION');
    const [next] = (await conn.query(SQL.NEXT_SEQ, [m.id, 'test'])) as any;
    await conn.query(SQL.INSERT_EVENT, [
      id,
      m.id,
      'test',
      template?.type ?? 'payout_intent.created',
      template?.resource_id ?? 'po_0',
      data,
      null,
      now,
      SQL.seqOf(next),
    ]);
    await conn.query('COMMIT');
    commits.set(id, process.hrtime.bigint());
  };
  try {
    await write(); // warm-up event, not counted
    await sleep(1000);
    commits.clear();
    // Not settledCounters: with subscribers open the pollers (events, revocations) never let
    // the counter stand still, and it would wait out its 60 s deadline before and after.
    const statementsBefore = (await gatewayCounters(metricsUrl)).statements;
    const total = Math.round(EVENT_RATE * EVENT_SECONDS);
    const start = Date.now();
    log(`  writing ${total} events at ${EVENT_RATE}/s`);
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / EVENT_RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      await write();
    }
    await sleep(2000); // the last deliveries
    const statements = (await gatewayCounters(metricsUrl)).statements - statementsBefore;
    const ids = [...commits.keys()];
    const { times, failures } = await loadgen.run<{ times: (string | null)[][]; failures: number }>({ kind: 'receipts', ids });
    const latencies: number[] = [];
    let missing = 0;
    ids.forEach((id, i) => {
      const c = commits.get(id)!;
      for (const t of times[i]) {
        if (t === null) missing++;
        else latencies.push(Number(BigInt(t) - c) / 1e6);
      }
    });
    latencies.sort((a, b) => a - b);
    const row = {
      scenario: `events subscription, ${opened} subscribers`,
      events: ids.length,
      event_rate_per_s: EVENT_RATE,
      deliveries: latencies.length,
      missing,
      subscriber_errors: failures,
      commit_to_delivery_p50_ms: round1(quantile(latencies, 0.5)),
      p99_ms: round1(quantile(latencies, 0.99)),
      max_ms: round1(latencies[latencies.length - 1] ?? NaN),
      gateway_statements_per_event: round2(statements / Math.max(1, ids.length)),
      note: `writer commits from another process (delivery by the gateway's cross-process path: EVENTS_POLL_MS ${env.EVENTS_POLL_MS ?? 'default 100'}${env.BENCH_REDIS_URL ? ', Redis' : ', no Redis'}); statements include the revocation watcher's poll`,
    };
    log(`  p50 ${row.commit_to_delivery_p50_ms} ms p99 ${row.p99_ms} ms, ${row.gateway_statements_per_event} statements per event, ${missing} missing`);
    return row;
  } finally {
    conn.release();
    await loadgen.run({ kind: 'unsubscribe' }).catch(() => undefined);
  }
}
