/**
 * Outcomes from real providers: a webhook (verified by the account's connector) or the
 * reconciliation job's read-back moves a payment forward through the payment lifecycle,
 * under the payment's row lock. State only moves forward and each transition moves the ledger
 * once (PaymentLifecycle.applyProviderState), so duplicate, late and out-of-order news is harmless.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/db';
import { ApiError } from '../../domain/errors';
import { PaymentIntent } from '../payments/payment.entity';
import type { PaymentLifecycle } from '../payments/payment-lifecycle.service';
import { InvalidSignatureError, isAccountCode, type ProviderPaymentState } from '../providers/live-connector';
import type { LiveConnectors } from '../providers/live-connectors';

/** How many pending payments one reconciliation pass reads back at most. */
const RECONCILE_BATCH = 50;

export interface ProviderOutcomesDeps {
  db: Db;
  payments: PaymentLifecycle;
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
      news = await connector.receiveWebhook(raw, headers, (providerReference) => this.knows(accountId, providerReference));
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
    const p = await this.deps.db.read((em) => em.findOne(PaymentIntent, { where: { provider: accountId, providerReference: news.providerReference } }));
    if (!p) {
      log.info({ providerAccount: accountId, event: news.eventId, type: news.eventType }, 'provider webhook for no payment of ours; ignored');
      return { received: true };
    }
    const changed = await this.apply(p, news.state);
    log.info({ providerAccount: accountId, event: news.eventId, type: news.eventType, paymentIntent: p.id, changed }, 'provider webhook applied');
    return { received: true };
  }

  /** Whether `providerReference` is one of our payments at the account. */
  private async knows(accountId: string, providerReference: string): Promise<boolean> {
    return (await this.deps.db.read((em) => em.count(PaymentIntent, { where: { provider: accountId, providerReference } }))) > 0;
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
    return this.deps.db.tx(async (em) => {
      const locked = await this.deps.payments.store.lock(em, scope, p.id);
      return this.deps.payments.applyProviderState(em, { ...scope, requestId: null }, locked, state);
    });
  }
}
