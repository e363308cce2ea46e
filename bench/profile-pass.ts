/**
 * The profiling pass (BENCH_PROFILE=1), after the measurements: a fresh gateway and fresh
 * floors, each under `--cpu-prof` (sampling every 500 µs); each scenario is warmed up and then
 * run for BENCH_SECONDS x BENCH_ROUNDS on each. Only the samples of the measured windows (not
 * start-up, not warm-up) count; they are aggregated by package (bench/profile.ts) and divided by
 * the requests served in the window, so the CPU per request of the gateway and of each floor
 * sit side by side (`profile` of the scenario's result, and a table). BENCH_PROFILE_KEEP=1
 * keeps the .cpuprofile files (for Chrome DevTools or a flame graph).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Db, LoadGen, startFloor, startGateway } from './lifecycle';
import { FLOORS, floorTarget, gatewayTarget, ScenarioResult, SideName, Target, window } from './measure';
import { readProfile, summarise } from './profile';
import type { Scenario } from './scenarios';
import { log, ROUNDS, SECONDS, sleep, WARMUP } from './settings';

export async function profileScenarios(db: Db, loadgen: LoadGen, methodsAnswer: string, selected: Scenario[], results: ScenarioResult[]): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));
  const prof = (side: SideName) => ['--cpu-prof', '--cpu-prof-interval=500', `--cpu-prof-dir=${path.join(dir, side)}`];
  log(`profiling pass: the gateway and the floors again, under --cpu-prof (${dir})`);
  const started: Target[] = [];
  const windows: { name: string; side: SideName; fromUs: number; toUs: number; served: number }[] = [];
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  try {
    started.push(gatewayTarget(await startGateway(db, prof('gateway'))));
    for (const f of FLOORS) started.push(floorTarget(f.side, await startFloor(db, f.statements, methodsAnswer, prof(f.side))));
    for (const s of selected) {
      log(`  ${s.name}`);
      for (const t of started) {
        await window(loadgen, t, s, Math.max(1, WARMUP));
        const fromUs = nowUs();
        const { served } = await window(loadgen, t, s, SECONDS * ROUNDS);
        windows.push({ name: s.name, side: t.side, fromUs, toUs: nowUs(), served });
      }
    }
  } finally {
    await Promise.all(started.map((t) => stop(t.proc)));
  }
  const profiles = new Map(started.map((t) => [t.side, profileOf(path.join(dir, t.side))]));
  if ([...profiles.values()].some((p) => !p)) {
    log('  a profiled process wrote no profile');
    return;
  }
  const perRequest = (us: number, served: number) => Math.round(us / Math.max(1, served));
  const rows: Record<string, unknown>[] = [];
  for (const s of selected) {
    const bySide = Object.fromEntries(
      started.map((t) => {
        const w = windows.find((x) => x.name === s.name && x.side === t.side)!;
        const summary = summarise([profiles.get(t.side)!], 12, w);
        return [
          t.side,
          {
            requests: w.served,
            cpu_us_per_request: perRequest(summary.sampled_ms * 1000, w.served),
            top: summary.top.map((x) => ({ package: x.package, percent: x.percent, us_per_request: perRequest(x.ms * 1000, w.served) })),
          },
        ];
      }),
    );
    const result = results.find((r) => r.scenario === s.name);
    if (result) result.profile = bySide;
    rows.push({
      scenario: s.name,
      ...Object.fromEntries(started.map((t) => [`${t.side} µs/req`, bySide[t.side].cpu_us_per_request])),
      'gateway top (µs/req)': bySide.gateway.top
        .slice(0, 5)
        .map((x) => `${x.package.replace('node_modules/', '')} ${x.us_per_request}`)
        .join(', '),
    });
  }

  console.table(rows);
  if (process.env.BENCH_PROFILE_KEEP === '1') log(`  profiles kept in ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

async function stop(proc: ChildProcess): Promise<void> {
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
}

function profileOf(dir: string) {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  return files.length ? readProfile(path.join(dir, files[0])) : undefined;
}
