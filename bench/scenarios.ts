/**
 * The scenarios of `npm run bench` (README table in bench/README.md), the subset BENCH_ONLY
 * selects (groups or scenario names), and the check that every read scenario is answered with
 * the same bytes by the gateway and by each floor, before anything is measured.
 */
import { FieldCipher } from '../src/domain/crypto';
import { encodeCursor, useCursorKeys } from '../src/domain/list-cursor';
import { DATA_KEY } from './lifecycle';
import type { Pool } from 'mysql2/promise';
import { GQL_CREATE_PAYMENT, GQL_CREATE_PAYOUT, GQL_PAYOUT_GET, GQL_PAYOUT_LIST, gqlPaymentInput, gqlPayoutInput, paymentBody, payoutBody } from './queries';
import type { Merchant } from './seed';
import { log, MERCHANTS, ONLY } from './settings';

// The deep pages' cursors are signed as the gateway signs them (the same data key).
useCursorKeys(FieldCipher.fromBase64(DATA_KEY).derivedKeys('list cursor'));

export interface Scenario {
  name: string;
  group: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  auths: string[];
  /** Compared byte for byte (reads). */
  check: boolean;
  note?: string;
}

const METHODS_PATH = '/v1/payment_method_options?amount=50000&currency=THB&country=TH';

/** The method discovery answer: the gateway computes it from its in-memory catalogue; the floors are handed it. */
export async function methodsAnswer(gwUrl: string, m: Merchant): Promise<string> {
  return (await fetch(`${gwUrl}${METHODS_PATH}`, { headers: { authorization: m.header } })).text();
}

/** Every scenario, in the order they run, then those BENCH_ONLY selects. `bigPayouts`: the big merchant's payouts (deep pages past it are skipped). */
export async function selectScenarios(pool: Pool, merchants: Merchant[]): Promise<{ selected: Scenario[]; bigPayouts: number }> {
  const [big, ...others] = merchants;
  const writer = others[0]; // single-merchant writes
  const [[{ total }]] = (await pool.query('SELECT COUNT(*) AS total FROM payout_intents WHERE merchant_id = ? AND environment = ?', [big.id, 'test'])) as any;
  const bigPayouts = Number(total);
  const someId = await payoutInTheMiddle(pool, big);
  const gqlBody = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });

  const scenarios: Scenario[] = [];
  scenarios.push({
    name: 'REST list, first page',
    group: 'list',
    method: 'GET',
    path: '/v1/payout_intents?limit=25',
    auths: [big.header],
    check: true,
  });
  scenarios.push({
    name: 'GraphQL payoutIntents(first: 25)',
    group: 'gql',
    method: 'POST',
    path: '/graphql',
    body: gqlBody(GQL_PAYOUT_LIST),
    auths: [big.header],
    check: true,
  });
  for (const page of [1000, 2000, 3000, 4000]) {
    const c = await cursorAtPage(pool, big, bigPayouts, page);
    if (!c) {
      log(`page ${page} does not exist with ${bigPayouts} payouts: skipped`);
      continue;
    }
    scenarios.push({
      name: `REST list, page ${page}`,
      group: 'deep',
      method: 'GET',
      path: `/v1/payout_intents?limit=25&cursor=${c}`,
      auths: [big.header],
      check: true,
      note: `${(page - 1) * 25} rows deep`,
    });
    scenarios.push({
      name: `GraphQL list, page ${page}`,
      group: 'deep',
      method: 'POST',
      path: '/graphql',
      body: gqlBody(GQL_PAYOUT_LIST, { after: c }),
      auths: [big.header],
      check: true,
      note: `${(page - 1) * 25} rows deep`,
    });
  }
  scenarios.push({
    name: 'REST get payout by id',
    group: 'get',
    method: 'GET',
    path: `/v1/payout_intents/${someId}`,
    auths: [big.header],
    check: true,
  });
  scenarios.push({
    name: 'GraphQL payoutIntent(id)',
    group: 'get',
    method: 'POST',
    path: '/graphql',
    body: gqlBody(GQL_PAYOUT_GET, { id: someId }),
    auths: [big.header],
    check: true,
  });
  scenarios.push({
    name: 'REST method discovery',
    group: 'methods',
    method: 'GET',
    path: METHODS_PATH,
    auths: [big.header],
    check: true,
    note: 'floor sends the answer captured from the gateway',
  });
  scenarios.push({
    name: 'REST create payout',
    group: 'create',
    method: 'POST',
    path: '/v1/payout_intents',
    body: JSON.stringify(payoutBody()),
    auths: [writer.header],
    check: false,
  });
  scenarios.push({
    name: 'GraphQL createPayoutIntent',
    group: 'create',
    method: 'POST',
    path: '/graphql',
    body: gqlBody(GQL_CREATE_PAYOUT, { input: gqlPayoutInput() }),
    auths: [writer.header],
    check: false,
  });
  scenarios.push({
    name: 'REST create payment (PromptPay)',
    group: 'create',
    method: 'POST',
    path: '/v1/payment_intents',
    body: JSON.stringify(paymentBody()),
    auths: [writer.header],
    check: false,
  });
  scenarios.push({
    name: 'GraphQL createPaymentIntent',
    group: 'create',
    method: 'POST',
    path: '/graphql',
    body: gqlBody(GQL_CREATE_PAYMENT, { input: gqlPaymentInput() }),
    auths: [writer.header],
    check: false,
  });
  scenarios.push({
    name: 'REST create payout, 1 merchant',
    group: 'ceiling',
    method: 'POST',
    path: '/v1/payout_intents',
    body: JSON.stringify(payoutBody('1')),
    auths: [writer.header],
    check: false,
  });
  scenarios.push({
    name: `REST create payout, ${MERCHANTS} merchants`,
    group: 'ceiling',
    method: 'POST',
    path: '/v1/payout_intents',
    body: JSON.stringify(payoutBody('1')),
    auths: merchants.map((m) => m.header),
    check: false,
  });
  return { selected: scenarios.filter((s) => ONLY.length === 0 || ONLY.includes(s.group) || ONLY.includes(s.name)), bigPayouts };
}

/** The cursor the previous page's last row gives (computed, not walked), or null past the last page. */
async function cursorAtPage(pool: Pool, big: Merchant, total: number, page: number): Promise<string | null> {
  const offset = (page - 1) * 25 - 1;
  if (offset < 0 || offset >= total) return null;
  const [[row]] = (await pool.query(
    'SELECT created_at, id FROM payout_intents WHERE merchant_id = ? AND environment = ? ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?',
    [big.id, 'test', offset],
  )) as any;
  return encodeCursor('payout_intent', { merchantId: big.id, environment: 'test' }, { t: Number(row.created_at), id: row.id });
}

/** The 50,000th payout of the big merchant (or any, on a smaller seed): the get-by-id scenarios read it. */
async function payoutInTheMiddle(pool: Pool, big: Merchant): Promise<string> {
  const [[someRow]] = (await pool.query('SELECT id FROM payout_intents WHERE merchant_id = ? ORDER BY created_at ASC LIMIT 1 OFFSET 50000', [big.id])) as any;
  return someRow?.id ?? ((await pool.query('SELECT id FROM payout_intents WHERE merchant_id = ? LIMIT 1', [big.id])) as any)[0][0].id;
}

/** Every read scenario sent once to the gateway and to each floor: any byte of difference stops the run (nothing is measured). */
export async function checkSameBytes(selected: Scenario[], gwUrl: string, floors: { name: string; url: string }[]): Promise<void> {
  const mismatches: string[] = [];
  const reads = selected.filter((x) => x.check);
  for (const s of reads) {
    const get = async (base: string) => {
      const res = await fetch(`${base}${s.path}`, {
        method: s.method,
        headers: { authorization: s.auths[0], ...(s.body ? { 'content-type': 'application/json' } : {}) },
        body: s.body,
      });
      return { status: res.status, body: await res.text() };
    };
    const g = await get(gwUrl);
    if (g.status !== 200) {
      mismatches.push(`${s.name}: the gateway answered ${g.status} ${g.body.slice(0, 300)}`);
      continue;
    }
    for (const floor of floors) {
      const f = await get(floor.url);
      if (g.status === f.status && g.body === f.body) continue;
      let i = 0;
      while (i < g.body.length && g.body[i] === f.body[i]) i++;
      mismatches.push(
        `${s.name}: bytes differ at ${i} (gateway ${g.body.length} bytes, ${floor.name} ${f.body.length} bytes)\n  gateway: …${g.body.slice(Math.max(0, i - 80), i + 120)}\n  ${floor.name}:   …${f.body.slice(Math.max(0, i - 80), i + 120)}`,
      );
    }
  }
  if (mismatches.length) throw new Error(`a floor does not answer with the gateway's bytes; nothing measured:\n${mismatches.join('\n')}`);
  log(`byte check: ${reads.length} read scenarios identical on the gateway and ${floors.map((f) => f.name).join(' and ')}`);
}
