/** A payment link by id in the caller's scope, optionally under its row lock: the read its writers share. */
import type { EntityManager } from 'typeorm';
import { lockedOne } from '../../db/locking-read';
import { isId } from '../../domain/ids';
import type { Scope } from '../../domain/scope';
import { PaymentLink } from './link.entity';

export function findLink(em: EntityManager, scope: Scope, id: string, lock = false): Promise<PaymentLink | null> {
  if (!isId('paymentLink', id)) return Promise.resolve(null);
  const qb = em.createQueryBuilder(PaymentLink, 'l').where('l.id = :id AND l.merchant_id = :merchantId AND l.environment = :environment', {
    id,
    merchantId: scope.merchantId,
    environment: scope.environment,
  });
  return lock ? lockedOne(em, qb) : qb.getOne();
}
