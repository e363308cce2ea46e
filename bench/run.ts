/**
 * `npm run bench`: the gateway against its physical floor, side by side, on MariaDB/MySQL
 * (bench/README.md). The floor sends the gateway's statements and answers its bytes; it runs
 * twice, once sending them as text queries (as the gateway does: `ratio`, comparable with
 * earlier runs) and once as prepared statements (`ratio_prepared`). In the order it runs:
 *
 *  1. A database (bench/lifecycle.ts): DATABASE_URL=mysql://user@host:port/db (created if
 *     missing, kept; a seed already there is reused), else a fresh `bench_<time>` on
 *     mysql://root@127.0.0.1:3306, dropped at the end, on failure and on SIGINT/SIGTERM too
 *     (BENCH_KEEP=1 keeps it).
 *  2. Merchants and keys through the provisioning CLI, then the gateway as its own process
 *     (node dist/src/main.js); balances topped up through it, and one payout and one payment it
 *     created copied in bulk (bench/seed.ts): BENCH_PAYOUTS (100,000) payouts on one "big"
 *     merchant, BENCH_PAYMENTS (100,000) payments over BENCH_MERCHANTS (10) merchants.
 *  3. The two floors (bench/floor.ts) as processes of their own, and the load generator
 *     (bench/loadgen.ts, autocannon) as another.
 *  4. The scenarios (bench/scenarios.ts); per read scenario, each floor's answer is compared
 *     byte for byte with the gateway's; a mismatch stops the run before anything is measured.
 *  5. Per scenario (bench/measure.ts), BENCH_ROUNDS (3) rounds of a BENCH_SECONDS (5) window
 *     on each server in a rotating order, with BENCH_CONNECTIONS (20) connections, after a
 *     warm-up window each.
 *  6. BENCH_PROFILE=1: a profiling pass (bench/profile-pass.ts), CPU µs per request by package.
 *  7. Subscription fan-out (bench/fanout.ts): BENCH_SUBSCRIBERS (500) graphql-ws subscribers
 *     on the gateway while a writer commits events at BENCH_EVENT_RATE (20/s).
 *  8. BENCH_ONLY=batch only: a 5,000-row payout batch created and approved, against the same
 *     payouts created one by one (bench/batch.ts).
 *  9. BENCH_ONLY=report only: an itemized report over 1,000,000 balance transactions, generated
 *     by a gateway of its own while REST reads run against it (bench/report-run.ts).
 * 10. A table on stdout and bench/results/latest.json (bench/report.ts; BENCH_RESULT=<name>.json
 *     writes another file there, e.g. mysql8.json for a run on MySQL 8).
 *
 * BENCH_ONLY=list,deep,gql,get,create,ceiling,methods,subscribe,batch,report runs a subset (groups
 * or scenario names); `batch` and `report` run only when named.
 */
import os from 'node:os';
import { batchScenario } from './batch';
import { reportScenario } from './report-run';
import { subscriptionFanout } from './fanout';
import { cleanup, cleanUpOnSignals, cli, LoadGen, openDatabase, openPool, startFloor, startGateway } from './lifecycle';
import { FLOORS, floorTarget, gatewayTarget, measureScenarios, Target } from './measure';
import { profileScenarios } from './profile-pass';
import { report } from './report';
import { checkSameBytes, methodsAnswer, selectScenarios } from './scenarios';
import { provisionMerchants, seed } from './seed';
import { log, ONLY, PROFILE, round2 } from './settings';

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAtStart = os.loadavg().map(round2);
  cleanUpOnSignals();
  const db = await openDatabase();
  log('migrating');
  await cli(db, ['migrate']);
  const pool = openPool(db);
  try {
    const merchants = await provisionMerchants(db);
    log('starting the gateway');
    const gw = await startGateway(db);
    await seed(pool, gw.url, merchants);

    log(`starting ${FLOORS.map((f) => `${f.side} (${f.statements})`).join(', ')} and the load generator`);
    const methods = await methodsAnswer(gw.url, merchants[0]);
    const targets: Target[] = [gatewayTarget(gw)];
    for (const f of FLOORS) targets.push(floorTarget(f.side, await startFloor(db, f.statements, methods)));
    const loadgen = new LoadGen();

    const { selected, bigPayouts } = await selectScenarios(pool, merchants);
    await checkSameBytes(
      selected,
      gw.url,
      targets.slice(1).map((t) => ({ name: t.side, url: t.url })),
    );
    const results = await measureScenarios(loadgen, targets, selected);
    if (PROFILE) await profileScenarios(db, loadgen, methods, selected, results);
    const subscribe = ONLY.length === 0 || ONLY.includes('subscribe');
    const fanout = subscribe ? await subscriptionFanout(pool, gw.url, gw.metricsUrl!, loadgen, merchants[merchants.length - 1]) : undefined;
    // Last: its 5,000 payouts would change what the list scenarios read.
    const batch = ONLY.includes('batch') ? await batchScenario(gw.url, loadgen, merchants[1]) : undefined;
    const reportRun = ONLY.includes('report') ? await reportScenario(db, pool, loadgen, merchants[1], merchants[0]) : undefined;
    await report({ startedAt, loadAtStart, pool, bigPayouts, targets, loadGeneratorPid: loadgen.proc.pid, results, fanout, batch, reportRun });
  } finally {
    await pool.end().catch(() => undefined);
  }
}

main().then(
  async () => {
    await cleanup();
    process.exit(0);
  },
  async (err) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  },
);
