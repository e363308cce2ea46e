/**
 * Payment intents, the merchant's side: create, cancel, the test helpers and the reads.
 * State changes go through the payment lifecycle (payment-lifecycle.service.ts); the
 * payer's side lives in checkout.service.ts.
 *
 * A direct create runs in two atomic phases around the provider's start: phase 1 routes
 * the payment and commits the intent with the recovery point; the provider is called
 * outside any transaction; phase 2 commits its answer with the `created` event.
 */
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import { newId, randomToken } from '../../domain/ids';
import { Done, done, external, TxStep as Step } from '../../ops/operation';
import type { Actor } from '../../domain/scope';
import type { Db } from '../../db/db';
import { insertRows } from '../../db/compiled-write';
import type { SettleOutcome, StartResult } from '../methods/connector';
import type { MethodRouting } from '../methods/method-routing.service';
import { IntentReads } from '../shared/intent-store';
import { PaymentIntent, type CustomerData } from './payment.entity';
import { CreatePaymentInput, payerOf, paymentFingerprint } from './payment.input';
import { NoProviderLeft, PaymentLifecycle, providerUnavailable } from './payment-lifecycle.service';
import { paymentStates } from './payment.states';
import type { PaymentChanges } from './payment-rows';
import { DEFAULT_CANCEL_MESSAGE, HOSTED_CHECKOUT_TTL_MS, PaymentIntentWire, paymentToWire } from './payment.wire';
import type { Scope } from '../../domain/scope';
import { In } from 'typeorm';

/** What a create accepted that the REST record does not show: read back by GraphQL only (the record's own read permission). */
export interface PaymentDetails {
  customer: CustomerData;
  metadata: Record<string, string>;
  external_reference: string | null;
  return_url: string | null;
}

export interface PaymentServiceDeps {
  db: Db;
  methods: MethodRouting;
  lifecycle: PaymentLifecycle;
}

export class PaymentService extends IntentReads<PaymentIntent, PaymentIntentWire> {
  constructor(private readonly deps: PaymentServiceDeps) {
    super(deps.lifecycle.store);
  }

  /**
   * A new intent: hosted (the payer chooses on our page) or direct (routed now, the
   * provider started between two phases). A repeated merchant_reference with the same
   * details returns the intent as it is now; with other details it is a conflict.
   */
  async create(em: Tx, ctx: Actor, input: CreatePaymentInput, baseUrl: string): Promise<Step<PaymentIntentWire>> {
    const { lifecycle } = this.deps;
    const fp = paymentFingerprint(input);
    // The merchant_reference is not looked up first: the INSERT meets a taken one on the
    // unique index (uq_payment_intents_reference), which fails that statement alone, and the
    // original is read then. A refusal of the routing below is checked against the reference
    // first, so a repeat still answers with its intent as before.
    const now = new Date();
    const id = newId('paymentIntent', now.getTime());
    const token = randomToken(32);
    const checkoutUrl = `${baseUrl.replace(/\/+$/, '')}/checkout/${token}`;
    const criteria = { amount: input.amount, currency: input.currency, country: input.country, checkoutMode: input.checkout_mode };

    let changes: PaymentChanges;
    try {
      changes = await this.route(em, ctx, input, criteria, checkoutUrl, now);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      const existing = await this.store.findByReference(em, ctx, input.merchant_reference);
      if (existing) return repeat(existing, fp, input.merchant_reference);
      throw err;
    }

    const p = Object.assign(new PaymentIntent(), {
      id,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      amount: input.amount,
      currency: input.currency,
      country: input.country,
      checkoutMode: input.checkout_mode,
      status: 'requires_action' as const,
      merchantReference: input.merchant_reference,
      requestFingerprint: fp,
      paymentMethod: null,
      bank: null,
      provider: null,
      providerReference: null,
      providerRedirectUrl: null,
      paymentReference: null,
      payerEncrypted: lifecycle.encryptPayer({ customer: input.customer, payment_method_options: input.payment_method_options }),
      returnUrl: input.return_url,
      metadata: Object.keys(input.metadata).length > 0 ? input.metadata : null,
      externalReference: input.external_reference,
      deviceFingerprint: input.device_fingerprint,
      nextAction: null,
      processingReason: null,
      receipt: null,
      failureCode: null,
      failureMessage: null,
      plannedFailureCode: null,
      plannedFailureMessage: null,
      providerCall: null,
      amountRefunded: 0n,
      paymentLinkId: input.payment_link ?? null,
      checkoutToken: token,
      settleAt: null,
      createdAt: now,
      updatedAt: now,
      ...changes,
    });
    try {
      if (p.providerCall === null) return done('created', await lifecycle.engine.create(em, ctx, p, now));
      await insertRows(em, PaymentIntent, [p]);
    } catch (err) {
      if (!this.deps.db.isUniqueViolation(err)) throw err;
      // The merchant_reference is taken (earlier, or by a concurrent request that committed first).
      const original = await this.store.findByReference(em, ctx, input.merchant_reference, true);
      if (!original) throw err;
      return repeat(original, fp, input.merchant_reference);
    }
    const merchantName = await lifecycle.merchantName(em, ctx.merchantId);
    return external(
      () => this.startOrWithdraw(p, merchantName, now, checkoutUrl),
      // The create's one instant: created_at = updated_at, and the provider's deadlines count from it.
      // `p` is the row phase 1 committed: phase 2 updates it without reading it again if it is still so.
      async (tx, start) => done('created', await lifecycle.finishStart(tx, ctx, p.id, start, 'created', now, p)),
    );
  }

  /**
   * The provider start of a direct create. When no provider is left (each timed out or
   * answered 5xx before accepting), the intent phase 1 committed is withdrawn (it has no event
   * and reserved nothing: nobody saw it) and the create is answered 503 provider_unavailable,
   * which releases the Idempotency-Key: a retry starts afresh.
   */
  private async startOrWithdraw(p: PaymentIntent, merchantName: string, now: Date, checkoutUrl: string): Promise<StartResult> {
    try {
      return await this.deps.lifecycle.callStart(p, merchantName, now, checkoutUrl);
    } catch (err) {
      if (!(err instanceof NoProviderLeft)) throw err;
      await this.deps.db.tx((em) =>
        em
          .createQueryBuilder()
          .delete()
          .from(PaymentIntent)
          .where('id = :id AND merchant_id = :merchantId AND environment = :environment AND provider_call = :call', {
            id: p.id,
            merchantId: p.merchantId,
            environment: p.environment,
            call: 'start',
          })
          .execute(),
      );
      throw providerUnavailable();
    }
  }

  /** The row changes of a new intent's checkout: the hosted page, or the routed method (its provider started between two phases). */
  private async route(
    em: Tx,
    ctx: Actor,
    input: CreatePaymentInput,
    criteria: Parameters<MethodRouting['route']>[2],
    checkoutUrl: string,
    now: Date,
  ): Promise<PaymentChanges> {
    if (input.checkout_mode === 'hosted') {
      const choices = await this.deps.methods.eligible(em, ctx, criteria);
      if (choices.length === 0) {
        throw new ApiError(
          'payment_method_unavailable',
          `No payment method is available for ${input.amount} ${input.currency} in ${input.country} in hosted checkout, so there is nothing to offer the payer.`,
        );
      }
      const expiresAt = new Date(now.getTime() + HOSTED_CHECKOUT_TTL_MS);
      return { nextAction: { type: 'redirect_to_url', url: checkoutUrl, expires_at: expiresAt.toISOString() }, expiresAt };
    }
    const choice = await this.deps.methods.route(em, ctx, criteria, {
      method: input.payment_method ?? undefined,
      bank: input.payment_method_options.bank,
      payer: payerOf(input.customer, input.payment_method_options),
    });
    // Until the provider answers, the intent waits no longer than a hosted page would.
    return { ...this.deps.lifecycle.beginStart(choice), expiresAt: new Date(now.getTime() + HOSTED_CHECKOUT_TTL_MS) };
  }

  async cancel(em: Tx, ctx: Actor, id: string, reason: string | null): Promise<Done<PaymentIntentWire>> {
    const cancelled = await this.deps.lifecycle.engine.applyTo(em, ctx, id, 'cancel', {
      settleAt: null,
      failureCode: 'cancelled',
      failureMessage: reason ?? DEFAULT_CANCEL_MESSAGE,
    });
    return done('done', cancelled);
  }

  /**
   * Test helper: settle the payment now as the provider would. From requires_action it
   * passes through processing, each step with its own event and ledger rows; a hosted
   * intent whose payer has not chosen yet gets the first eligible method.
   */
  async testSettle(em: Tx, ctx: Actor, id: string, outcome: SettleOutcome): Promise<Done<PaymentIntentWire>> {
    const { lifecycle } = this.deps;
    const p = await this.store.lock(em, ctx, id);
    const now = new Date();
    if (p.status !== 'requires_action') paymentStates.check(outcome.status === 'succeeded' ? 'succeed' : 'fail', p.status);
    else if (p.paymentMethod === null) await lifecycle.pickForTest(em, ctx, p, now);
    const { end } = await lifecycle.applyProviderState(em, ctx, p, outcome, now);
    return done('done', { value: paymentToWire(p), end });
  }

  /** The details of several intents of `scope` (one statement; the payer data decrypted), for a DataLoader. */
  async detailsMany(scope: Scope, ids: readonly string[]): Promise<Map<string, PaymentDetails>> {
    const rows = await this.deps.db.read((em) =>
      em.find(PaymentIntent, {
        select: { id: true, payerEncrypted: true, metadata: true, externalReference: true, returnUrl: true },
        where: { merchantId: scope.merchantId, environment: scope.environment, id: In([...ids]) },
      }),
    );
    const lifecycle = this.deps.lifecycle;
    return new Map(
      rows.map((p) => [
        p.id,
        { customer: lifecycle.payerOf(p).customer, metadata: p.metadata ?? {}, external_reference: p.externalReference, return_url: p.returnUrl },
      ]),
    );
  }

  /** Test helper: expire a requires_action intent now. */
  async testExpire(em: Tx, ctx: Actor, id: string): Promise<Done<PaymentIntentWire>> {
    const lifecycle = this.deps.lifecycle;
    return done('done', await lifecycle.expire(em, ctx, await this.store.lock(em, ctx, id)));
  }
}

/** A create that repeats an existing merchant_reference: the intent as it is now, or a conflict. */
function repeat(existing: PaymentIntent, fp: string, reference: string): Done<PaymentIntentWire> {
  if (existing.requestFingerprint !== fp) {
    throw new ApiError(
      'idempotency_conflict',
      `merchant_reference "${reference}" was already used for a payment intent with different details. Use a new merchant_reference for a new payment, or resend the original request unchanged.`,
    );
  }
  return { outcome: 'existing', value: paymentToWire(existing) };
}
