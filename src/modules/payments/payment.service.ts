/**
 * Payment intents: the one place where their rules live. REST routes, GraphQL resolvers
 * and the hosted checkout page only translate to and from these methods.
 *
 * Lifecycle (CONTRACT.md): requires_action -> processing -> succeeded | failed;
 * requires_action -> cancelled | expired; a method that settles at once goes
 * requires_action -> succeeded inside its create transaction. Every transition is one
 * transaction with its event row and its ledger rows.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { FieldCipher } from '../../domain/crypto';
import { newId, randomToken } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { FieldReader, parseEmptyBody, parseTestFailure } from '../../domain/validation';
import type { ListSpec } from '../../domain/listing';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { Merchant } from '../auth/merchant.entity';
import type { RequestContext } from '../auth/request-context';
import type { EventService } from '../events/event.service';
import type { ApiResult, IdempotencyService } from '../idempotency/idempotency.service';
import { LedgerService, Movement, MOVES } from '../balances/ledger.service';
import { IntentReads, IntentStore } from '../shared/intent-store';
import { METHODS, PaymentMethodName } from '../methods/catalogue';
import type { PayerData, SettleOutcome, StartResult } from '../methods/connector';
import type { MethodChoice, MethodRouting } from '../methods/method-routing.service';
import { PaymentMethodOptionWire, choiceToWire } from '../methods/method.wire';
import type { NextAction } from '../methods/next-action';
import { CustomerData, PaymentIntent, ReceiptData } from './payment.entity';
import { CreatePaymentInput, PaymentMethodOptions, parseCreatePayment, payerOf, paymentFingerprint } from './payment.input';
import { PAYMENT_STATUSES, PaymentStatus, paymentStates } from './payment.states';

export interface PaymentIntentWire {
  object: 'payment_intent';
  id: string;
  amount: string;
  currency: string;
  country: string;
  environment: string;
  checkout_mode: string;
  status: PaymentStatus;
  merchant_reference: string;
  payment_method: string | null;
  next_action: NextAction | null;
  failure_code: string | null;
  failure_message: string | null;
  processing_reason: string | null;
  receipt: ReceiptData | null;
  created_at: string;
  updated_at: string;
}

/** How long a hosted checkout page stays open before the payer picks a method. */
export const HOSTED_CHECKOUT_TTL_MS = 60 * 60 * 1000;
export const CANCEL_REASON_MAX = 512;
export const DEFAULT_CANCEL_MESSAGE = 'Cancelled by the merchant before the payer completed the payment.';
export const EXPIRED_MESSAGE = 'The payer did not complete the payment before it expired.';
export const DEFAULT_TEST_FAILURE = { failure_code: 'payment_declined', failure_message: "The payment was declined by the payer's bank." };

/** processing_reason values (docs/payments.md). */
export const PROCESSING_REASONS = {
  /** The payer has paid (QR scanned, transfer made, bank approval given); the provider is confirming the funds. */
  providerConfirmation: 'provider_confirmation',
} as const;

export const PAYMENT_LIST: ListSpec = { resource: 'payment_intent', statuses: PAYMENT_STATUSES };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

interface StoredPayer {
  customer: CustomerData;
  payment_method_options: PaymentMethodOptions;
}

export function paymentToWire(p: PaymentIntent): PaymentIntentWire {
  return {
    object: 'payment_intent',
    id: p.id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    country: p.country,
    environment: p.environment,
    checkout_mode: p.checkoutMode,
    status: p.status,
    merchant_reference: p.merchantReference,
    payment_method: p.paymentMethod,
    next_action: p.status === 'requires_action' ? p.nextAction : null,
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    processing_reason: p.status === 'processing' ? p.processingReason : null,
    receipt: p.status === 'succeeded' ? p.receipt : null,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

function parseCancel(raw: unknown): { reason: string | null } {
  const body = FieldReader.body(raw ?? {});
  const reason = body.optionalString('reason', { min: 0, max: CANCEL_REASON_MAX });
  body.end();
  return { reason: reason === undefined || reason.trim() === '' ? null : reason };
}



/** What the hosted page needs to render an intent. */
export interface CheckoutView {
  intent: PaymentIntentWire;
  merchantName: string;
  /** The intent's own checkout address. */
  checkoutUrl: string;
  returnUrl: string | null;
  /** Methods the payer may pick (only while no method is chosen). */
  choices: PaymentMethodOptionWire[];
  /** Payer data already known, to prefill the form (discovery names). */
  prefill: PayerData;
  /** Bank name for the chosen method, when it has one. */
  bank: string | null;
}

export type CheckoutOutcome = { kind: 'ok'; view: CheckoutView } | { kind: 'not_found' };

export interface PaymentServiceDeps {
  db: Db;
  idempotency: IdempotencyService;
  events: EventService;
  ledger: LedgerService;
  methods: MethodRouting;
  cipher: FieldCipher;
  /** Delay before the simulated providers take their next step on their own; 0 = never. */
  settleMs: number;
  /** Used when a caller gives no base URL: PUBLIC_BASE_URL, else http://localhost:PORT. */
  defaultBaseUrl: string;
}

type Changes = Partial<Pick<PaymentIntent,
  'paymentMethod' | 'bank' | 'provider' | 'paymentReference' | 'nextAction' | 'processingReason' | 'receipt' | 'failureCode' | 'failureMessage'
  | 'plannedFailureCode' | 'plannedFailureMessage' | 'expiresAt' | 'settleAt' | 'payerEncrypted'>>;

type Actor = Scope & { requestId: string | null };

export class PaymentService extends IntentReads<PaymentIntent, PaymentIntentWire> {

  constructor(private readonly deps: PaymentServiceDeps) {
    super(new IntentStore(deps.db, PaymentIntent, 'payment intent', PAYMENT_LIST, paymentToWire));
  }

  // ---- mutations (each one idempotent operation, one transaction) ----

  create(ctx: RequestContext, raw: unknown, idempotencyKey?: string, baseUrl?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payment_intents', raw, parse: parseCreatePayment,
      execute: (em, input) => this.insert(em, ctx, input, baseUrl ?? this.deps.defaultBaseUrl),
    });
  }

  cancel(ctx: RequestContext, id: string, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payment_intents/:id/cancel', raw,
      parse: (r) => ({ id, ...parseCancel(r) }),
      execute: async (em, input) => {
        const p = await this.store.lock(em, ctx, id);
        if (p.status !== 'requires_action') {
          throw new ApiError('invalid_state', `This payment intent is ${p.status}; only a payment intent in requires_action can be cancelled.`);
        }
        const body = await this.move(em, ctx, p, 'cancelled', { settleAt: null, failureCode: 'cancelled', failureMessage: input.reason ?? DEFAULT_CANCEL_MESSAGE });
        return { status: 200, body };
      },
    });
  }

  /**
   * Test helpers (test keys only): `succeed` and `fail` settle the payment now as the
   * provider would (from requires_action they pass through processing, each step with
   * its own event and ledger rows); `expire` expires a requires_action intent now.
   */
  testAction(ctx: RequestContext, id: string, action: 'succeed' | 'fail' | 'expire', raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    if (ctx.environment !== 'test') return Promise.reject(new ApiError('not_found', 'Test helpers exist only for test-mode API keys.'));
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: `POST /v1/test_helpers/payment_intents/:id/${action}`, raw,
      parse: (r) => ({ id, ...(action === 'fail' ? parseTestFailure(r, DEFAULT_TEST_FAILURE, 'Payment') : parseEmptyBody(r)) }),
      execute: async (em, input) => {
        const p = await this.store.lock(em, ctx, id);
        const now = new Date();
        if (action === 'expire') {
          if (p.status !== 'requires_action') {
            throw new ApiError('invalid_state', `This payment intent is ${p.status}; only a payment intent in requires_action can expire.`);
          }
          return { status: 200, body: await this.expire(em, ctx, p, now) };
        }
        if (p.status !== 'requires_action' && p.status !== 'processing') {
          throw new ApiError('invalid_state', `This payment intent is ${p.status}; only a payment intent in requires_action or processing can be settled.`);
        }
        if (p.status === 'requires_action') {
          if (p.paymentMethod === null) await this.pickForTest(em, ctx, p);
          await this.move(em, ctx, p, 'processing', { processingReason: PROCESSING_REASONS.providerConfirmation, settleAt: null }, now);
        }
        const outcome: SettleOutcome = 'failure_code' in input
          ? { status: 'failed', failureCode: input.failure_code, failureMessage: input.failure_message }
          : { status: 'succeeded' };
        return { status: 200, body: await this.settle(em, ctx, p, outcome, now) };
      },
    });
  }

  // ---- scheduler jobs ----

  /**
   * The simulated providers' own progress: a requires_action payment whose payer acts
   * outside our pages (QR, transfer) is "paid" at settle_at and moves to processing; a
   * processing payment settles at settle_at (succeeds, or fails as its test-mode magic
   * value planned). Competes with the test helpers under the row lock; the loser finds
   * the record moved on and does nothing.
   */
  async settleDue(now = new Date()): Promise<number> {
    let done = 0;
    for (const status of ['processing', 'requires_action'] as const) {
      done += await this.store.processDue('settle_at', status, now, async (em, p, scope) => {
        if (!p.settleAt || p.settleAt.getTime() > now.getTime()) return false;
        const actor = { ...scope, requestId: null };
        if (status === 'requires_action') {
          if (p.expiresAt.getTime() <= now.getTime()) return false;
          await this.move(em, actor, p, 'processing', { processingReason: PROCESSING_REASONS.providerConfirmation, settleAt: this.settleAt(now) }, now);
        } else {
          await this.settle(em, actor, p, this.plannedOutcome(p), now);
        }
        return true;
      });
    }
    return done;
  }

  /** Moves every requires_action intent past its expires_at to expired. */
  async expireDue(now = new Date()): Promise<number> {
    return this.store.processDue('expires_at', 'requires_action', now, (em, p, scope) => this.expireIfOverdue(em, { ...scope, requestId: null }, p, now));
  }

  // ---- hosted checkout (the payer's side; the token is the only credential) ----

  /** The page's view of the intent behind `token`; an overdue intent is expired first. */
  async checkoutView(token: string, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    return this.deps.db.tx(async (em) => {
      const p = await this.findByToken(em, token);
      if (!p) return { kind: 'not_found' } as const;
      await this.expireIfOverdue(em, { ...this.scopeOf(p), requestId: null }, p, now);
      return { kind: 'ok', view: await this.viewOf(em, p) } as const;
    });
  }

  /**
   * The payer picks a method (and bank) on the hosted page and gives the payer data it
   * needs. The same routing and payer-data rules as a direct create apply; the intent
   * then carries the method's next_action (event `payment_intent.requires_action`), or
   * moves on at once for a method that settles immediately.
   */
  async selectMethod(token: string, selection: { method: string; bank?: string; payer: PayerData }, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    return this.deps.db.tx(async (em) => {
      const p = await this.findByToken(em, token, true);
      if (!p) return { kind: 'not_found' } as const;
      const actor = { ...this.scopeOf(p), requestId: null };
      if (await this.expireIfOverdue(em, actor, p, now)) return { kind: 'ok', view: await this.viewOf(em, p) } as const;
      if (p.status !== 'requires_action' || p.paymentMethod !== null) {
        throw new ApiError('invalid_state', p.status === 'requires_action' ? 'A payment method was already chosen for this payment.' : `This payment is ${p.status}.`);
      }
      const stored = this.payerOf(p);
      const customer: CustomerData = { ...stored.customer };
      if (selection.payer.customer_name) customer.name = selection.payer.customer_name;
      if (selection.payer.customer_phone) customer.phone = selection.payer.customer_phone;
      const options: PaymentMethodOptions = {};
      if (selection.payer.account_name) options.account_name = selection.payer.account_name;
      if (selection.payer.account_number) options.account_number = selection.payer.account_number;
      if (selection.bank) options.bank = selection.bank;
      if (selection.payer.name_th) options.name_th = selection.payer.name_th;

      const scope = this.scopeOf(p);
      const choice = await this.deps.methods.route(em, scope, { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: 'hosted' }, {
        method: selection.method, bank: selection.bank, payer: payerOf(customer, options),
      });
      const checkoutUrl = this.checkoutUrlOf(p);
      const start = choice.connector.start(choice.offer, {
        intentId: p.id, environment: p.environment, amount: p.amount, currency: p.currency, country: p.country,
        method: choice.method, bank: choice.bank, payer: payerOf(customer, options), merchantName: await this.merchantName(em, p.merchantId),
        checkoutUrl, now,
      });
      const changes: Changes = {
        ...this.startChanges(choice, start, now),
        payerEncrypted: this.deps.cipher.encrypt(JSON.stringify({ customer, payment_method_options: options } satisfies StoredPayer)),
      };
      const result = await em.createQueryBuilder().update(PaymentIntent).set({ ...changes, updatedAt: now } as never)
        .where('id = :id AND merchant_id = :merchantId AND environment = :environment AND status = :status AND payment_method IS NULL', {
          id: p.id, merchantId: p.merchantId, environment: p.environment, status: 'requires_action',
        })
        .execute();
      if (result.affected !== 1) throw new ApiError('invalid_state', 'This payment changed concurrently; reload the page.');
      Object.assign(p, changes, { updatedAt: now });
      await this.deps.events.record(em, scope, 'requires_action', paymentToWire(p), null, now);
      await this.applyStart(em, actor, p, start, now);
      return { kind: 'ok', view: await this.viewOf(em, p) } as const;
    });
  }

  /** The simulated bank's page: the payer approves a redirect payment, which then processes. */
  async authorizeRedirect(token: string, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    return this.deps.db.tx(async (em) => {
      const p = await this.findByToken(em, token, true);
      if (!p) return { kind: 'not_found' } as const;
      const actor = { ...this.scopeOf(p), requestId: null };
      const expired = await this.expireIfOverdue(em, actor, p, now);
      if (!expired && p.status === 'requires_action') {
        if (!p.paymentMethod || METHODS[p.paymentMethod as PaymentMethodName]?.completedBy !== 'payer_redirect') {
          throw new ApiError('invalid_state', 'This payment is not waiting for a bank approval.');
        }
        await this.move(em, actor, p, 'processing', { processingReason: PROCESSING_REASONS.providerConfirmation, settleAt: this.settleAt(now) }, now);
      }
      return { kind: 'ok', view: await this.viewOf(em, p) } as const;
    });
  }

  // ---- internals ----

  private async insert(em: EntityManager, ctx: RequestContext, input: CreatePaymentInput, baseUrl: string) {
    const fp = paymentFingerprint(input);
    const existing = await this.store.findByReference(em, ctx, input.merchant_reference);
    if (existing) return this.replay(existing, fp, input.merchant_reference);

    const now = new Date();
    const id = newId('paymentIntent', now.getTime());
    const token = randomToken(32);
    const checkoutUrl = `${baseUrl.replace(/\/+$/, '')}/checkout/${token}`;
    const payer = payerOf(input.customer, input.payment_method_options);
    const criteria = { amount: input.amount, currency: input.currency, country: input.country, checkoutMode: input.checkout_mode };

    let changes: Changes;
    let start: StartResult | undefined;
    if (input.checkout_mode === 'hosted') {
      const choices = await this.deps.methods.eligible(em, ctx, criteria);
      if (choices.length === 0) {
        throw new ApiError('payment_method_unavailable', `No payment method is available for ${input.amount} ${input.currency} in ${input.country} in hosted checkout, so there is nothing to offer the payer.`);
      }
      const expiresAt = new Date(now.getTime() + HOSTED_CHECKOUT_TTL_MS);
      changes = { nextAction: { type: 'redirect_to_url', url: checkoutUrl, expires_at: expiresAt.toISOString() }, expiresAt, settleAt: null };
    } else {
      const choice = await this.deps.methods.route(em, ctx, criteria, {
        method: input.payment_method ?? undefined, bank: input.payment_method_options.bank, payer,
      });
      start = choice.connector.start(choice.offer, {
        intentId: id, environment: ctx.environment, amount: input.amount, currency: input.currency, country: input.country,
        method: choice.method, bank: choice.bank, payer, merchantName: await this.merchantName(em, ctx.merchantId), checkoutUrl, now,
      });
      changes = this.startChanges(choice, start, now);
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
      paymentReference: null,
      payerEncrypted: this.deps.cipher.encrypt(JSON.stringify({ customer: input.customer, payment_method_options: input.payment_method_options } satisfies StoredPayer)),
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
      checkoutToken: token,
      settleAt: null,
      createdAt: now,
      updatedAt: now,
      ...changes,
    });
    try {
      await em.getRepository(PaymentIntent).insert(p as never);
    } catch (err) {
      if (!this.deps.db.isUniqueViolation(err)) throw err;
      // A concurrent request with the same merchant_reference committed first.
      const original = await this.store.findByReference(em, ctx, input.merchant_reference, true);
      if (!original) throw err;
      return this.replay(original, fp, input.merchant_reference);
    }
    await this.deps.events.record(em, ctx, 'created', paymentToWire(p), ctx.requestId, now);
    if (start) await this.applyStart(em, ctx, p, start, now);
    return { status: 201, body: paymentToWire(p) };
  }

  private replay(existing: PaymentIntent, fp: string, reference: string) {
    if (existing.requestFingerprint !== fp) {
      throw new ApiError(
        'idempotency_conflict',
        `merchant_reference "${reference}" was already used for a payment intent with different details. Use a new merchant_reference for a new payment, or resend the original request unchanged.`,
      );
    }
    return { status: 200, body: paymentToWire(existing) };
  }

  /** Row changes for a routed, started payment (still in requires_action). */
  private startChanges(choice: MethodChoice, start: StartResult, now: Date): Changes {
    const byProvider = METHODS[choice.method].completedBy === 'provider';
    return {
      paymentMethod: choice.method,
      bank: choice.bank,
      provider: choice.connector.definition.code,
      paymentReference: start.reference,
      nextAction: start.nextAction,
      expiresAt: start.expiresAt,
      settleAt: start.initial.status === 'requires_action' && byProvider ? this.settleAt(now) : null,
      plannedFailureCode: start.settlement.status === 'failed' ? start.settlement.failureCode : null,
      plannedFailureMessage: start.settlement.status === 'failed' ? start.settlement.failureMessage : null,
    };
  }

  /** Moves a freshly started payment on when its method does not wait for the payer. */
  private async applyStart(em: EntityManager, actor: Actor, p: PaymentIntent, start: StartResult, now: Date): Promise<void> {
    if (start.initial.status === 'succeeded') {
      await this.move(em, actor, p, 'succeeded', { settleAt: null, receipt: this.receiptOf(p, now) }, now);
    } else if (start.initial.status === 'processing') {
      await this.move(em, actor, p, 'processing', { processingReason: start.initial.reason, settleAt: this.settleAt(now) }, now);
    }
  }

  private settleAt(now: Date): Date | null {
    return this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null;
  }

  private plannedOutcome(p: PaymentIntent): SettleOutcome {
    return p.plannedFailureCode
      ? { status: 'failed', failureCode: p.plannedFailureCode, failureMessage: p.plannedFailureMessage ?? `Payment failed: ${p.plannedFailureCode}.` }
      : { status: 'succeeded' };
  }

  /** processing -> succeeded | failed. */
  private settle(em: EntityManager, actor: Actor, p: PaymentIntent, outcome: SettleOutcome, now: Date): Promise<PaymentIntentWire> {
    return outcome.status === 'succeeded'
      ? this.move(em, actor, p, 'succeeded', { settleAt: null, receipt: this.receiptOf(p, now) }, now)
      : this.move(em, actor, p, 'failed', { settleAt: null, failureCode: outcome.failureCode, failureMessage: outcome.failureMessage }, now);
  }

  private receiptOf(p: PaymentIntent, now: Date): ReceiptData {
    const day = now.toISOString().slice(0, 10).replace(/-/g, '');
    return {
      receipt_number: `RCPT-${day}-${p.id.slice(-10).toUpperCase()}`,
      amount: formatAmount(p.amount),
      currency: p.currency,
      payment_method: p.paymentMethod ?? 'unknown',
      bank: p.bank,
      reference: p.paymentReference ?? p.id,
      paid_at: now.toISOString(),
    };
  }

  /** Test helper on a hosted intent whose payer has not chosen yet: the first eligible method, as a payer might pick. */
  private async pickForTest(em: EntityManager, scope: Scope, p: PaymentIntent): Promise<void> {
    const [choice] = await this.deps.methods.eligible(em, scope, { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: p.checkoutMode });
    if (!choice) throw new ApiError('invalid_state', 'No payment method is available for this payment any more, so it cannot be settled.');
    const changes: Changes = { paymentMethod: choice.method, bank: choice.bank, provider: choice.connector.definition.code, paymentReference: `PI${p.id.slice(-16).toUpperCase()}` };
    await em.createQueryBuilder().update(PaymentIntent).set(changes as never)
      .where('id = :id AND merchant_id = :merchantId AND environment = :environment', { id: p.id, merchantId: scope.merchantId, environment: scope.environment })
      .execute();
    Object.assign(p, changes);
  }

  /** One transition: conditional update, ledger rows and event row, in `em`'s transaction. */
  /** requires_action -> expired: the one expiry transition (test helper, scheduler, hosted page). */
  private expire(em: EntityManager, actor: Actor, p: PaymentIntent, now: Date): Promise<PaymentIntentWire> {
    return this.move(em, actor, p, 'expired', { settleAt: null, failureCode: 'expired', failureMessage: EXPIRED_MESSAGE }, now);
  }

  /** Expires a requires_action intent whose expires_at has passed; true when it did. */
  private async expireIfOverdue(em: EntityManager, actor: Actor, p: PaymentIntent, now: Date): Promise<boolean> {
    if (p.status !== 'requires_action' || p.expiresAt.getTime() > now.getTime()) return false;
    await this.expire(em, actor, p, now);
    return true;
  }

  private async move(em: EntityManager, actor: Actor, p: PaymentIntent, to: PaymentStatus, changes: Changes, now = new Date()): Promise<PaymentIntentWire> {
    const from = p.status;
    if (!paymentStates.can(from, to)) throw new ApiError('invalid_state', `This payment intent is ${from} and cannot become ${to}.`);
    if (to !== 'processing') changes = { processingReason: null, ...changes };
    await this.store.transition(em, actor, p, to, changes, now);
    const ledger = ledgerFor(from, to);
    if (ledger) {
      await this.deps.ledger.post(em, actor, p.currency, ledger.moves(p.amount), { entryType: ledger.entryType, sourceType: 'payment_intent', sourceId: p.id }, now);
    }
    const wire = paymentToWire(p);
    await this.deps.events.record(em, actor, to, wire, actor.requestId, now);
    return wire;
  }

  private async findByToken(em: EntityManager, token: string, locking = false): Promise<PaymentIntent | null> {
    // The one lookup not bounded by (merchant, environment): the token is the credential, and it names one intent.
    const qb = em.createQueryBuilder(PaymentIntent, 'p').where('p.checkout_token = :token', { token });
    return (locking ? this.deps.db.forUpdate(qb) : qb).getOne();
  }

  private scopeOf(p: PaymentIntent): Scope {
    return { merchantId: p.merchantId, environment: p.environment };
  }

  private payerOf(p: PaymentIntent): StoredPayer {
    return JSON.parse(this.deps.cipher.decrypt(p.payerEncrypted)) as StoredPayer;
  }

  private checkoutUrlOf(p: PaymentIntent): string {
    // Hosted intents were created with the checkout address as their next_action.
    if (p.nextAction?.type === 'redirect_to_url' && p.nextAction.url.endsWith(`/checkout/${p.checkoutToken}`)) return p.nextAction.url;
    return `${this.deps.defaultBaseUrl}/checkout/${p.checkoutToken}`;
  }

  private async merchantName(em: EntityManager, merchantId: string): Promise<string> {
    const m = await em.createQueryBuilder(Merchant, 'm').where('m.id = :id', { id: merchantId }).getOne();
    return m?.name ?? 'Merchant';
  }

  private async viewOf(em: EntityManager, p: PaymentIntent): Promise<CheckoutView> {
    const stored = this.payerOf(p);
    const choices = p.status === 'requires_action' && p.paymentMethod === null
      ? (await this.deps.methods.eligible(em, this.scopeOf(p), { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: 'hosted' })).map(choiceToWire)
      : [];
    return {
      intent: paymentToWire(p),
      merchantName: await this.merchantName(em, p.merchantId),
      checkoutUrl: `/checkout/${p.checkoutToken}`,
      returnUrl: p.returnUrl,
      choices,
      prefill: payerOf(stored.customer, stored.payment_method_options),
      bank: p.bank,
    };
  }
}

/** Balance movements of each transition (LedgerService.MOVES). */
function ledgerFor(from: PaymentStatus, to: PaymentStatus): { entryType: string; moves: (amount: bigint) => Movement[] } | undefined {
  if (to === 'processing') return { entryType: 'payment_pending', moves: MOVES.pend };
  if (to === 'succeeded') return from === 'processing' ? { entryType: 'payment_succeeded', moves: MOVES.clearPending } : { entryType: 'payment_succeeded', moves: MOVES.credit };
  if (to === 'failed') return { entryType: 'payment_failed', moves: MOVES.dropPending };
  return undefined;
}
