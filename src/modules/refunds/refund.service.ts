/**
 * Refunds: the one place where their rules live. REST routes and GraphQL resolvers only
 * translate to and from these methods.
 *
 * Serialisation: a refund is created under the row lock of its payment intent, and raises
 * the payment's `amount_refunded` in the same transaction with a compare-and-set
 * (PaymentLifecycle.addRefunded). Every refund of one payment therefore writes the same row:
 * on one server the lock orders them, on a Galera cluster (node-local locks) the later
 * writer fails certification and its transaction reruns on the new sum. So the refunds of
 * a payment that have not failed never add up to more than its amount. A failure gives the
 * amount back (balance and amount_refunded) in the transaction of the one conditional
 * `pending -> failed` update, so exactly once, whoever fails the refund first.
 *
 * Lock order: payment intent, then balance (create); refund, then payment intent, then
 * balance (failure); refund, then balance (success). No cycle.
 */
import type { Written } from '../../db/batch';
import type { Tx } from '../../db/tx';
import type { RefundConnector, SettleOutcome } from '../../domain/connector';
import { ApiError } from '../../domain/errors';
import { amountOf } from '../../domain/fields';
import { newId } from '../../domain/ids';
import { AMOUNT_AND_STATUS_SORTS, ListParams, Page, toPage } from '../../domain/listing';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import { formatAmount } from '../../domain/money';
import { done, type Done } from '../../ops/operation';
import type { Actor, Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import type { PaymentLifecycle } from '../payments/payment-lifecycle.service';
import { IntentReads, IntentStore } from '../shared/intent-store';
import { Lifecycle, LifecycleDeps } from '../shared/lifecycle';
import { Refund } from './refund.entity';
import { PaymentIntent } from '../payments/payment.entity';
import { REFUND_LIST, type CreateRefundBody } from './refund.schemas';
import { RefundStatus, refundStates } from './refund.states';
import { isoInstant } from '../../domain/instant';
import type { RefundWire } from './refund.schemas';
import type { Logger } from 'pino';
import { isAccountCode, type LiveConnector } from '../providers/live-connector';

/** How long a refund pending at a real provider waits before the provider is asked again. */
export const PROVIDER_REFUND_RECHECK_MS = 5_000;

/** A refund's answer from its provider: settled, or still pending at a real provider (asked again later). */
type RefundAnswer = SettleOutcome | { status: 'pending'; providerReference: string | null };
export type { RefundWire } from './refund.schemas';

type RefundTransition = keyof typeof refundStates.transitions;

export interface CreateRefundInput {
  payment_intent: string;
  /** null: what is still refundable. */
  amount: bigint | null;
  reason: string | null;
  merchant_reference: string | null;
}

export function refundToWire(r: Refund): RefundWire {
  return {
    object: 'refund',
    id: r.id,
    payment_intent: r.paymentIntentId,
    amount: formatAmount(r.amount),
    currency: r.currency,
    environment: r.environment,
    status: r.status,
    reason: r.reason,
    merchant_reference: r.merchantReference,
    failure_code: r.failureCode,
    failure_message: r.failureMessage,
    created_at: isoInstant(r.createdAt),
    updated_at: isoInstant(r.updatedAt),
  };
}

/** Normalises a create body the schema accepted: absent and null are the same, a blank reason is none. */
export function parseCreateRefund(body: CreateRefundBody): CreateRefundInput {
  const reason = body.reason ?? null;
  return {
    payment_intent: body.payment_intent,
    amount: body.amount === undefined || body.amount === null ? null : amountOf(body.amount),
    reason: reason === null || reason.trim() === '' ? null : reason,
    merchant_reference: body.merchant_reference ?? null,
  };
}

export interface RefundServiceDeps {
  db: Db;
  lifecycle: LifecycleDeps;
  /** The payment intents' side: their store (row locks) and `amount_refunded`. */
  payments: PaymentLifecycle;
  connector: RefundConnector;
  /** Real provider accounts: a refund of a payment taken through one goes back through it. */
  accounts?: { byId(id: string): Promise<LiveConnector | null> };
  log?: Pick<Logger, 'info' | 'warn'>;
  /** Delay before the provider settles a pending refund on its own; 0 = never. */
  settleMs: number;
}

/** Fault injection and slow-provider simulation for tests. */
export interface RefundProviderHooks {
  /** Runs where the provider call runs (outside any transaction), before it. */
  beforeProviderCall?: (refundId: string) => Promise<void>;
}

export class RefundService extends IntentReads<Refund, RefundWire> {
  readonly lifecycle: Lifecycle<Refund, RefundStatus, RefundTransition, RefundWire>;
  readonly hooks: RefundProviderHooks = {};

  constructor(private readonly deps: RefundServiceDeps) {
    const store = new IntentStore(deps.db, Refund, 'refund', 'refund', REFUND_LIST, refundToWire);
    super(store);
    this.lifecycle = new Lifecycle(deps.lifecycle, refundStates, store, refundToWire);
  }

  /**
   * A pending refund of a succeeded payment intent, its amount held from `available`. A
   * repeated merchant_reference returns the original refund, whatever the body.
   */
  async create(em: Tx, ctx: Actor, input: CreateRefundInput): Promise<Done<RefundWire>> {
    const reference = input.merchant_reference;
    if (reference !== null) {
      const existing = await this.store.findByReference(em, ctx, reference);
      if (existing) return { outcome: 'existing', value: refundToWire(existing) };
    }
    const { payments } = this.deps;
    const p = await payments.store.lock(em, ctx, input.payment_intent);
    if (p.status !== 'succeeded') {
      throw new ApiError('invalid_state', `This payment intent is ${p.status}; only a succeeded payment intent can be refunded.`);
    }
    const refundable = p.amount - p.amountRefunded;
    if (refundable === 0n) {
      throw new ApiError('refund_exceeds_payment', `This payment intent is already refunded in full (${formatAmount(p.amount)} ${p.currency}).`);
    }
    const amount = input.amount ?? refundable;
    if (amount > refundable) {
      throw new ApiError(
        'refund_exceeds_payment',
        `A refund of ${formatAmount(amount)} ${p.currency} exceeds what is still refundable on this payment intent: ${formatAmount(refundable)} of ${formatAmount(p.amount)}.`,
      );
    }
    const now = new Date();
    const r = Object.assign(new Refund(), {
      id: newId('refund', now.getTime()),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      paymentIntentId: p.id,
      amount,
      currency: p.currency,
      country: p.country,
      status: 'pending' as const,
      reason: input.reason,
      merchantReference: reference,
      failureCode: null,
      failureMessage: null,
      // A payment taken through a real provider account is refunded through it, at once (the job sends it).
      provider: isAccountCode(p.provider) ? p.provider : this.deps.connector.code,
      providerReference: null,
      settleAt: isAccountCode(p.provider) ? now : this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null,
      createdAt: now,
      updatedAt: now,
    });
    let created: Written<RefundWire>;
    try {
      // Inserts, holds the amount (insufficient_balance rolls the insert back), records refund.created.
      created = await this.lifecycle.create(em, ctx, r, now);
    } catch (err) {
      if (reference === null || !this.deps.db.isUniqueViolation(err)) throw err;
      // A concurrent request with the same merchant_reference committed first: return its refund.
      const original = await this.store.findByReference(em, ctx, reference, true);
      if (!original) throw err;
      return { outcome: 'existing', value: refundToWire(original) };
    }
    await payments.addRefunded(em, ctx, p, amount, now);
    return done('created', created);
  }

  /** Test helper: settle a pending refund now, as the provider would. */
  async settle(em: Tx, ctx: Actor, id: string, outcome: SettleOutcome): Promise<Done<RefundWire>> {
    return done('done', await this.applyOutcome(em, ctx, await this.store.lock(em, ctx, id), outcome));
  }

  /**
   * The provider's own settlement of every pending refund whose settle_at has passed: the
   * provider is called outside any transaction, then the outcome is applied under the row
   * lock. A test helper that settled the refund meanwhile wins; this pass then does
   * nothing. Returns how many it settled.
   */
  async settleDue(now = new Date()): Promise<number> {
    return this.store.processDue<RefundAnswer>(
      'settle_at',
      'pending',
      now,
      async (em, r, scope, outcome) => {
        if (outcome.status === 'pending') {
          // Still pending at the provider (or it could not be reached): asked again later.
          const changes = { providerReference: outcome.providerReference ?? r.providerReference, settleAt: new Date(Date.now() + PROVIDER_REFUND_RECHECK_MS) };
          await this.store.patch(em, scope, r, changes, new Date());
          return false;
        }
        return (await this.applyOutcome(em, { ...scope, requestId: null }, r, outcome)).end;
      },
      (r, scope) => this.callProvider(r, scope),
    );
  }

  /** The refunds of the scope, newest first, with the listing filters and `payment_intent`. */
  override async list(scope: Scope, params: ListParams): Promise<Page<RefundWire>> {
    const rows = await this.deps.db.read((em) => {
      const qb = applyList(em.createQueryBuilder(Refund, 'r'), 'r', scope, params);
      if (params.extra.payment_intent) {
        // One payment's refunds: a range of ix_refunds_payment (payment_intent_id, created_at, id)
        // from the cursor down (a status filter is checked on its rows). Unforced, MariaDB read it
        // as a `ref` from the newest refund down to the cursor (rows read = depth), and SQLite
        // preferred the status index when a status was given.
        qb.andWhere('r.payment_intent_id = :paymentIntent', { paymentIntent: params.extra.payment_intent });
        return listRows(em, qb, 'r', params, { list: 'ix_refunds_payment', sqliteToo: true });
      }
      return listRows(em, qb, 'r', params, listIndexesOf('refunds', true, Object.keys(AMOUNT_AND_STATUS_SORTS)));
    });
    return toPage(rows, params, REFUND_LIST.resource, scope, refundToWire);
  }

  private async callProvider(r: Refund, scope: Scope): Promise<RefundAnswer> {
    if (this.hooks.beforeProviderCall) await this.hooks.beforeProviderCall(r.id);
    if (isAccountCode(r.provider)) return this.callAccount(r);
    return this.deps.connector.settle({
      refundId: r.id,
      paymentIntentId: r.paymentIntentId,
      amount: r.amount,
      currency: r.currency,
      environment: scope.environment,
    });
  }

  /** A refund through the real provider account that took the payment: sent once (idempotency key from the refund id), then read back until settled. */
  private async callAccount(r: Refund): Promise<RefundAnswer> {
    const log = this.deps.log;
    const connector = this.deps.accounts ? await this.deps.accounts.byId(r.provider) : null;
    const payment = await this.deps.db.read((em) =>
      em.findOne(PaymentIntent, { where: { id: r.paymentIntentId, merchantId: r.merchantId, environment: r.environment } }),
    );
    if (!connector || !payment?.providerReference) throw new Error(`refund ${r.id}: its provider account or payment reference is gone`);
    try {
      const state = await connector.refund({
        refundId: r.id,
        paymentReference: payment.providerReference,
        amount: r.amount,
        currency: r.currency,
        providerReference: r.providerReference,
      });
      if (state.status === 'pending') return { status: 'pending', providerReference: state.providerReference };
      if (state.status === 'succeeded') return { status: 'succeeded' };
      log?.info({ refund: r.id, providerAccount: r.provider, providerCode: state.providerCode }, 'provider refused the refund');
      return { status: 'failed', failureCode: 'refund_declined', failureMessage: 'The refund could not be completed.' };
    } catch (err) {
      const reason = (err as { providerUnavailable?: string }).providerUnavailable;
      if (reason === undefined) throw err;
      log?.warn({ refund: r.id, providerAccount: r.provider, reason }, 'provider unavailable for a refund; asked again later');
      return { status: 'pending', providerReference: null };
    }
  }

  private async applyOutcome(em: Tx, actor: Actor, r: Refund, outcome: SettleOutcome): Promise<Written<RefundWire>> {
    const now = new Date();
    if (outcome.status === 'succeeded') return this.lifecycle.apply(em, actor, r, 'succeed', { settleAt: null }, now);
    // Failed: the payment row is locked before the balance row (the order create takes them).
    const { payments } = this.deps;
    const p = await payments.store.lock(em, actor, r.paymentIntentId);
    const failed = await this.lifecycle.apply(
      em,
      actor,
      r,
      'fail',
      { settleAt: null, failureCode: outcome.failureCode, failureMessage: outcome.failureMessage },
      now,
    );
    await payments.addRefunded(em, actor, p, -r.amount, now);
    return failed;
  }
}
