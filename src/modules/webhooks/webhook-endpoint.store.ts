/**
 * The webhook endpoint service's row work: finding one scope's endpoint, the scope's lock
 * row, the per-scope cap, cancelling an endpoint's pending deliveries, and the SSRF check
 * of an endpoint url's host.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import type { Scope } from '../../domain/scope';
import { PrepareAndRetry, type Db } from '../../db/db';
import { resolvePublic, SsrfError, UnresolvedHostError } from './ssrf';
import { WebhookDelivery, WebhookEndpoint, WebhookEndpointLock } from './webhook.entity';
import { MAX_ENDPOINTS } from './webhook.schemas';
import { lockedCount, lockedOne } from '../../db/locking-read';

/** One endpoint of this scope that is not deleted, or null; `lock` takes its row for the transaction. */
export async function findEndpoint(em: EntityManager, scope: Scope, id: string, lock = false): Promise<WebhookEndpoint | null> {
  if (!isId('webhookEndpoint', id)) return null;
  const qb = em
    .createQueryBuilder(WebhookEndpoint, 'w')
    .where('w.id = :id AND w.merchant_id = :merchantId AND w.environment = :environment AND w.status <> :deleted', {
      id,
      merchantId: scope.merchantId,
      environment: scope.environment,
      deleted: 'deleted',
    });
  return lock ? lockedOne(em, qb) : qb.getOne();
}

/**
 * The cap, counted under the scope's lock row (the caller took it with lockScope): a
 * locking read counts the latest committed rows, whatever snapshot the transaction holds.
 */
export async function checkRoomForOneMore(em: EntityManager, scope: Scope): Promise<void> {
  const count = await lockedCount(
    em,
    em.createQueryBuilder(WebhookEndpoint, 'w').where('w.merchant_id = :merchantId AND w.environment = :environment AND w.status = :enabled', {
      merchantId: scope.merchantId,
      environment: scope.environment,
      enabled: 'enabled',
    }),
  );
  if (count >= MAX_ENDPOINTS) {
    throw new ApiError('endpoint_limit_reached', `At most ${MAX_ENDPOINTS} enabled webhook endpoints per environment; delete or disable one first.`);
  }
}

export async function cancelPending(em: EntityManager, endpointId: string, now: Date, reason: string): Promise<void> {
  await em
    .createQueryBuilder()
    .update(WebhookDelivery)
    .set({ status: 'cancelled', updatedAt: now, lastError: reason })
    .where('endpoint_id = :id AND status = :pending', { id: endpointId, pending: 'pending' })
    .execute();
}

/**
 * Takes the scope's row of webhook_endpoint_locks for the rest of `em`'s transaction by
 * writing it (see WebhookEndpointLock): creates and deletes of one scope's endpoints then
 * run one at a time across processes, and on Galera the second of two concurrent ones
 * fails certification and is retried by Db.tx, to count again. A SELECT ... FOR UPDATE
 * alone would not do there: Galera does not replicate read locks.
 *
 * The first use in a scope makes the row: on SQLite inside `em` (the queue runs it
 * alone); on MySQL committed on its own before the unit of work reruns (PrepareAndRetry,
 * as for a first balance row: parallel inserts into one gap would deadlock).
 */
export async function lockScope(db: Db, em: EntityManager, scope: Scope): Promise<void> {
  const bumped = await em
    .createQueryBuilder()
    .update(WebhookEndpointLock)
    .set({ version: () => 'version + 1' })
    .where('merchant_id = :merchantId AND environment = :environment', { merchantId: scope.merchantId, environment: scope.environment })
    .execute();
  if (bumped.affected) return;
  const row = { merchantId: scope.merchantId, environment: scope.environment, version: '1' };
  if (db.kind === 'sqlite') {
    await em.insert(WebhookEndpointLock, row);
    return;
  }
  throw new PrepareAndRetry('the webhook endpoint lock row', async () => {
    try {
      await db.ds.getRepository(WebhookEndpointLock).insert({ ...row, version: '0' });
    } catch (err) {
      if (!db.isUniqueViolation(err)) throw err;
    }
  });
}

/** The SSRF refusal for a parsed url, or null. */
export async function precheckHost(target: string, allowLoopback: boolean): Promise<ApiError | null> {
  const url = new URL(target);
  try {
    await resolvePublic(url.hostname, allowLoopback);
    return null;
  } catch (err) {
    // A host without a DNS answer today (not yet set up, or no resolver here) is accepted:
    // it points nowhere yet, and every delivery resolves and checks the address again.
    if (err instanceof UnresolvedHostError) return null;
    if (err instanceof SsrfError) return ApiError.validation('url', `url is not allowed: ${err.message}.`);
    throw err;
  }
}
