/**
 * The payout batch scenario (group `batch`): a 5,000-row CSV (Thai names) sent as one
 * multipart request, then approved with one request, each timed end to end; the baseline,
 * measured in the same run, is the same number of payouts created one by one by the load
 * generator (its own process, CONNECTIONS connections, fresh references). `ratio` is the
 * baseline's time over the batch's: above 1, the batch is that many times faster than the
 * one-by-one path for the same rows (the approve does what 5,000 approves would, too).
 */
import { randomBytes } from 'node:crypto';
import type { LoadGen } from './lifecycle';
import type { HttpJob, HttpResult } from './loadgen';
import { payoutBody } from './queries';
import type { Merchant } from './seed';
import { CONNECTIONS, log, round1, round2, SECONDS } from './settings';

export const BATCH_ROWS = 5000;

export interface BatchResult {
  rows: number;
  create_ms: number;
  approve_ms: number;
  one_by_one_rps: number;
  /** The baseline's time for `rows` creates over the batch create's time. */
  create_ratio: number;
  /** The same baseline over create + approve (the one-by-one payouts are not approved yet). */
  create_and_approve_ratio: number;
}

function csvOf(rows: number): string {
  const tag = randomBytes(4).toString('hex');
  const lines = ['amount,currency,country,merchant_reference,bank_code,account_number,holder_name'];
  for (let i = 0; i < rows; i++) lines.push(`${1000 + (i % 97)},THB,TH,bench-batch-${tag}-${i},KBANK,${String(1000000000 + i)},สมชาย ใจดี ${i}`);
  return `${lines.join('\n')}\n`;
}

async function timed(what: string, fn: () => Promise<Response>): Promise<[number, any]> {
  const started = process.hrtime.bigint();
  const res = await fn();
  const body: any = await res.json();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return [ms, body];
}

export async function batchScenario(gwUrl: string, loadgen: LoadGen, m: Merchant): Promise<BatchResult> {
  log(`batch: ${BATCH_ROWS} payouts one by one (the baseline), ${SECONDS} s window`);
  const single = await loadgen.run<HttpResult>({
    kind: 'http',
    url: gwUrl,
    method: 'POST',
    path: '/v1/payout_intents',
    body: JSON.stringify(payoutBody()),
    auths: [m.header],
    connections: CONNECTIONS,
    seconds: SECONDS,
  } satisfies HttpJob);
  if (single.non2xx > 0) throw new Error(`batch baseline: ${single.non2xx} answers not 2xx: ${single.refusals?.join(' | ')}`);

  log(`batch: one CSV of ${BATCH_ROWS} rows, then its approve`);
  const form = new FormData();
  form.append('file', new Blob([csvOf(BATCH_ROWS)], { type: 'text/csv' }), 'payouts.csv');
  const [createMs, batch] = await timed('batch create', () =>
    fetch(`${gwUrl}/v1/payout_batches`, { method: 'POST', headers: { authorization: m.header }, body: form }),
  );
  if (batch.status !== 'requires_approval') throw new Error(`batch create: ${batch.status} ${JSON.stringify(batch.errors).slice(0, 300)}`);
  const [approveMs] = await timed('batch approve', () =>
    fetch(`${gwUrl}/v1/payout_batches/${batch.id}/approve`, { method: 'POST', headers: { authorization: m.header } }),
  );
  const baselineMs = (BATCH_ROWS / single.rps) * 1000;
  return {
    rows: BATCH_ROWS,
    create_ms: round1(createMs),
    approve_ms: round1(approveMs),
    one_by_one_rps: round1(single.rps),
    create_ratio: round2(baselineMs / createMs),
    create_and_approve_ratio: round2(baselineMs / (createMs + approveMs)),
  };
}
