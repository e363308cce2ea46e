/**
 * The report of `npm run bench`: a table on stdout (per scenario, the gateway beside both
 * floors; the subscription fan-out; peak RSS) and a JSON file in bench/results/ (latest.json,
 * or BENCH_RESULT=<name>.json) with the settings, the database's size, the machine and its
 * load, and every round.
 */
import type { BatchResult } from './batch';
import type { ReportResult } from './report-run';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'mysql2/promise';
import { FLOORS, peakRssMb, ScenarioResult, Target } from './measure';
import { CONNECTIONS, EVENT_RATE, EVENT_SECONDS, log, MERCHANTS, ONLY, ROOT, ROUNDS, round2, SECONDS, SUBSCRIBERS, WARMUP } from './settings';

const env = process.env;

export interface Run {
  startedAt: Date;
  loadAtStart: number[];
  pool: Pool;
  bigPayouts: number;
  targets: Target[];
  loadGeneratorPid: number | undefined;
  results: ScenarioResult[];
  fanout?: Record<string, unknown>;
  batch?: BatchResult;
  reportRun?: ReportResult;
}

export async function report(run: Run): Promise<void> {
  const { results, fanout } = run;
  const rss = {
    ...Object.fromEntries(run.targets.map((t) => [`${t.side}_mb`, peakRssMb(t.proc.pid)])),
    load_generator_mb: peakRssMb(run.loadGeneratorPid),
  };

  console.table(results.map(tableRow));

  if (fanout) console.table([fanout]);
  if (run.batch) console.table([run.batch]);
  if (run.reportRun) console.table([run.reportRun]);

  console.log(
    `peak RSS (VmHWM): ${Object.entries(rss)
      .map(([k, v]) => `${k.replace(/_mb$/, '').replace(/_/g, ' ')} ${v} MB`)
      .join(', ')}`,
  );

  const [[counts]] = (await run.pool.query(
    'SELECT (SELECT COUNT(*) FROM payout_intents) AS payouts, (SELECT COUNT(*) FROM payment_intents) AS payments',
  )) as any;
  const [[version]] = (await run.pool.query('SELECT VERSION() AS v')) as any;
  const json = {
    date: run.startedAt.toISOString(),
    finished: new Date().toISOString(),
    settings: {
      seconds: SECONDS,
      rounds: ROUNDS,
      warmup_seconds: WARMUP,
      connections: CONNECTIONS,
      merchants: MERCHANTS,
      only: ONLY,
      subscribers: SUBSCRIBERS,
      event_rate: EVENT_RATE,
      event_seconds: EVENT_SECONDS,
      floors: Object.fromEntries(FLOORS.map((f) => [f.side, f.statements])),
      round_order: `rotating: round r starts with the side at r mod ${run.targets.length} of ${run.targets.map((t) => t.side).join(', ')}`,
    },
    database: {
      server: version.v,
      payouts: Number(counts.payouts),
      payments: Number(counts.payments),
      big_merchant_payouts: run.bigPayouts,
    },
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      loadavg_at_start: run.loadAtStart,
      loadavg_at_end: os.loadavg().map(round2),
      node: process.version,
      note: env.BENCH_NOTE ?? '',
    },
    peak_rss: rss,
    scenarios: results,
    subscription_fanout: fanout ?? null,
    payout_batch: run.batch ?? null,
    report_run: run.reportRun ?? null,
  };
  const out = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, path.basename(env.BENCH_RESULT || 'latest.json'));
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  log(`wrote ${path.relative(process.cwd(), file)}`);
}

/** One scenario on stdout: req/s and both ratios first, then latency, statements and failures per side (prep: the prepared floor). */
function tableRow(r: ScenarioResult): Record<string, unknown> {
  const [g, f, p] = [r.gateway, r.floor, r.floor_prepared];
  return {
    scenario: r.scenario,
    'gw req/s': g.rps,
    'floor req/s': f.rps,
    ratio: r.ratio,
    'prep req/s': p.rps,
    'ratio prep': r.ratio_prepared,
    'gw p50/p99 ms': `${g.p50_ms}/${g.p99_ms}`,
    'floor p50/p99 ms': `${f.p50_ms}/${f.p99_ms}`,
    'prep p50/p99 ms': `${p.p50_ms}/${p.p99_ms}`,
    'gw stmt/req': g.statements_per_request,
    'gw round trips/req': g.round_trips_per_request,
    'floor stmt/req': f.statements_per_request,
    'non-2xx gw/floor/prep': `${g.non2xx}/${f.non2xx}/${p.non2xx}`,
    'errors gw/floor/prep': `${g.errors}/${f.errors}/${p.errors}`,
  };
}
