/**
 * Payout intents: the one place where their rules live. REST routes and GraphQL
 * resolvers only translate to and from these methods.
 */
import { Type } from '@sinclair/typebox';
import type { EndWork, Written } from '../../db/batch';
import type { Tx } from '../../db/tx';
import type { PayoutConnector, SettleOutcome } from '../../domain/connector';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import type { EntityManager } from 'typeorm';
import type { LiveConnector, RecipientStore } from '../providers/live-connector';
import { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { done, type Done } from '../../ops/operation';
import { amountOf, upper } from '../../domain/fields';
import type { CreatePayoutIntentBody } from './payout.schemas';
import { AMOUNT_AND_STATUS_SORTS, toPage, type ListParams, type ListSpec, type Page } from '../../domain/listing';
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
import { approvalToWire, vote } from '../approvals/approval-rules';
import { personOf } from '../../domain/permissions';
import { wireRecord } from '../../domain/wire-record';
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
  sorts: AMOUNT_AND_STATUS_SORTS,
  extra: { payout_batch: { schema: Type.String({ minLength: 1, maxLength: 64, description: 'Only the payout intents of this payout batch.' }) } },
};

/**
 * What a settled payout (succeeded or failed) means to its payout batch, called in the settling
 * transaction (the batch progress module's `itemSettled`): its writes for the end of the unit.
 */
export interface BatchItems {
  itemSettled(tx: Tx, actor: Actor, payout: PayoutIntent): Promise<EndWork[]>;
}

export function payoutToWire(p: PayoutIntent): PayoutIntentWire {
  return wireRecord({
    object: 'payout_intent',
    id: p.id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    country: p.country,
    environment: p.environment,
    status: p.status,
    merchant_reference: p.merchantReference,
    recipient: wireRecord({
      type: p.recipientType,
      account_last4: p.recipientAccountLast4,
      bank_code: p.recipientBankCode,
      holder_name: p.recipientHolderName,
    }),
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    payout_batch: p.payoutBatch,
    approvals_required: p.approvalsRequired,
    approvals: (p.approvals ?? []).map(approvalToWire),
    created_at: isoInstant(p.createdAt),
    updated_at: isoInstant(p.updatedAt),
  });
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

/** What routes a payout to a provider account: its bank and currency. */
export interface PayoutRoute {
  recipient: { bank_code: string };
  currency: string;
}

/** Why a payout to this bank is refused: no account of the scope that makes payouts pays to it. */
export function unpayableBank(scope: Scope, p: PayoutRoute): string {
  return `Payouts in ${scope.environment} mode cannot be sent to ${p.recipient.bank_code} in ${p.currency}; choose a bank the service pays out to.`;
}

/** The real provider accounts payouts may go through (src/modules/providers). */
export interface PayoutAccounts {
  active(environment: Scope['environment'], merchantId: string, em?: EntityManager): Promise<LiveConnector[]>;
  byId(id: string): Promise<LiveConnector | null>;
  recipients(accountId: string): RecipientStore;
}

/**
 * A payout's answer from its provider: settled, or still pending at a real provider (asked again
 * later); with a real provider's id of the transfer once it has one, kept on the payout whatever
 * the answer (a transfer can be paid or failed in the very answer that sent it).
 */
type PayoutAnswer = (SettleOutcome | { status: 'pending' }) & { providerReference?: string | null };

export interface PayoutServiceDeps {
  db: Db;
  cipher: FieldCipher;
  lifecycle: LifecycleDeps;
  connector: PayoutConnector;
  /** Delay before the provider settles an approved payout on its own; 0 = never. */
  settleMs: number;
  /** The approval policies a new payout reads its gate from. */
  policies: Pick<ApprovalPolicyService, 'gateFor'>;
  /** Real provider accounts: a scope with one that makes payouts pays out only through it. */
  accounts?: PayoutAccounts;
  /** How long a transfer pending at a real provider waits before it is read back again. */
  recheckMs?: number;
  log?: Pick<Logger, 'info' | 'warn'>;
  /** The batches a settled payout counts on (none: a payout's batch is not counted, e.g. in a test without batches). */
  batchItems?: BatchItems;
}

export class PayoutService extends IntentReads<PayoutIntent, PayoutIntentWire> {
  readonly lifecycle: Lifecycle<PayoutIntent, PayoutStatus, PayoutTransition, PayoutIntentWire>;

  constructor(private readonly deps: PayoutServiceDeps) {
    const store = new IntentStore(deps.db, PayoutIntent, 'payoutIntent', 'payout intent', PAYOUT_LIST, payoutToWire, {
      // Never on the wire: the sealed account number (only the provider call opens it) and the settle deadline.
      wireOmits: ['recipientAccountEncrypted', 'settleAt', 'provider', 'providerReference'],
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
    const provider = await this.payoutAccount(em, ctx, input);
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
      provider,
      providerReference: null,
      approvalsRequired: gate.approvalsRequired,
      approvalRule: gate.approvalRule,
      // The person: a key made by a member is that member (the creator rule covers their keys).
      createdBy: ctx.principal ? personOf(ctx.principal) : null,
      approvals: null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      // Holds the amount; refuses with insufficient_balance (rolling back the insert) when it is not available.
      return done('created', await this.lifecycle.create(em, ctx, p, now));
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
    // A real provider account's payout is sent at once (the settle job sends it); the simulated bank waits SIMULATED_SETTLE_MS.
    const settleAt = p.provider !== null ? now : this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null;
    return done('accepted', await this.lifecycle.apply(em, ctx, p, 'approve', { settleAt, approvals }, now));
  }

  async cancel(em: Tx, ctx: Actor, id: string, reason: string | null): Promise<Done<PayoutIntentWire>> {
    const cancelled = await this.lifecycle.applyTo(em, ctx, id, 'cancel', {
      failureCode: 'cancelled',
      failureMessage: reason ?? DEFAULT_CANCEL_MESSAGE,
    });
    return done('accepted', cancelled);
  }

  /** Test helper: settle a processing payout now, as the provider would. */
  async settle(em: Tx, ctx: Actor, id: string, outcome: SettleOutcome): Promise<Done<PayoutIntentWire>> {
    return done('done', await this.applyOutcome(em, ctx, await this.store.lock(em, ctx, id), outcome));
  }

  /**
   * The provider's own settlement of every processing payout whose settle_at has passed:
   * the provider is called outside any transaction, then the outcome is applied under the
   * row lock. A test helper that settled the payout meanwhile wins; this pass then does
   * nothing. Returns how many it settled.
   */
  async settleDue(now = new Date()): Promise<number> {
    return this.store.processDue<PayoutAnswer>(
      'settle_at',
      'processing',
      now,
      async (em, p, scope, answer) => {
        const providerReference = answer.providerReference ?? p.providerReference;
        if (answer.status === 'pending') {
          const changes = { providerReference, settleAt: new Date(Date.now() + (this.deps.recheckMs ?? 60_000)) };
          await this.store.patch(em, scope, p, changes, new Date());
          return false;
        }
        return (await this.applyOutcome(em, { ...scope, requestId: null }, p, answer, providerReference)).end;
      },
      (p, scope) =>
        p.provider !== null
          ? this.callAccount(p)
          : this.deps.connector.settle({
              payoutId: p.id,
              accountNumber: this.deps.cipher.decrypt(p.recipientAccountEncrypted),
              environment: scope.environment,
            }),
    );
  }

  /**
   * The real provider account a new payout goes through: null when the scope has none that
   * makes payouts (the simulated bank); a bank code none of them pays to is refused now
   * (400 on recipient.bank_code), not failed later.
   */
  private async payoutAccount(em: Tx, ctx: Actor, input: CreatePayoutInput): Promise<string | null> {
    const [account] = await this.payoutAccounts(em, ctx, [input]);
    if (account === false) throw ApiError.validation('recipient.bank_code', unpayableBank(ctx, input));
    return account;
  }

  /**
   * The real provider account each payout of `scope` would go through (one read for all):
   * null for every one when the scope has no account that makes payouts (the simulated bank
   * serves them), false for a bank and currency none of its accounts pays to. A batch routes
   * its rows with this at create and again at approval.
   */
  async payoutAccounts(em: EntityManager, scope: Scope, payouts: readonly PayoutRoute[]): Promise<(string | null | false)[]> {
    if (!this.deps.accounts) return payouts.map(() => null);
    const payers = (await this.deps.accounts.active(scope.environment, scope.merchantId, em)).filter(
      (c) => c.payout !== undefined && c.paysOutTo !== undefined,
    );
    if (payers.length === 0) return payouts.map(() => null);
    return payouts.map((p) => payers.find((c) => c.paysOutTo!(p.recipient.bank_code, p.currency))?.code ?? false);
  }

  /** A payout through a real provider account: sent once (idempotency key from the payout id), then read back until paid or failed. */
  private async callAccount(p: PayoutIntent): Promise<PayoutAnswer> {
    const log = this.deps.log;
    const connector = this.deps.accounts ? await this.deps.accounts.byId(p.provider as string) : null;
    if (!connector?.payout) throw new Error(`payout ${p.id}: its provider account is gone`);
    try {
      const state = await connector.payout({
        payoutId: p.id,
        amount: p.amount,
        currency: p.currency,
        bankCode: p.recipientBankCode,
        accountNumber: this.deps.cipher.decrypt(p.recipientAccountEncrypted),
        holderName: p.recipientHolderName,
        providerReference: p.providerReference,
        recipients: this.deps.accounts!.recipients(connector.code),
      });
      const { providerReference } = state;
      if (state.status === 'pending') return { status: 'pending', providerReference };
      if (state.status === 'succeeded') return { status: 'succeeded', providerReference };
      log?.info(
        { payoutIntent: p.id, providerAccount: p.provider, providerCode: state.providerCode, providerMessage: state.providerMessage },
        'provider reports the payout failed',
      );
      return {
        status: 'failed',
        failureCode: 'payout_failed',
        failureMessage: 'The bank could not complete the payout; the amount is available again.',
        providerReference,
      };
    } catch (err) {
      const reason = (err as { providerUnavailable?: string }).providerUnavailable;
      if (reason === undefined) throw err;
      log?.warn({ payoutIntent: p.id, providerAccount: p.provider, reason }, 'provider unavailable for a payout; asked again later');
      return { status: 'pending' };
    }
  }

  /**
   * A provider's news about the transfer `providerReference` at account `accountId` (a
   * verified webhook): its payout, if still processing, is read back from the provider now,
   * outside any transaction, and settled exactly as the settle job settles it (same call, same
   * transitions under the row lock). A settled payout does not move: a duplicate, late or
   * out-of-order event changes nothing. Null when the transfer is no payout of ours.
   */
  async settleFromProvider(accountId: string, providerReference: string): Promise<{ id: string; status: PayoutStatus; changed: boolean } | null> {
    const p = await this.deps.db.read((em) => em.findOne(PayoutIntent, { where: { provider: accountId, providerReference } }));
    if (!p) return null;
    if (p.status !== 'processing') return { id: p.id, status: p.status, changed: false };
    const answer = await this.deps.db.outside(() => this.callAccount(p));
    const scope = { merchantId: p.merchantId, environment: p.environment };
    return this.deps.db.unit<{ id: string; status: PayoutStatus; changed: boolean }>(async (em) => {
      const locked = await this.store.lock(em, scope, p.id);
      if (locked.status !== 'processing' || answer.status === 'pending') return { value: { id: p.id, status: locked.status, changed: false }, end: [] };
      const settled = await this.applyOutcome(em, { ...scope, requestId: null }, locked, answer);
      return { value: { id: p.id, status: settled.value.status, changed: true }, end: settled.end };
    });
  }

  /**
   * Settles `p` as `outcome` says (keeping the provider's id of the transfer, when there is one),
   * then counts it on its batch (if it has one): the wire record, and the writes for the end of the unit.
   */
  private async applyOutcome(
    em: Tx,
    actor: Actor,
    p: PayoutIntent,
    outcome: SettleOutcome,
    providerReference = p.providerReference,
  ): Promise<Written<PayoutIntentWire>> {
    const settled =
      outcome.status === 'succeeded'
        ? await this.lifecycle.apply(em, actor, p, 'succeed', { settleAt: null, providerReference })
        : await this.lifecycle.apply(em, actor, p, 'fail', {
            settleAt: null,
            providerReference,
            failureCode: outcome.failureCode,
            failureMessage: outcome.failureMessage,
          });
    const counted = this.deps.batchItems ? await this.deps.batchItems.itemSettled(em, actor, p) : [];
    return { value: settled.value, end: [...settled.end, ...counted] };
  }
}
