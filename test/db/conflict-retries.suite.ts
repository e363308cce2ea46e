/**
 * A write that keeps losing to concurrent writers (deadlock, lock wait time-out, a Galera
 * certification conflict: all ER_LOCK_DEADLOCK or ER_LOCK_WAIT_TIMEOUT) past its retries is 503
 * service_unavailable with Retry-After, never a 500; nothing of it committed, and its
 * Idempotency-Key is released, so the same request sent again reaches one outcome.
 * The conflict is injected at the end of the unit (the pipeline's beforeCommit hook), where a
 * certification conflict strikes. MySQL/MariaDB only: SQLite runs one unit at a time.
 * The metrics count each rerun (database_conflict_retries_total) and each loss
 * (database_conflicts_exhausted_total).
 */
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { ConflictRetriesExhausted, PrepareAndRetry } from '../../src/db/errors';
import type { RequestContext } from '../../src/domain/scope';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { keyClaimOf } from '../../src/modules/idempotency/key-claims';
import { OperationPipeline } from '../../src/ops/pipeline';
import { startServer, TestServer } from '../helpers/server';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';
import { payoutBody } from '../helpers/client';

let srv: TestServer;
beforeAll(async () => {
  if (usingMysql()) srv = await startServer({ scheduler: false, env: { METRICS_PORT: '0' } });
});
afterAll(async () => {
  await srv?.close();
});

testIf(usingMysql(), NEEDS_MYSQL)('a conflict that outlasts the retries: 503 with Retry-After, nothing written, the key retried to one payout', async () => {
  const keys = new IdempotencyService(srv.app.db, 60_000, srv.app.cipher, srv.app.idempotency.claimsInline);
  const pipeline = new OperationPipeline(srv.app.db, { claim: keyClaimOf(keys), hooks: keys.hooks }, srv.app.audit);
  const client = await srv.merchant();
  const ctx: RequestContext = { ...client.key!, requestId: `req_${randomUUID()}`, log: pino({ level: 'silent' }) };
  const before = (await client.get('/v1/balances')).body;
  const metrics = async () => {
    const text = (await srv.client().withBase(srv.metricsUrl!).get('/metrics')).text;
    const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    return { retries: value('database_conflict_retries_total'), exhausted: value('database_conflicts_exhausted_total') };
  };
  const counted = await metrics();
  let attempts = 0;
  keys.hooks.beforeCommit = () => {
    attempts++;
    return Promise.reject(
      Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { errno: 1213, code: 'ER_LOCK_DEADLOCK' }),
    );
  };
  const key = randomUUID();
  const body = payoutBody({ merchant_reference: `conflict-${key}` });
  const failed = await pipeline.run(srv.app.ops.payouts.create, ctx, body, {}, key).catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(ConflictRetriesExhausted);
  expect(failed).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '2' } });
  expect(attempts).toBe(10);
  expect(await metrics()).toEqual({ retries: counted.retries + 9, exhausted: counted.exhausted + 1 });
  expect((await client.get(`/v1/payout_intents?merchant_reference=conflict-${key}`)).body.data).toEqual([]);
  expect((await client.get('/v1/balances')).body).toEqual(before);

  keys.hooks.beforeCommit = undefined;
  await keys.flushReleases?.();
  const retried = await pipeline.run(srv.app.ops.payouts.create, ctx, body, {}, key);
  expect(retried).toMatchObject({ replayed: false, outcome: 'created' });
  const again = await pipeline.run(srv.app.ops.payouts.create, ctx, body, {}, key);
  expect(again.replayed).toBe(true);
  expect((await client.get(`/v1/payout_intents?merchant_reference=conflict-${key}`)).body.data).toHaveLength(1);
});

testIf(usingMysql(), NEEDS_MYSQL)('a read that times out on a lock (as a Galera causal read does) is run again and answers', async () => {
  const client = await srv.merchant();
  const merchantId = client.key!.merchantId;
  const holder = srv.app.db.ds.createQueryRunner();
  await holder.connect();
  try {
    await holder.query('START TRANSACTION');
    await holder.query('SELECT id FROM merchants WHERE id = ? FOR UPDATE', [merchantId]);
    let attempts = 0;
    const read = await srv.app.db.read(async (em) => {
      // The second attempt finds the lock released.
      if (++attempts === 2) await holder.query('COMMIT');
      return em.query('SET STATEMENT innodb_lock_wait_timeout = 1 FOR SELECT id FROM merchants WHERE id = ? LOCK IN SHARE MODE', [merchantId]);
    });
    expect({ attempts, read }).toEqual({ attempts: 2, read: [{ id: merchantId }] });
  } finally {
    await holder.release();
  }
});

testIf(usingMysql(), NEEDS_MYSQL)('a preparation that loses a race counts as an attempt, and the unit then runs', async () => {
  let prepares = 0;
  let runs = 0;
  const value = await srv.app.db.unit(async () => {
    if (++runs === 1) {
      throw new PrepareAndRetry('a row', async () => {
        if (++prepares === 1)
          throw Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), { errno: 1205, code: 'ER_LOCK_WAIT_TIMEOUT' });
      });
    }
    return { value: 'done', end: [] };
  });
  // The unit ran once, its preparation lost and was counted as an attempt, the unit ran again (and needed no preparation).
  expect({ value, runs, prepares }).toEqual({ value: 'done', runs: 2, prepares: 1 });
});
