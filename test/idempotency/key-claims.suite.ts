/**
 * Each way of claiming an Idempotency-Key (src/ops/key-claim.ts) behind the same
 * pipeline: the separate claim (its own transaction; SQLite and MySQL 8 use it) on every
 * engine, and the inline claim (in the first phase's transaction; MariaDB's) where the server
 * has SET STATEMENT. Each must answer alike: the first call runs, a repeat replays the same
 * bytes, another body under the key is a 409, and a refusal (a body that does not parse, or
 * one the phases refuse) is stored and replayed.
 */
import pino from 'pino';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../src/domain/errors';
import type { RequestContext } from '../../src/domain/scope';
import { IdempotencyService } from '../../src/modules/idempotency/idempotency.service';
import { keyClaimOf } from '../../src/modules/idempotency/key-claims';
import { OperationPipeline } from '../../src/ops/pipeline';
import { startServer, TestServer } from '../helpers/server';
import { mysqlServer } from '../helpers/skip';
import { payoutBody } from '../helpers/client';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ scheduler: false });
});

afterAll(async () => {
  await srv?.close();
});

const claims: [string, boolean][] =
  mysqlServer() === 'MariaDB'
    ? [
        ['inline claim', true],
        ['separate claim', false],
      ]
    : [['separate claim', false]];

describe.each(claims)('%s', (_name, inline) => {
  let pipeline: OperationPipeline;
  let ctx: RequestContext;

  beforeAll(async () => {
    const keys = new IdempotencyService(srv.app.db, 60_000, srv.app.cipher, inline);
    pipeline = new OperationPipeline(srv.app.db, { claim: keyClaimOf(keys), hooks: keys.hooks }, srv.app.audit);
    const client = await srv.merchant();
    ctx = { ...client.key!, requestId: `req_${randomUUID()}`, log: pino({ level: 'silent' }) };
  });

  const create = (body: unknown, key: string) => pipeline.run(srv.app.ops.payouts.create, ctx, body, {}, key);

  test('the first call runs; a repeat replays the same bytes; another body under the key is a 409', async () => {
    const key = randomUUID();
    const body = payoutBody({ merchant_reference: `claim-${key}` });
    const first = await create(body, key);
    expect(first.replayed).toBe(false);
    if (first.replayed) return;
    expect(first.outcome).toBe('created');
    const again = await create(body, key);
    expect(again).toEqual({ replayed: true, status: 201, body: JSON.stringify(first.value) });
    await expect(create({ ...body, amount: '101' }, key)).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  test('a body that does not parse is refused, stored, and replayed', async () => {
    const key = randomUUID();
    const refused = await create({ amount: 'lots' }, key).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(400);
    const replay = await create({ amount: 'lots' }, key);
    expect(replay).toMatchObject({ replayed: true, status: 400 });
    if (replay.replayed) expect(JSON.parse(replay.body)).toEqual((refused as ApiError).toBody());
  });

  test('a refusal of the phases (insufficient_balance) is stored and replayed; nothing of it commits', async () => {
    const key = randomUUID();
    const body = payoutBody({ amount: '99999999999999', merchant_reference: `claim-big-${key}` });
    await expect(create(body, key)).rejects.toMatchObject({ code: 'insufficient_balance' });
    const replay = await create(body, key);
    expect(replay).toMatchObject({ replayed: true, status: 422 });
    const rows = await srv.app.db.ds.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM payout_intents WHERE merchant_reference = ?', [
      `claim-big-${key}`,
    ]);
    expect(Number(rows[0].n)).toBe(0);
  });
});
