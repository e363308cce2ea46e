/**
 * What a payment of a payment link does to its link: the payments module is given this at
 * construction and calls it where one of its payments succeeds and where its checkout's methods
 * are chosen.
 *
 * A link's row is the lock its writers share (links/link.service.ts): the completion count goes
 * up under it, so the count, the limit and the active flag are read and written one writer at a
 * time.
 */
import type { EntityManager } from 'typeorm';
import type { EndWork } from '../../db/batch';
import type { Tx } from '../../db/tx';
import type { Actor } from '../../domain/scope';
import type { EventService } from '../events/event.service';
import type { PaymentIntent } from '../payments/payment.entity';
import type { PaymentLinks } from '../payments/payment-lifecycle.service';
import { PaymentLink } from '../links/link.entity';
import { findLink } from '../links/link.reads';
import { linkToWire } from '../links/link.wire';

export interface LinkProgressDeps {
  events: EventService;
  /** PUBLIC_BASE_URL (a link's wire record carries its url). */
  baseUrl: () => string;
}

export class LinkProgress implements PaymentLinks {
  constructor(private readonly deps: LinkProgressDeps) {}

  /**
   * In the transaction that makes `p` succeed: the link's count goes up by one under its row
   * lock, and the completion that reaches the limit records `payment_link.completed`. A payer
   * starts a payment only while the link's completed and open payments are below its limit
   * (links/pay.service.ts), so the count never passes the limit. Its writes for the end of the
   * unit (the event, if any).
   */
  async completed(tx: Tx, actor: Actor, p: PaymentIntent, now: Date): Promise<EndWork[]> {
    if (p.paymentLinkId === null) return [];
    const link = await findLink(tx, actor, p.paymentLinkId, true);
    if (!link) return [];
    const change = { completedCount: link.completedCount + 1, updatedAt: now };
    await tx.update(PaymentLink, { id: link.id }, change);
    Object.assign(link, change);
    if (link.completionLimit === null || link.completedCount !== link.completionLimit) return [];
    const wire = linkToWire(link, this.deps.baseUrl());
    return [await this.deps.events.prepare(tx, actor, 'completed', wire, actor.requestId, now)];
  }

  /** The method names the hosted page may offer for `p`: its link's, or null (every eligible one). */
  async allowedMethods(em: EntityManager, p: PaymentIntent): Promise<readonly string[] | null> {
    if (p.paymentLinkId === null) return null;
    return (await findLink(em, p, p.paymentLinkId))?.allowedMethods ?? null;
  }
}
