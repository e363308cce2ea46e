/**
 * The payment lifecycle: every state change of a payment intent, whoever causes it (the
 * merchant's API call, the payer's page, the provider via the scheduler, a test helper),
 * goes through the engine and the state table in payment.states.ts.
 *
 * Provider starts run between atomic phases: `beginStart` commits the routed method with
 * the recovery point `provider_call = 'start'`; `callStart` asks the provider outside any
 * transaction; `finishStart` commits the answer (next_action, deadlines, the event, and an
 * immediate transition for methods that settle at once). A crash in between leaves the
 * recovery point, and `resumeStarts` (a scheduler job) finishes such payments.
 */
import type { EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { EndWork, Written } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import type { FieldCipher } from '../../domain/crypto';
import type { Actor, Scope } from '../../domain/scope';
import { Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import { METHODS, PaymentMethodName } from '../methods/catalogue';
import type { SettleOutcome, StartResult } from '../methods/connector';
import type { MethodChoice, MethodRouting } from '../methods/method-routing.service';
import { IntentStore } from '../shared/intent-store';
import { Lifecycle, LifecycleDeps } from '../shared/lifecycle';
import { PaymentIntent } from './payment.entity';
import { plannedOutcome, receiptOf, scopeOf } from './payment-facts';
import { payerOf } from './payment.input';
import { addRefunded, merchantName, PaymentChanges, updateIfUnchanged } from './payment-rows';
import { PaymentStatus, paymentStates } from './payment.states';
import { EXPIRED_MESSAGE, PAYMENT_LIST, PaymentIntentWire, paymentToWire, PROCESSING_REASONS, StoredPayer } from './payment.wire';

/**
 * What a provider says about a payment, in the gateway's words: a real one's webhook or
 * read-back (src/modules/providers/live-connector.ts ProviderPaymentState), a simulated one's
 * own step (`settleDue`), or a test helper speaking for the provider.
 */
export interface ProviderState {
  status: 'pending' | 'processing' | 'succeeded' | 'failed' | 'cancelled';
  /**
   * For `failed`: what the merchant is told (a SettleOutcome's names, so a planned outcome is a
   * provider state as it is). Absent: payment_failed; a real provider's own code stays in the logs.
   */
  failureCode?: string;
  failureMessage?: string;
  /** For `processing`: when a simulated provider settles the payment on its own. A real one's outcome arrives as news instead. */
  settleAt?: Date | null;
}

/** The failure a merchant is told when the provider gave none it may see. */
const PROVIDER_FAILURE = { code: 'payment_failed', message: 'The payment could not be completed.' };

/** Every candidate provider was unavailable (timed out, or answered 5xx before accepting). */
export class NoProviderLeft extends Error {
  constructor(readonly reasons: string[]) {
    super(`no provider available (${reasons.join('; ')})`);
  }
}

/** Seconds a client is told to wait before retrying when no provider is available. */
export const PROVIDER_RETRY_AFTER_S = 30;

/** 503 provider_unavailable with Retry-After: nothing was started, nothing reserved; retry later. */
export function providerUnavailable(): ApiError {
  return Object.assign(
    new ApiError(
      'provider_unavailable',
      'No payment provider can take this payment right now; nothing was charged or reserved. Retry after the Retry-After header.',
    ),
    { headers: { 'Retry-After': String(PROVIDER_RETRY_AFTER_S) } },
  );
}

/** A provider start older than this without an answer is taken to have crashed, and is resumed. */
export const PROVIDER_CALL_LEASE_MS = 30_000;

export interface PaymentLifecycleDeps {
  db: Db;
  lifecycle: LifecycleDeps;
  methods: MethodRouting;
  cipher: FieldCipher;
  /** Delay before the simulated providers take their next step on their own; 0 = never. */
  settleMs: number;
  /** The base of checkout links (PUBLIC_BASE_URL). */
  baseUrl: () => string;
  /** Where failover notes each provider it skipped (account id and reason; never a secret). */
  log?: Pick<Logger, 'warn'>;
  /** The payment's link, if it has one: its completions and its checkout's methods. */
  links: PaymentLinks;
}

/**
 * What a payment's link adds to its path (src/modules/link-progress), given at construction:
 * payments never read or write a link's row themselves.
 */
export interface PaymentLinks {
  /** In the transaction that makes `p` succeed, once per payment (the transition is conditional): its writes for the end of the unit. */
  completed(tx: Tx, actor: Actor, p: PaymentIntent, now: Date): Promise<EndWork[]>;
  /** The method names the hosted page may offer for `p`; null = every eligible one. */
  allowedMethods(em: EntityManager, p: PaymentIntent): Promise<readonly string[] | null>;
}

/** Fault injection and slow-provider simulation for tests. */
export interface ProviderCallHooks {
  /** Runs where the provider call runs (outside any transaction), before it. */
  beforeProviderCall?: (intentId: string) => Promise<void>;
}

export class PaymentLifecycle {
  readonly engine: Lifecycle<PaymentIntent, PaymentStatus, keyof typeof paymentStates.transitions, PaymentIntentWire>;
  readonly store: IntentStore<PaymentIntent, PaymentIntentWire>;
  readonly hooks: ProviderCallHooks = {};

  constructor(private readonly deps: PaymentLifecycleDeps) {
    this.store = new IntentStore(deps.db, PaymentIntent, 'paymentIntent', 'payment intent', PAYMENT_LIST, paymentToWire);
    this.engine = new Lifecycle(deps.lifecycle, paymentStates, this.store, paymentToWire);
  }

  /** The method names the hosted page may offer for `p` (its link's); null = every eligible one. */
  allowedMethods(em: EntityManager, p: PaymentIntent): Promise<readonly string[] | null> {
    return this.deps.links.allowedMethods(em, p);
  }

  // ---- provider starts, in atomic phases ----

  /** Phase 1's row changes: the routed method, and the recovery point. */
  beginStart(choice: MethodChoice): PaymentChanges {
    return { paymentMethod: choice.method, bank: choice.bank, provider: choice.connector.code, providerCall: 'start' };
  }

  /** The provider call, outside any transaction; everything it needs is on the row. */
  async callStart(p: PaymentIntent, merchantName: string, now: Date, checkoutUrl = this.checkoutUrlOf(p)): Promise<StartResult> {
    const candidates = await this.deps.methods.startCandidates(scopeOf(p), {
      provider: p.provider as string,
      method: p.paymentMethod as string,
      bank: p.bank,
      amount: p.amount,
      currency: p.currency,
    });
    const stored = this.payerOf(p);
    const attempt = {
      intentId: p.id,
      environment: p.environment,
      amount: p.amount,
      currency: p.currency,
      country: p.country,
      method: p.paymentMethod as PaymentMethodName,
      bank: p.bank,
      payer: payerOf(stored.customer, stored.payment_method_options),
      merchantName,
      checkoutUrl,
      now,
    };
    return this.deps.db.outside(async () => {
      if (this.hooks.beforeProviderCall) await this.hooks.beforeProviderCall(p.id);
      // Failover: a provider that times out or answers 5xx before accepting is skipped for the
      // next candidate. Every create carries an idempotency key derived from the intent id, and a
      // QR or redirect no payer ever saw cannot be paid: at most one start is ever acted on.
      const reasons: string[] = [];
      for (const { connector, offer } of candidates) {
        try {
          const start = await connector.start(offer, attempt);
          return connector.code === p.provider ? start : { ...start, provider: connector.code };
        } catch (err) {
          const reason = (err as { providerUnavailable?: string }).providerUnavailable;
          if (reason === undefined) throw err;
          reasons.push(reason);
          this.deps.log?.warn({ paymentIntent: p.id, providerAccount: connector.code, reason }, 'provider unavailable; trying the next eligible account');
        }
      }
      throw new NoProviderLeft(reasons);
    });
  }

  /**
   * Phase 2: records the provider's answer on the intent if it is still waiting for it,
   * records `event` (`created` for a direct create, `requires_action` for a method the
   * payer chose), then moves on at once for a method that does not wait for the payer.
   */
  async finishStart(
    em: Tx,
    actor: Actor,
    id: string,
    start: StartResult,
    event: 'created' | 'requires_action',
    now = new Date(),
    known?: PaymentIntent,
  ): Promise<Written<PaymentIntentWire>> {
    let p: PaymentIntent;
    if (known && (await this.answerUnchanged(em, actor, known, start, now))) {
      p = known;
    } else {
      p = await this.store.lock(em, actor, id);
      if (p.providerCall !== 'start') return { value: paymentToWire(p), end: [] };
      if (p.status !== 'requires_action') {
        // Cancelled or expired while the provider answered: the answer is moot.
        await this.store.patch(em, actor, p, { providerCall: null }, now);
        return { value: paymentToWire(p), end: [] };
      }
      await this.store.patch(em, actor, p, this.answerOf(p, start, now), now);
    }
    const recorded = await this.engine.record(em, actor, p, event, now);
    let next: Written<PaymentIntentWire> | null = null;
    if (start.initial.status === 'succeeded') next = await this.succeed(em, actor, p, 'succeedAtOnce', now);
    else if (start.initial.status === 'processing') {
      next = await this.engine.apply(em, actor, p, 'process', { processingReason: start.initial.reason, settleAt: this.settleAt(now) }, now);
    }
    return next ? { value: next.value, end: [...recorded.end, ...next.end] } : { value: paymentToWire(p), end: recorded.end };
  }

  /** The row changes that record the provider's answer to a start. */
  private answerOf(p: PaymentIntent, start: StartResult, now: Date): PaymentChanges {
    const byProvider = METHODS[p.paymentMethod as PaymentMethodName].completedBy === 'provider';
    if (start.providerReference !== undefined) {
      // A real provider: its outcome arrives by webhook or reconciliation, never by a timer or a plan.
      return {
        providerCall: null,
        ...(start.provider ? { provider: start.provider } : {}),
        providerReference: start.providerReference,
        providerRedirectUrl: start.providerRedirectUrl ?? null,
        paymentReference: start.reference,
        nextAction: start.nextAction,
        expiresAt: start.expiresAt,
        settleAt: null,
        plannedFailureCode: null,
        plannedFailureMessage: null,
      };
    }
    return {
      providerCall: null,
      paymentReference: start.reference,
      nextAction: start.nextAction,
      expiresAt: start.expiresAt,
      settleAt: start.initial.status === 'requires_action' && byProvider ? this.settleAt(now) : null,
      plannedFailureCode: start.settlement.status === 'failed' ? start.settlement.failureCode : null,
      plannedFailureMessage: start.settlement.status === 'failed' ? start.settlement.failureMessage : null,
    };
  }

  /**
   * Records the answer on `known` (the row as phase 1 committed it) with one conditional
   * UPDATE, without reading the row again: it applies only if the row is still exactly that
   * (waiting for this start, requires_action, and not changed since: every write of a payment
   * sets updated_at), and then takes the same row lock the locking read would have. False
   * when anything moved the row meanwhile (nothing changed): the caller reads it under lock.
   */
  private async answerUnchanged(em: EntityManager, scope: Scope, known: PaymentIntent, start: StartResult, now: Date): Promise<boolean> {
    if (known.providerCall !== 'start' || known.status !== 'requires_action') return false;
    const changes = { ...this.answerOf(known, start, now), updatedAt: now };
    return updateIfUnchanged(em, scope, known, changes);
  }

  /**
   * Applies what a provider says about a payment to `p`, locked in `em`'s transaction: the one
   * path of every outcome, whether a real provider's (a verified webhook, or the reconciliation
   * job's read-back), a simulated provider's (`settleDue`) or a test helper's. State only moves
   * forward: news of a state the payment has passed, or of a finished payment, changes
   * nothing, so duplicate, late and out-of-order news is harmless, and the ledger moves once
   * per transition. Answers whether anything changed, with the writes for the end of the unit.
   */
  async applyProviderState(em: Tx, actor: Actor, p: PaymentIntent, state: ProviderState, now = new Date()): Promise<Written<boolean>> {
    const unchanged = { value: false, end: [] };
    if (p.status !== 'requires_action' && p.status !== 'processing') return unchanged;
    if (state.status === 'pending') return unchanged;
    if (state.status === 'cancelled') {
      if (p.status !== 'requires_action') return unchanged;
      return { value: true, end: (await this.expire(em, actor, p, now)).end };
    }
    const end: EndWork[] = [];
    if (p.status === 'requires_action') {
      end.push(...(await this.paid(em, actor, p, state.settleAt ?? null, now)).end);
      if (state.status === 'processing') return { value: true, end };
    } else if (state.status === 'processing') {
      return unchanged;
    }
    const outcome: SettleOutcome =
      state.status === 'succeeded'
        ? { status: 'succeeded' }
        : { status: 'failed', failureCode: state.failureCode ?? PROVIDER_FAILURE.code, failureMessage: state.failureMessage ?? PROVIDER_FAILURE.message };
    const settled = await this.settle(em, actor, p, outcome, now);
    return { value: true, end: [...end, ...settled.end] };
  }

  /** Scheduler: finishes every provider start whose process died between the phases. */
  async resumeStarts(now = new Date()): Promise<number> {
    // Built once, `before` bound: every scheduler pass asks, idle or not.
    const stale = await this.deps.db.read((em) =>
      compiledSelect(em, 'paymentIntent.staleStarts', { call: 'start', before: now.getTime() - PROVIDER_CALL_LEASE_MS }, (m) =>
        m.createQueryBuilder(PaymentIntent, 'r').where('r.provider_call = :call AND r.updated_at <= :before').orderBy('r.updated_at', 'ASC').limit(50),
      ),
    );
    let resumed = 0;
    for (const p of stale) {
      const actor = { ...scopeOf(p), requestId: null };
      const at = new Date();
      const start = await this.callStart(p, await this.deps.db.read((em) => this.merchantName(em, p.merchantId)), at);
      await this.deps.db.unit((em) => this.finishStart(em, actor, p.id, start, p.checkoutMode === 'hosted' ? 'requires_action' : 'created', at));
      resumed++;
    }
    return resumed;
  }

  // ---- settlement and expiry ----

  /** processing -> succeeded | failed. */
  settle(em: Tx, actor: Actor, p: PaymentIntent, outcome: SettleOutcome, now = new Date()): Promise<Written<PaymentIntentWire>> {
    return outcome.status === 'succeeded'
      ? this.succeed(em, actor, p, 'succeed', now)
      : this.engine.apply(em, actor, p, 'fail', { settleAt: null, failureCode: outcome.failureCode, failureMessage: outcome.failureMessage }, now);
  }

  /** -> succeeded, with its link's completion (PaymentLinks), in the same transaction. */
  private async succeed(em: Tx, actor: Actor, p: PaymentIntent, transition: 'succeed' | 'succeedAtOnce', now: Date): Promise<Written<PaymentIntentWire>> {
    const { value, end } = await this.engine.apply(em, actor, p, transition, { settleAt: null, receipt: receiptOf(p, now) }, now);
    end.push(...(await this.deps.links.completed(em, actor, p, now)));
    return { value, end };
  }

  /** requires_action -> processing: the payer has paid; the provider confirms the funds. */
  paid(em: Tx, actor: Actor, p: PaymentIntent, settleAt: Date | null, now = new Date()): Promise<Written<PaymentIntentWire>> {
    return this.engine.apply(em, actor, p, 'process', { processingReason: PROCESSING_REASONS.providerConfirmation, settleAt }, now);
  }

  /** requires_action -> expired: the one expiry transition (test helper, scheduler, hosted page). */
  expire(em: Tx, actor: Actor, p: PaymentIntent, now = new Date()): Promise<Written<PaymentIntentWire>> {
    return this.engine.apply(em, actor, p, 'expire', { settleAt: null, failureCode: 'expired', failureMessage: EXPIRED_MESSAGE }, now);
  }

  /** Expires a requires_action intent whose expires_at has passed: the expiry's writes for the end of the unit, null when it was not due. */
  async expireIfOverdue(em: Tx, actor: Actor, p: PaymentIntent, now: Date): Promise<EndWork[] | null> {
    if (p.status !== 'requires_action' || p.expiresAt.getTime() > now.getTime()) return null;
    return (await this.expire(em, actor, p, now)).end;
  }

  /**
   * The simulated providers' own progress, applied as any provider's news is: at settle_at a
   * requires_action payment whose payer acts outside our pages (QR, transfer) has been paid
   * and moves to processing, and a processing payment settles (succeeds, or fails as its
   * test-mode magic value planned). Competes with the test helpers under the row lock; the
   * loser finds the record moved on and does nothing.
   */
  async settleDue(now = new Date()): Promise<number> {
    let done = 0;
    for (const status of ['processing', 'requires_action'] as const) {
      done += await this.store.processDue('settle_at', status, now, async (em, p, scope) => {
        if (!p.settleAt || p.settleAt.getTime() > now.getTime()) return false;
        const moved = await this.applyProviderState(em, { ...scope, requestId: null }, p, this.simulatedState(p, now), now);
        return moved.value && moved.end;
      });
    }
    return done;
  }

  /**
   * What a simulated provider says of `p` when its settle_at is due: a waiting payment has been
   * paid and settles one step later, unless it expired first (nothing to say: the expiry job
   * expires it); a processing one settles as planned at create.
   */
  private simulatedState(p: PaymentIntent, now: Date): ProviderState {
    if (p.status !== 'requires_action') return plannedOutcome(p);
    if (p.expiresAt.getTime() <= now.getTime()) return { status: 'pending' };
    return { status: 'processing', settleAt: this.settleAt(now) };
  }

  /** Moves every requires_action intent past its expires_at to expired. */
  expireDue(now = new Date()): Promise<number> {
    return this.store.processDue('expires_at', 'requires_action', now, async (em, p, scope) => {
      const end = await this.expireIfOverdue(em, { ...scope, requestId: null }, p, now);
      if (end === null) return false;
      return end;
    });
  }

  /** Test helper on a hosted intent whose payer has not chosen yet: the first eligible method, as a payer might pick. */
  async pickForTest(em: Tx, scope: Scope, p: PaymentIntent, now = new Date()): Promise<void> {
    const eligible = await this.deps.methods.eligible(em, scope, { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: p.checkoutMode });
    const allowed = await this.allowedMethods(em, p);
    const choice = eligible.find((c) => allowed === null || allowed.includes(c.method));
    if (!choice) throw new ApiError('invalid_state', 'No payment method is available for this payment any more, so it cannot be settled.');
    await this.store.patch(
      em,
      scope,
      p,
      {
        paymentMethod: choice.method,
        bank: choice.bank,
        provider: choice.connector.code,
        paymentReference: `PI${p.id.slice(-16).toUpperCase()}`,
      },
      now,
    );
  }

  // ---- refunds ----

  /** Moves `amount_refunded` of a payment locked in `em`'s transaction by `delta` (see addRefunded in payment-rows.ts). */
  addRefunded(em: EntityManager, scope: Scope, p: PaymentIntent, delta: bigint, now: Date): Promise<void> {
    return addRefunded(em, scope, p, delta, now);
  }

  // ---- helpers shared by the merchant API and the checkout flow ----

  settleAt(now: Date): Date | null {
    return this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null;
  }

  payerOf(p: PaymentIntent): StoredPayer {
    return JSON.parse(this.deps.cipher.decrypt(p.payerEncrypted)) as StoredPayer;
  }

  encryptPayer(payer: StoredPayer): string {
    return this.deps.cipher.encrypt(JSON.stringify(payer));
  }

  checkoutUrlOf(p: PaymentIntent): string {
    // Hosted intents were created with the checkout address as their next_action.
    if (p.nextAction?.type === 'redirect_to_url' && p.nextAction.url.endsWith(`/checkout/${p.checkoutToken}`)) return p.nextAction.url;
    return `${this.deps.baseUrl()}/checkout/${p.checkoutToken}`;
  }

  merchantName(em: EntityManager, merchantId: string): Promise<string> {
    return merchantName(em, merchantId);
  }
}

export { scopeOf } from './payment-facts';
