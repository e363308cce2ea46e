/**
 * Outcomes from real providers: a webhook (verified by the account's connector) or the
 * reconciliation job's read-back moves a payment forward through the payment lifecycle,
 * under the payment's row lock. State only moves forward and each transition moves the ledger
 * once (PaymentLifecycle.applyProviderState), so duplicate, late and out-of-order news is harmless.
 * A webhook about a payout's transfer has the payout read back and settled at once
 * (PayoutService.settleFromProvider); the payouts.settle job reads transfers back without one.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/db';
import { ApiError } from '../../domain/errors';
import { PaymentIntent } from '../payments/payment.entity';
import { PayoutIntent } from '../payouts/payout.entity';
import type { PayoutService } from '../payouts/payout.service';
import type { PaymentLifecycle } from '../payments/payment-lifecycle.service';
import { InvalidSignatureError, isAccountCode, type PayoutWebhookNews, type ProviderPaymentState, type ProviderRecordKind } from '../providers/live-connector';
import type { LiveConnectors } from '../providers/live-connectors';

/** How many pending payments one reconciliation pass reads back at most. */
const RECONCILE_BATCH = 50;

export interface ProviderOutcomesDeps {
  db: Db;
  payments: PaymentLifecycle;
  payouts: Pick<PayoutService, 'settleFromProvider'>;
  connectors: LiveConnectors;
  log: Logger;
  /** PROVIDER_RECONCILE_AFTER_MS. */
  reconcileAfterMs: number;
}

export class ProviderOutcomes {
  constructor(private readonly deps: ProviderOutcomesDeps) {}

  /** A webhook to POST /v1/provider_webhooks/:pa_id. 400 invalid_signature (logged, nothing changes) unless its provider vouches for it. */
  async receive(accountId: string, raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<{ received: true }> {
    const { log } = this.deps;
    const connector = await this.deps.connectors.byId(accountId);
    const refuse = (why: string) => {
      log.warn({ providerAccount: connector ? accountId : undefined, reason: why }, 'provider webhook refused');
      return new ApiError('invalid_signature', 'The webhook signature does not verify; nothing was changed.');
    };
    if (!connector) throw refuse('unknown provider account');
    let news;
    try {
      news = await connector.receiveWebhook(raw, headers, (providerReference, kind) => this.knows(accountId, providerReference, kind));
    } catch (err) {
      if (err instanceof InvalidSignatureError) throw refuse(err.message);
      const reason = (err as { providerUnavailable?: string }).providerUnavailable;
      if (reason === undefined) throw err;
      // The provider could not confirm the event (Opn's fetch-back): 503, so it delivers it again later.
      log.warn({ providerAccount: accountId, reason }, 'provider webhook could not be confirmed; the provider will retry');
      throw Object.assign(new ApiError('service_unavailable', 'The event could not be confirmed now; nothing was changed. Deliver it again later.'), {
        headers: { 'Retry-After': '30' },
      });
    }
    if (!news) return { received: true };
    if ('payout' in news) return this.receivePayout(accountId, news);
    const p = await this.deps.db.read((em) => em.findOne(PaymentIntent, { where: { provider: accountId, providerReference: news.providerReference } }));
    if (!p) {
      log.info({ providerAccount: accountId, event: news.eventId, type: news.eventType }, 'provider webhook for no payment of ours; ignored');
      return { received: true };
    }
    const changed = await this.apply(p, news.state);
    log.info({ providerAccount: accountId, event: news.eventId, type: news.eventType, paymentIntent: p.id, changed }, 'provider webhook applied');
    return { received: true };
  }

  /**
   * A transfer's news: its payout, still processing, is read back and settled now. A payout
   * already settled does not move (the contract has no payout state after `succeeded`): a
   * failure reported for a payout the provider had reported paid (a transfer reversed after it
   * was paid) is logged for the operator, and changes nothing a merchant sees.
   */
  private async receivePayout(accountId: string, news: PayoutWebhookNews): Promise<{ received: true }> {
    const { log } = this.deps;
    const context = { providerAccount: accountId, event: news.eventId, type: news.eventType };
    const settled = await this.deps.payouts.settleFromProvider(accountId, news.providerReference);
    if (!settled) {
      log.info(context, 'provider webhook for no payout of ours; ignored');
      return { received: true };
    }
    if (!settled.changed && settled.status === 'succeeded' && news.payout.status === 'failed') {
      log.warn(
        { ...context, payoutIntent: settled.id, providerCode: news.payout.providerCode, providerMessage: news.payout.providerMessage },
        'provider reports a failure of a payout it had reported paid; the payout stays succeeded, reconcile it with the provider by hand',
      );
      return { received: true };
    }
    log.info({ ...context, payoutIntent: settled.id, status: settled.status, changed: settled.changed }, 'provider webhook applied');
    return { received: true };
  }

  /** Whether `providerReference` is one of our payments (or payouts) at the account. */
  private async knows(accountId: string, providerReference: string, kind: ProviderRecordKind = 'payment'): Promise<boolean> {
    const entity = kind === 'payout' ? PayoutIntent : PaymentIntent;
    return (await this.deps.db.read((em) => em.count(entity, { where: { provider: accountId, providerReference } }))) > 0;
  }

  /**
   * Reads back every payment pending at a provider for longer than PROVIDER_RECONCILE_AFTER_MS
   * and applies what the provider says: a lost webhook delays an outcome, never loses it.
   */
  async reconcile(now = new Date()): Promise<number> {
    const before = now.getTime() - this.deps.reconcileAfterMs;
    const pending = await this.deps.db.read((em) =>
      em
        .createQueryBuilder(PaymentIntent, 'p')
        .where('p.status IN (:...statuses) AND p.provider_reference IS NOT NULL AND p.provider_call IS NULL AND p.updated_at <= :before', {
          statuses: ['requires_action', 'processing'],
          before,
        })
        .orderBy('p.updated_at', 'ASC')
        .limit(RECONCILE_BATCH)
        .getMany(),
    );
    let changed = 0;
    for (const p of pending) {
      if (!isAccountCode(p.provider) || !p.providerReference) continue;
      try {
        const connector = await this.deps.connectors.byId(p.provider);
        if (!connector) continue;
        const state = await connector.fetchPayment(p.providerReference);
        if (await this.apply(p, state)) changed++;
      } catch (err) {
        this.deps.log.warn({ err, paymentIntent: p.id, providerAccount: p.provider }, 'reconciliation could not read a payment back; next pass retries');
      }
    }
    return changed;
  }

  /** Applies `state` to the payment under its row lock; the provider's own failure code goes to the log only. */
  private async apply(p: PaymentIntent, state: ProviderPaymentState): Promise<boolean> {
    if (state.status === 'failed' || state.status === 'cancelled') {
      this.deps.log.info(
        { paymentIntent: p.id, providerAccount: p.provider, status: state.status, providerCode: state.providerCode, providerMessage: state.providerMessage },
        'provider reports the payment did not complete',
      );
    }
    const scope = { merchantId: p.merchantId, environment: p.environment };
    return this.deps.db.unit(async (em) => {
      const locked = await this.deps.payments.store.lock(em, scope, p.id);
      return this.deps.payments.applyProviderState(em, { ...scope, requestId: null }, locked, state);
    });
  }
}
