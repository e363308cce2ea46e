/**
 * Write-path bench: create throughput with 1 and with 10 merchants, and SQL
 * statements per create. The gateway runs in this process; autocannon runs in a child
 * process (bench/writes-load.ts) so the load generator does not share the gateway's CPU.
 *
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/bench node dist/bench/writes.js
 *   WRITES_SECONDS (default 3)  WRITES_CONNECTIONS (default 20)  WRITES_ROUTES (payout,payment)
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import path from 'node:path';
import { createTestDatabase, startServer } from '../test/helpers/server';

const seconds = Number(process.env.WRITES_SECONDS ?? 3);
const connections = Number(process.env.WRITES_CONNECTIONS ?? 20);
const routes = (process.env.WRITES_ROUTES ?? 'payout,payment').split(',');
const merchantCounts = (process.env.WRITES_MERCHANTS ?? '1,10').split(',').map(Number);

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function load(url: string, route: string, auths: string[]): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'writes-load.js'), [], {
      env: {
        ...process.env,
        LOAD_URL: url,
        LOAD_ROUTE: route,
        LOAD_AUTHS: JSON.stringify(auths),
        LOAD_SECONDS: String(seconds),
        LOAD_CONNECTIONS: String(connections),
      },
    });
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code) reject(new Error(`load exited ${code}`));
    });
  });
}

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const srv = await startServer({ database, scheduler: false, env: { RATE_LIMIT_PER_SECOND: '1000000', WEBHOOK_DELIVERY: '0' } });
  try {
    const clients = [];
    for (let i = 0; i < Math.max(...merchantCounts); i++) clients.push(await srv.merchant(`bench-${i}`));
    const rows = [];
    for (const route of routes) {
      for (const n of merchantCounts) {
        const auths = clients.slice(0, n).map((c) => c.authorization!);
        await load(srv.url, route, auths.slice(0, 1)).catch(() => undefined); // warm-up is short: see LOAD_SECONDS
        const before = srv.app.db.queryCount;
        const cpu = process.cpuUsage();
        const r = await load(srv.url, route, auths);
        const used = process.cpuUsage(cpu);
        const statements = (srv.app.db.queryCount - before) / Math.max(1, r.requests);
        // The gateway's own CPU per request (user + system): steadier than req/s on a shared machine.
        const cpuMs = (used.user + used.system) / 1000 / Math.max(1, r.requests);
        rows.push({
          route,
          merchants: n,
          rps: Math.round(r.rps),
          p50_ms: r.p50,
          p99_ms: r.p99,
          statements_per_request: statements.toFixed(2),
          cpu_ms_per_request: cpuMs.toFixed(2),
          non2xx: r.non2xx,
          errors: r.errors,
        });
      }
    }
    console.table(rows);
    process.stdout.write(`${JSON.stringify({ database: database.kind, seconds, connections, rows })}\n`);
  } finally {
    await srv.close();
    await database.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
