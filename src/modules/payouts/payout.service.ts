/**
 * Payout intents: the one place where their rules live. REST routes and GraphQL
 * resolvers only translate to and from these methods.
 */
import { Type } from '@sinclair/typebox';
import type { Tx } from '../../db/tx';
import type { PayoutConnector, SettleOutcome } from '../../domain/connector';
import { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import type { Done } from '../../ops/operation';
import { amountOf, upper } from '../../domain/fields';
import type { CreatePayoutIntentBody } from './payout.schemas';
import { toPage, type ListParams, type ListSpec, type Page } from '../../domain/listing';
import { applyList, listRows } from '../../db/list-query';
import type { Actor, Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { Lifecycle, LifecycleDeps } from '../shared/lifecycle';
import { IntentReads, IntentStore } from '../shared/intent-store';
import { PayoutIntent } from './payout.entity';
import { PAYOUT_STATUSES, PayoutStatus, payoutStates } from './payout.states';
import { isoInstant } from '../../domain/instant';
import type { PayoutIntentWire } from './payout.schemas';
import type { ApprovalPolicyService } from '../approvals/approval-policy.service';
import { vote } from '../approvals/approval-rules';
export type { PayoutIntentWire } from './payout.schemas';

type PayoutTransition = keyof typeof payoutStates.transitions;

export interface CreatePayoutInput {
  amount: bigint;
  currency: string;
  country: string;
  merchant_reference: string;
  recipient: { type: 'bank_account'; bank_code: string; account_number: string; holder_name: string };
}

export const DEFAULT_CANCEL_MESSAGE = 'Cancelled by the merchant before approval.';

export const PAYOUT_LIST: ListSpec = {
  resource: 'payout_intent',
  statuses: PAYOUT_STATUSES,
  extra: { payout_batch: { schema: Type.String({ minLength: 1, maxLength: 64, description: 'Only the payout intents of this payout batch.' }) } },
};

/** Told of every payout settled (succeeded or failed), in the settling transaction. */
export type SettledListener = (tx: Tx, actor: Actor, payout: PayoutIntent) => Promise<void>;

export function payoutToWire(p: PayoutIntent): PayoutIntentWire {
  return {
    object: 'payout_intent',
    id: p.id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    country: p.country,
    environment: p.environment,
    status: p.status,
    merchant_reference: p.merchantReference,
    recipient: {
      type: p.recipientType,
      account_last4: p.recipientAccountLast4,
      bank_code: p.recipientBankCode,
      holder_name: p.recipientHolderName,
    },
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    payout_batch: p.payoutBatch,
    approvals_required: p.approvalsRequired,
    approvals: p.approvals ?? [],
    created_at: isoInstant(p.createdAt),
    updated_at: isoInstant(p.updatedAt),
  };
}

/** Normalises a create body the schema accepted. */
export function parseCreatePayout(body: CreatePayoutIntentBody): CreatePayoutInput {
  const r = body.recipient;
  return {
    amount: amountOf(body.amount),
    currency: upper(body.currency),
    country: upper(body.country),
    merchant_reference: body.merchant_reference,
    recipient: {
      type: 'bank_account',
      bank_code: upper(r.bank_code),
      account_number: r.account_number.replace(/[\s-]/g, '').toUpperCase(),
      holder_name: r.holder_name.trim(),
    },
  };
}

export interface PayoutServiceDeps {
  db: Db;
  cipher: FieldCipher;
  lifecycle: LifecycleDeps;
  connector: PayoutConnector;
  /** Delay before the provider settles an approved payout on its own; 0 = never. */
  settleMs: number;
  /** The approval policies a new payout reads its gate from. */
  policies: Pick<ApprovalPolicyService, 'gateFor'>;
}

export class PayoutService extends IntentReads<PayoutIntent, PayoutIntentWire> {
  readonly lifecycle: Lifecycle<PayoutIntent, PayoutStatus, PayoutTransition, PayoutIntentWire>;
  private readonly settledListeners: SettledListener[] = [];

  constructor(private readonly deps: PayoutServiceDeps) {
    const store = new IntentStore(deps.db, PayoutIntent, 'payoutIntent', 'payout intent', PAYOUT_LIST, payoutToWire, {
      // Never on the wire: the sealed account number (only the provider call opens it) and the settle deadline.
      wireOmits: ['recipientAccountEncrypted', 'settleAt'],
    });
    super(store);
    this.lifecycle = new Lifecycle(deps.lifecycle, payoutStates, store, payoutToWire);
  }

  /**
   * A payout waiting at the approval gate, its amount held; a repeated merchant_reference
   * returns the original. The reference is not looked up first: the INSERT meets it on the
   * unique index (uq_payout_intents_reference), which fails that statement alone, and the
   * original is then read (the one extra statement is paid by a repeat, not by every create).
   */
  async create(em: Tx, ctx: Actor, input: CreatePayoutInput): Promise<Done<PayoutIntentWire>> {
    const now = new Date();
    // The policy as it is now: a later change applies to payouts created after it.
    const gate = await this.deps.policies.gateFor(em, ctx, input.currency, input.amount);
    const p = Object.assign(new PayoutIntent(), {
      id: newId('payoutIntent', now.getTime()),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      amount: input.amount,
      currency: input.currency,
      country: input.country,
      status: 'requires_approval' as const,
      merchantReference: input.merchant_reference,
      recipientType: 'bank_account' as const,
      recipientBankCode: input.recipient.bank_code,
      recipientHolderName: input.recipient.holder_name,
      recipientAccountLast4: input.recipient.account_number.slice(-4),
      recipientAccountEncrypted: this.deps.cipher.encrypt(input.recipient.account_number),
      failureCode: null,
      failureMessage: null,
      payoutBatch: null,
      settleAt: null,
      approvalsRequired: gate.approvalsRequired,
      approvalRule: gate.approvalRule,
      createdBy: ctx.principal?.id ?? null,
      approvals: null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      // Holds the amount; refuses with insufficient_balance (rolling back the insert) when it is not available.
      return { outcome: 'created', value: await this.lifecycle.create(em, ctx, p, now) };
    } catch (err) {
      if (!this.deps.db.isUniqueViolation(err)) throw err;
      // The merchant_reference is taken (earlier, or by a concurrent request that committed first): return that payout.
      const original = await this.store.findByReference(em, ctx, input.merchant_reference, true);
      if (!original) throw err;
      return { outcome: 'existing', value: payoutToWire(original) };
    }
  }

  /** The scope's payout intents, newest first, with the listing filters and `payout_batch`. */
  override async list(scope: Scope, params: ListParams): Promise<Page<PayoutIntentWire>> {
    const batch = params.extra.payout_batch;
    if (!batch) return super.list(scope, params);
    const rows = await this.deps.db.read((em) => {
      const qb = applyList(em.createQueryBuilder(PayoutIntent, 'r'), 'r', scope, params).andWhere('r.payout_batch = :batch', { batch });
      // One batch's payouts: a range of ix_payout_intents_batch (payout_batch, created_at, id) from the cursor down.
      return listRows(em, qb, 'r', params, { list: 'ix_payout_intents_batch', sqliteToo: true });
    });
    return toPage(rows, params, PAYOUT_LIST.resource, scope, payoutToWire);
  }

  /**
   * Records the caller's approval under the row lock; the last one needed moves the payout
   * requires_approval -> processing (the provider settles it after SIMULATED_SETTLE_MS). One
   * short of the count, the vote is recorded and the payout stays requires_approval (202).
   * Refusals (approval_requires_member, approval_by_creator, approval_already_recorded)
   * change nothing. Parallel last votes: the lock orders them; the second finds it moved.
   */
  async approve(em: Tx, ctx: Actor, id: string): Promise<Done<PayoutIntentWire>> {
    const now = new Date();
    const p = await this.store.lock(em, ctx, id);
    this.lifecycle.machine.check('approve', p.status);
    const { approvals, reached } = vote(ctx.principal, p, ctx.environment, now);
    if (!reached) {
      await this.store.patch(em, ctx, p, { approvals }, now);
      return { outcome: 'accepted', value: payoutToWire(p) };
    }
    const settleAt = this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null;
    return { outcome: 'accepted', value: await this.lifecycle.apply(em, ctx, p, 'approve', { settleAt, approvals }, now) };
  }

  async cancel(em: Tx, ctx: Actor, id: string, reason: string | null): Promise<Done<PayoutIntentWire>> {
    const value = await this.lifecycle.applyTo(em, ctx, id, 'cancel', {
      failureCode: 'cancelled',
      failureMessage: reason ?? DEFAULT_CANCEL_MESSAGE,
    });
    return { outcome: 'accepted', value };
  }

  /** Test helper: settle a processing payout now, as the provider would. */
  async settle(em: Tx, ctx: Actor, id: string, outcome: SettleOutcome): Promise<Done<PayoutIntentWire>> {
    return { outcome: 'done', value: await this.applyOutcome(em, ctx, await this.store.lock(em, ctx, id), outcome) };
  }

  /**
   * The provider's own settlement of every processing payout whose settle_at has passed:
   * the provider is called outside any transaction, then the outcome is applied under the
   * row lock. A test helper that settled the payout meanwhile wins; this pass then does
   * nothing. Returns how many it settled.
   */
  async settleDue(now = new Date()): Promise<number> {
    return this.store.processDue<SettleOutcome>(
      'settle_at',
      'processing',
      now,
      async (em, p, scope, outcome) => {
        await this.applyOutcome(em, { ...scope, requestId: null }, p, outcome);
        return true;
      },
      (p, scope) =>
        this.deps.connector.settle({
          payoutId: p.id,
          accountNumber: this.deps.cipher.decrypt(p.recipientAccountEncrypted),
          environment: scope.environment,
        }),
    );
  }

  /** `listener` is told of every payout settled from now on (payout batches count their items). */
  onSettled(listener: SettledListener): void {
    this.settledListeners.push(listener);
  }

  private async applyOutcome(em: Tx, actor: Actor, p: PayoutIntent, outcome: SettleOutcome): Promise<PayoutIntentWire> {
    const wire =
      outcome.status === 'succeeded'
        ? await this.lifecycle.apply(em, actor, p, 'succeed', { settleAt: null })
        : await this.lifecycle.apply(em, actor, p, 'fail', {
            settleAt: null,
            failureCode: outcome.failureCode,
            failureMessage: outcome.failureMessage,
          });
    for (const listener of this.settledListeners) await listener(em, actor, p);
    return wire;
  }
}
