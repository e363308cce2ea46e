/**
 * The payment lifecycle's row writes that are conditional on what the caller read: the
 * provider's answer recorded only on an unchanged row, and the compare-and-set of
 * amount_refunded. Also the merchant's display name the provider calls carry.
 */
import type { EntityManager } from 'typeorm';
import { compiledSelect } from '../../db/compiled-select';
import { updateWhere } from '../../db/compiled-write';
import { ApiError } from '../../domain/errors';
import type { Scope } from '../../domain/scope';
import { Merchant } from '../auth/merchant.entity';
import { PaymentIntent } from './payment.entity';

/** The columns the lifecycle changes on a payment intent. */
export type PaymentChanges = Partial<
  Pick<
    PaymentIntent,
    | 'paymentMethod'
    | 'bank'
    | 'provider'
    | 'providerReference'
    | 'providerRedirectUrl'
    | 'paymentReference'
    | 'nextAction'
    | 'processingReason'
    | 'receipt'
    | 'failureCode'
    | 'failureMessage'
    | 'plannedFailureCode'
    | 'plannedFailureMessage'
    | 'expiresAt'
    | 'settleAt'
    | 'payerEncrypted'
    | 'providerCall'
  >
>;

/**
 * Records `changes` on `known` (the row as phase 1 committed it) with one conditional
 * UPDATE, without reading the row again: it applies only if the row is still exactly that
 * (waiting for this start, requires_action, and not changed since: every write of a payment
 * sets updated_at), and then takes the same row lock the locking read would have. False
 * when anything moved the row meanwhile (nothing changed).
 */
export async function updateIfUnchanged(
  em: EntityManager,
  scope: Scope,
  known: PaymentIntent,
  changes: PaymentChanges & { updatedAt: Date },
): Promise<boolean> {
  const affected = await updateWhere(
    em,
    PaymentIntent,
    'answer-unchanged',
    changes,
    "id = ? AND merchant_id = ? AND environment = ? AND status = 'requires_action' AND provider_call = 'start' AND updated_at = ?",
    [known.id, scope.merchantId, scope.environment, known.updatedAt.getTime()],
  );
  if (affected !== 1) return false;
  Object.assign(known, changes);
  return true;
}

/**
 * Moves `amount_refunded` of a payment locked in `em`'s transaction by `delta` (a new
 * refund: +amount; a failed one: -amount). The update is a compare-and-set on the value
 * read under the lock, so it never builds on a stale sum: on one server the row lock
 * already orders refunds; on a Galera cluster, whose row locks are node-local, two
 * nodes' refunds both write this row and the later commit fails certification (a
 * deadlock error, rerun by `Db.tx` on the new sum).
 */
export async function addRefunded(em: EntityManager, scope: Scope, p: PaymentIntent, delta: bigint, now: Date): Promise<void> {
  const next = p.amountRefunded + delta;
  if (next < 0n || next > p.amount) throw new Error(`payment ${p.id}: amount_refunded would become ${next} of ${p.amount}`);
  const result = await em
    .createQueryBuilder()
    .update(PaymentIntent)
    .set({ amountRefunded: next, updatedAt: now })
    .where('id = :id AND merchant_id = :merchantId AND environment = :environment AND amount_refunded = :before', {
      id: p.id,
      merchantId: scope.merchantId,
      environment: scope.environment,
      before: p.amountRefunded.toString(),
    })
    .execute();
  if (result.affected !== 1) throw new ApiError('invalid_state', 'This payment intent changed concurrently; retry the refund.');
  Object.assign(p, { amountRefunded: next, updatedAt: now });
}

export async function merchantName(em: EntityManager, merchantId: string): Promise<string> {
  const [m] = await compiledSelect(em, 'merchant.byId', { id: merchantId }, () => em.createQueryBuilder(Merchant, 'm').where('m.id = :id'));
  return m?.name ?? 'Merchant';
}
