/** The settings of `npm run bench` (environment variables, described in bench/README.md) and the small helpers every part uses. */
import path from 'node:path';

const env = process.env;

export const SECONDS = Number(env.BENCH_SECONDS ?? 5);
export const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 20);
export const WARMUP = Number(env.BENCH_WARMUP ?? 1);
export const PAYOUTS = Number(env.BENCH_PAYOUTS ?? 100_000);
export const PAYMENTS = Number(env.BENCH_PAYMENTS ?? 100_000);
export const MERCHANTS = Math.max(2, Number(env.BENCH_MERCHANTS ?? 10));
export const SUBSCRIBERS = Number(env.BENCH_SUBSCRIBERS ?? 500);
export const EVENT_RATE = Number(env.BENCH_EVENT_RATE ?? 20);
export const EVENT_SECONDS = Number(env.BENCH_EVENT_SECONDS ?? Math.max(5, SECONDS * ROUNDS));
export const PROFILE = env.BENCH_PROFILE === '1';
export const ONLY = (env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/** The repository (the gateway runs from here) and the compiled tree (dist/). */
export const ROOT = path.resolve(__dirname, '..', '..');
export const DIST = path.resolve(__dirname, '..');

export const log = (...args: unknown[]) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${args.join(' ')}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const round1 = (x: number) => Math.round(x * 10) / 10;
export const round2 = (x: number) => Math.round(x * 100) / 100;
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
