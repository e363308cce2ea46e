/**
 * Many events of one scope recorded together (a payout batch's approval: two events for each
 * of up to 5,000 payouts). The scope's counter moves once, by the number of events, and the
 * events take the numbers below the new value in order, so the stream stays 1..N with no gap;
 * the rows (and the webhook deliveries the fan-out plans) go in INSERTs of at most CHUNK rows.
 * It is end-of-unit work (src/db/batch.ts `EndWork`, returned to the caller for the end of the
 * unit): the counter row is locked from its statement to COMMIT.
 */
import { newId } from '../../domain/ids';
import { insertOf } from '../../db/compiled-write';
import type { EndWork, Statement } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { EventRecord } from './event.entity';
import type { EventService, WireRecord } from './event.service';
import { actorOf, type ActingScope } from './event.wire';

const CHUNK = 500;

export interface NewEvent {
  /** `<record.object>.<suffix>`. */
  suffix: string;
  record: WireRecord;
}

/** Records `events` in `tx` at the end of the unit of work. */
export async function recordMany(
  service: EventService,
  tx: Tx,
  scope: ActingScope,
  events: readonly NewEvent[],
  requestId: string | null,
  now = new Date(),
): Promise<EndWork> {
  const actor = actorOf(scope);
  const rows = events.map(({ suffix, record }) =>
    Object.assign(new EventRecord(), {
      id: newId('event', now.getTime()),
      merchantId: scope.merchantId,
      environment: scope.environment,
      type: `${record.object}.${suffix}`,
      resourceId: record.id,
      data: record as unknown as Record<string, unknown>,
      requestId,
      actor,
      createdAt: now,
      seq: null as number | null,
    }),
  );
  // The fan-out's reads happen now, before the counter row is locked.
  const after = await service.fanOut.plan(tx, rows);
  return async () => {
    if (rows.length === 0) return;
    const last = await takeNumbers(tx, scope, rows.length);
    rows.forEach((row, i) => (row.seq = last - rows.length + 1 + i));
    for (let i = 0; i < rows.length; i += CHUNK) await run(tx, insertOf(tx, EventRecord, rows.slice(i, i + CHUNK)));
    for (const s of after) await run(tx, s);
    tx.afterCommit(() => service.announce([{ merchantId: scope.merchantId, environment: scope.environment, seq: last }]));
  };
}

function run(tx: Tx, s: Statement): Promise<unknown> {
  return tx.query(s.sql, s.params);
}

/** Moves the scope's counter by `n`; the new value (the last event's number). */
async function takeNumbers(tx: Tx, scope: ActingScope, n: number): Promise<number> {
  if (tx.connection.options.type === 'mysql') {
    const result = await tx.query<{ insertId?: number | string }>(
      'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + ?)',
      [scope.merchantId, scope.environment, n, n],
    );
    // A first insert sets no insert id (no AUTO_INCREMENT column): 0 means the row was created with n.
    const id = Number(result.insertId ?? 0);
    return id > 0 ? id : n;
  }
  const rows = await tx.query<{ last_seq: string | number }[]>(
    'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, ?) ON CONFLICT (merchant_id, environment) DO UPDATE SET last_seq = last_seq + ? RETURNING last_seq',
    [scope.merchantId, scope.environment, n, n],
  );
  return Number(rows[0].last_seq);
}
