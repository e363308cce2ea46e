/**
 * The writing process of `npm run bench:latency` (forked, talks over IPC): a full gateway
 * on the same database that causes events through its own REST routes, one request at a
 * time, and reports when each event's transaction committed (CLOCK_MONOTONIC, which every
 * process on the machine shares).
 */
import 'reflect-metadata';
import { startServer, TestDatabase } from '../test/helpers/server';
import { Client, payoutBody } from '../test/helpers/client';

export interface WriterJob {
  database: TestDatabase['env'];
  env: Record<string, string>;
  auth: string;
  merchantId: string;
  count: number;
}

process.once('message', (job: WriterJob) => {
  run(job).then(
    (commits) => process.send!({ commits }, () => process.exit(0)),
    (err) => process.send!({ error: String(err?.stack ?? err) }, () => process.exit(1)),
  );
});

async function run(job: WriterJob): Promise<[number, string][]> {
  const database: TestDatabase = { env: job.database, kind: job.database.DATABASE_URL ? 'mysql' : 'sqlite', drop: async () => undefined };
  const srv = await startServer({ database, scheduler: false, env: job.env });
  const commits: [number, string][] = [];
  srv.app.events.onCommitted((events) => {
    const t = process.hrtime.bigint().toString();
    for (const e of events) if (e.merchantId === job.merchantId) commits.push([e.seq, t]);
  });
  try {
    if (job.env.REDIS_URL) {
      const deadline = Date.now() + 5000;
      while (!srv.app.eventHub.redisReady && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (!srv.app.eventHub.redisReady) throw new Error(`writer: Redis not ready at ${job.env.REDIS_URL}`);
    }
    process.send!({ ready: true });
    await new Promise<void>((resolve) => process.once('message', () => resolve()));
    const client = new Client(srv.url, job.auth);
    for (let i = 0; i < job.count; i++) {
      const res = await client.post('/v1/payout_intents', payoutBody({ amount: '1' }));
      if (res.status !== 201) throw new Error(`writer: POST /v1/payout_intents ${res.status} ${res.text}`);
    }
    return commits;
  } finally {
    await srv.close();
  }
}
