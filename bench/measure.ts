/**
 * Measuring: per scenario, a BENCH_WARMUP window on each server, then BENCH_ROUNDS rounds of
 * one BENCH_SECONDS window on each server, BENCH_CONNECTIONS connections. The servers are the
 * gateway and two floors: the same statements sent as text queries (as the gateway sends them)
 * and as prepared statements (the client's fastest mode). The order rotates from round to
 * round (round r starts with the server at r mod 3 of gateway, floor, floor_prepared), so no
 * side always follows the same one (a write window leaves the database busy with purges and
 * flushes after it). A window is one autocannon run in the load generator's process, between
 * two readings of the server's own counters (SQL statements sent, round trips, requests
 * answered), each read once the counters stop moving.
 */
import fs from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { gatewayWarnings, LoadGen, Started, warningsSince } from './lifecycle';
import type { HttpJob, HttpResult } from './loadgen';
import type { Scenario } from './scenarios';
import { CONNECTIONS, log, median, round2, ROUNDS, SECONDS, sleep, WARMUP } from './settings';

/** The servers measured side by side, by their key in the results. */
export type SideName = 'gateway' | 'floor' | 'floor_prepared';

/** The floors: a bench/floor.ts process each, by the way it sends its statements. */
export const FLOORS: { side: Exclude<SideName, 'gateway'>; statements: 'text' | 'prepared' }[] = [
  { side: 'floor', statements: 'text' },
  { side: 'floor_prepared', statements: 'prepared' },
];

/** A server under measurement: where it listens and how its counters are read. */
export interface Target {
  side: SideName;
  url: string;
  proc: ChildProcess;
  counters: (url: string) => Promise<Counters>;
}

export const gatewayTarget = (gw: Started): Target => ({ side: 'gateway', ...gw, counters: () => gatewayCounters(gw.metricsUrl!) });
export const floorTarget = (side: Exclude<SideName, 'gateway'>, floor: Started): Target => ({ side, ...floor, counters: floorCounters });

/** One side's figures for a scenario: req/s (mean of the rounds), p50/p99 (median of the rounds), statements and round trips per request sent. */
export interface Side {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  statements_per_request: number | null;
  round_trips_per_request: number | null;
  non2xx: number;
  errors: number;
  rounds: Round[];
}

export type Round = HttpResult & { statements: number; roundTrips: number; served: number };

/** `ratio`: gateway req/s / text floor req/s (comparable with earlier runs); `ratio_prepared`: / prepared floor req/s. */
export type ScenarioResult = {
  scenario: string;
  group: string;
  note?: string;
  ratio: number | null;
  ratio_prepared: number | null;
  gateway_warnings: Record<string, unknown>;
  profile?: unknown;
} & Record<SideName, Side>;

export async function measureScenarios(loadgen: LoadGen, targets: Target[], selected: Scenario[]): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const s of selected) {
    log(`${s.name}: warm-up, then ${ROUNDS} x ${SECONDS} s on each side`);
    const warningsBefore = new Map(gatewayWarnings);
    if (WARMUP > 0) for (const t of targets) await window(loadgen, t, s, WARMUP);
    const rounds = new Map<SideName, Round[]>(targets.map((t) => [t.side, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) {
        const t = targets[(r + i) % targets.length];
        rounds.get(t.side)!.push(await window(loadgen, t, s, SECONDS));
      }
    }
    const sides = Object.fromEntries([...rounds].map(([side, rs]) => [side, summarise(rs)])) as Record<SideName, Side>;
    const warnings = warningsSince(warningsBefore);
    const result: ScenarioResult = {
      scenario: s.name,
      group: s.group,
      note: s.note,
      ...sides,
      ratio: ratio(sides.gateway, sides.floor),
      ratio_prepared: ratio(sides.gateway, sides.floor_prepared),
      gateway_warnings: warnings,
    };
    results.push(result);
    const refusals = [...rounds.values()].flat().flatMap((r) => r.refusals ?? []);
    if (refusals.length) log(`  answers that were not 2xx (first of them): ${refusals.slice(0, 3).join(' | ')}`);
    if (Object.keys(warnings).length)
      log(
        `  gateway warnings: ${Object.entries(warnings)
          .map(([k, v]) => `${k} x${String(v)}`)
          .join(', ')}`,
      );
    if (Object.values(sides).some((x) => x.rps === 0))
      log('  no request completed within a window on one side: the window is shorter than one request there (BENCH_SECONDS)');
    for (const t of targets) log(`  ${describe(t.side, sides[t.side])}`);
    log(`  ratio ${result.ratio ?? '-'} (text floor), ${result.ratio_prepared ?? '-'} (prepared floor)`);
  }
  return results;
}

const ratio = (gateway: Side, floor: Side) => (floor.rps > 0 ? round2(gateway.rps / floor.rps) : null);

const describe = (name: string, x: Side) =>
  `${name} ${x.rps} req/s p50 ${x.p50_ms} ms p99 ${x.p99_ms} ms ${x.statements_per_request} stmt/req (${x.round_trips_per_request} round trips)${x.non2xx ? ` NON-2XX ${x.non2xx}` : ''}${x.errors ? ` ERRORS ${x.errors}` : ''}`;

/** One load window on one server: the load generator's figures and the server's own counts over it. */
export async function window(loadgen: LoadGen, t: Target, s: Scenario, seconds: number): Promise<Round> {
  const before = await settledCounters(t);
  const r = await loadgen.run<HttpResult>({
    kind: 'http',
    url: t.url,
    method: s.method,
    path: s.path,
    body: s.body,
    auths: s.auths,
    connections: CONNECTIONS,
    seconds,
  } satisfies HttpJob);
  const after = await settledCounters(t);
  const roundTrips = (after.roundTrips ?? after.statements) - (before.roundTrips ?? before.statements);
  return { ...r, statements: after.statements - before.statements, roundTrips, served: after.requests - before.requests };
}

function summarise(rounds: Round[]): Side {
  // Divided by the requests sent: those in flight when a window closes are finished by the
  // server (their statements are counted) but answered to nobody. Too few make it meaningless.
  const perSent = (count: (r: Round) => number) => {
    const sent = rounds.reduce((a, r) => a + r.sent, 0);
    return sent < 10 ? null : round2(rounds.reduce((a, r) => a + count(r), 0) / sent);
  };
  return {
    rps: Math.round(rounds.reduce((a, r) => a + r.rps, 0) / rounds.length),
    p50_ms: median(rounds.map((r) => r.p50)),
    p99_ms: median(rounds.map((r) => r.p99)),
    statements_per_request: perSent((r) => r.statements),
    round_trips_per_request: perSent((r) => r.roundTrips),
    non2xx: rounds.reduce((a, r) => a + r.non2xx, 0),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
    rounds,
  };
}

// ---------------------------------------------------------------- counters

/** `roundTrips`: queries sent (the floor sends one statement per query: its statements). */
export interface Counters {
  statements: number;
  roundTrips?: number;
  requests: number;
}

/** The gateway's own counts from its metrics listener (`metricsUrl`): SQL statements sent (database_statements_total) and requests answered (http_requests_total). */
export async function gatewayCounters(url: string): Promise<Counters> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^database_statements_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!m) throw new Error('/metrics has no database_statements_total');
  const trips = /^database_round_trips_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  let requests = 0;
  for (const line of text.matchAll(/^http_requests_total\{([^}]*)\} (\S+)$/gm)) if (!line[1].includes('route="/metrics"')) requests += Number(line[2]);
  return { statements: Number(m[1]), roundTrips: trips ? Number(trips[1]) : undefined, requests };
}

async function floorCounters(url: string): Promise<Counters> {
  return (await (await fetch(`${url}/__stats`)).json()) as Counters;
}

/** Reads the counters once they stop moving (requests the load generator abandoned at the end of its window finish first). */
async function settledCounters(t: Target): Promise<Counters> {
  let last = await t.counters(t.url);
  // Generous: at 20 connections a slow query (a deep page without an index range) keeps the
  // database busy well after the window; the next window must not start on top of it.
  const deadline = Date.now() + 60_000;
  for (;;) {
    await sleep(300);
    const now = await t.counters(t.url);
    if ((now.statements === last.statements && now.requests === last.requests) || Date.now() > deadline) return now;
    last = now;
  }
}

/** Peak resident memory (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number | undefined): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
