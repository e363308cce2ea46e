/**
 * A V8 CPU profile (`node --cpu-prof`) aggregated by package: where the gateway's CPU went
 * during one benchmark scenario (`BENCH_PROFILE=1 npm run bench`, bench/run.ts), and
 * `node dist/bench/profile.js <file.cpuprofile>...` for profiles taken by hand.
 *
 * Self time only (a sample counts for the function on top of the stack), so the shares add up
 * to 100% of the sampled time. A function is charged to:
 *   - `node_modules/<package>` (scoped names kept: `@apollo/server`), the innermost one;
 *   - `gateway src/<folder>` for the service's own code (dist/src/<folder>/...);
 *   - `node:<module>` for Node's JavaScript (`node:internal/...` grouped by its first part);
 *   - V8's pseudo frames as they are: `(garbage collector)`, `(program)`, `(idle)`;
 *   - `native <function>` for a builtin or binding without a script (`native writev`,
 *     `native stringify`...), by name, since one of them alone can be a large share.
 * `(idle)` is left out of the shares: it is time the process waited (for the database or the
 * network), not CPU.
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface PackageShare {
  package: string;
  ms: number;
  percent: number;
}
export interface ProfileSummary {
  sampled_ms: number;
  idle_ms: number;
  top: PackageShare[];
}

/** The bucket a frame is charged to. */
export function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : `native ${functionName || '(anonymous)'}`;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return `node_modules/${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return `node:${parts[0] === 'internal' ? `internal/${parts[1] ?? ''}` : parts[0]}`.replace(/\.js$/, '');
  }
  if (/\/dist\/bench\//.test(url)) return `bench ${url.split('/').pop()}`;
  if (url.includes('/dist/bench/')) return `bench ${url.slice(url.lastIndexOf('/') + 1)}`;
  const src = /\/dist\/src\/([^/]+)\//.exec(url) ?? /\/src\/([^/]+)\//.exec(url);
  if (src) return `gateway src/${src[1]}`;
  if (/\/dist\/src\/[^/]+\.js$/.test(url)) return 'gateway src/*.js';
  return url.replace(/^file:\/\//, '');
}

/**
 * Self time per package over one or more profiles, largest first; with `window`, only the
 * samples taken within it (V8's sample times are CLOCK_MONOTONIC microseconds, the clock of
 * `process.hrtime` in any process of the machine, so another process can say when a
 * measured window began and ended).
 */
export function summarise(profiles: CpuProfile[], top = 15, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const ms = new Map<string, number>();
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const bucket = new Map<number, string>();
    for (const n of p.nodes) bucket.set(n.id, packageOf(n.callFrame.url, n.callFrame.functionName));
    let at = p.startTime;
    for (let i = 0; i < p.samples.length; i++) {
      const delta = p.timeDeltas[i] ?? 0;
      at += delta;
      if (window && (at < window.fromUs || at > window.toUs)) continue;
      const node = byId.get(p.samples[i]);
      if (!node) continue;
      const name = bucket.get(node.id)!;
      ms.set(name, (ms.get(name) ?? 0) + delta / 1000);
    }
  }
  const idle = ms.get('(idle)') ?? 0;
  ms.delete('(idle)');
  const busy = [...ms.values()].reduce((a, b) => a + b, 0);
  const rows = [...ms]
    .sort((a, b) => b[1] - a[1])
    .map(([name, t]) => ({ package: name, ms: Math.round(t), percent: Math.round((1000 * t) / Math.max(busy, 1)) / 10 }));
  return { sampled_ms: Math.round(busy), idle_ms: Math.round(idle), top: rows.slice(0, top) };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write('usage: node dist/bench/profile.js <file.cpuprofile>...\n');
    process.exit(2);
  }
  const s = summarise(files.map(readProfile), Number(process.env.PROFILE_TOP ?? 25));
  // A profile taken by hand covers the whole process: start-up and warm-up included.

  console.log(`busy ${s.sampled_ms} ms, idle ${s.idle_ms} ms`);

  console.table(s.top);
}
