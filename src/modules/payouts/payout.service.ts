/**
 * Payout intents: the one place where their rules live. REST routes and GraphQL
 * resolvers only translate to and from these methods.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { FieldReader, parseEmptyBody, parseTestFailure, readIntentBasics } from '../../domain/validation';
import type { ListSpec } from '../../domain/listing';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import type { EventService } from '../events/event.service';
import type { ApiResult, IdempotencyService } from '../idempotency/idempotency.service';
import { LedgerService, Movement, MOVES } from '../balances/ledger.service';
import { IntentReads, IntentStore } from '../shared/intent-store';
import { PayoutIntent } from './payout.entity';
import { PAYOUT_STATUSES, PayoutStatus, payoutStates } from './payout.states';
import { DEFAULT_TEST_FAILURE, PayoutConnector, PayoutOutcome } from './simulated-payout.provider';

const PAYOUT_TEST_FAILURE = { failure_code: DEFAULT_TEST_FAILURE.failureCode, failure_message: DEFAULT_TEST_FAILURE.failureMessage };

export interface PayoutIntentWire {
  object: 'payout_intent';
  id: string;
  amount: string;
  currency: string;
  country: string;
  environment: string;
  status: PayoutStatus;
  merchant_reference: string;
  recipient: { type: 'bank_account'; account_last4: string; bank_code: string; holder_name: string };
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreatePayoutInput {
  amount: bigint;
  currency: string;
  country: string;
  merchant_reference: string;
  recipient: { type: 'bank_account'; bank_code: string; account_number: string; holder_name: string };
}

export const DEFAULT_CANCEL_MESSAGE = 'Cancelled by the merchant before approval.';
export const CANCEL_REASON_MAX = 512;

/** Balance movements of each payout transition (see LedgerService.MOVES). */
const LEDGER_ON_ENTER: Partial<Record<PayoutStatus, { entryType: string; moves: (amount: bigint) => Movement[] }>> = {
  requires_approval: { entryType: 'payout_reserved', moves: MOVES.reserve },
  cancelled: { entryType: 'payout_released', moves: MOVES.release },
  failed: { entryType: 'payout_released', moves: MOVES.release },
  succeeded: { entryType: 'payout_paid', moves: MOVES.payOut },
};

export const PAYOUT_LIST: ListSpec = { resource: 'payout_intent', statuses: PAYOUT_STATUSES };

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
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export function parseCreatePayout(raw: unknown): CreatePayoutInput {
  const body = FieldReader.body(raw);
  const { amount, currency, country, merchantReference } = readIntentBasics(body);
  const r = body.object('recipient');
  const type = r.string('type');
  if (type !== 'bank_account') throw ApiError.validation('recipient.type', 'recipient.type must be "bank_account".');
  const bankCode = r.string('bank_code', { max: 64, pattern: /^[A-Z0-9._-]+$/, normalise: (v) => v.trim().toUpperCase(), describe: 'letters, digits, ".", "_" or "-"' });
  const accountNumber = r.string('account_number', {
    min: 4, max: 34, pattern: /^[A-Z0-9]+$/, normalise: (v) => v.replace(/[\s-]/g, '').toUpperCase(),
    describe: '4 to 34 letters or digits (spaces and hyphens are ignored)',
  });
  const holderName = r.string('holder_name', { max: 256, normalise: (v) => v.trim() });
  r.end();
  body.end();
  return {
    amount, currency, country, merchant_reference: merchantReference,
    recipient: { type: 'bank_account', bank_code: bankCode, account_number: accountNumber, holder_name: holderName },
  };
}

export function parseCancelPayout(raw: unknown): { reason: string | null } {
  const body = FieldReader.body(raw ?? {});
  const reason = body.optionalString('reason', { min: 0, max: CANCEL_REASON_MAX });
  body.end();
  return { reason: reason === undefined || reason.trim() === '' ? null : reason };
}



export interface PayoutServiceDeps {
  db: Db;
  idempotency: IdempotencyService;
  events: EventService;
  cipher: FieldCipher;
  ledger: LedgerService;
  connector: PayoutConnector;
  /** Delay before the provider settles an approved payout on its own; 0 = never. */
  settleMs: number;
}

export class PayoutService extends IntentReads<PayoutIntent, PayoutIntentWire> {

  constructor(private readonly deps: PayoutServiceDeps) {
    super(new IntentStore(deps.db, PayoutIntent, 'payout intent', PAYOUT_LIST, payoutToWire));
  }

  // ---- mutations (each is one idempotent operation, one transaction) ----

  create(ctx: RequestContext, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payout_intents', raw, parse: parseCreatePayout,
      execute: (em, input) => this.insert(em, ctx, input),
    });
  }

  approve(ctx: RequestContext, id: string, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payout_intents/:id/approve', raw,
      parse: (r) => ({ id, ...parseEmptyBody(r) }),
      execute: async (em) => {
        const now = new Date();
        const p = await this.store.lock(em, ctx, id);
        if (p.status !== 'requires_approval') {
          throw new ApiError('invalid_state', `This payout intent is ${p.status}; only a payout intent in requires_approval can be approved.`);
        }
        const settleAt = this.deps.settleMs > 0 ? new Date(now.getTime() + this.deps.settleMs) : null;
        return { status: 202, body: await this.move(em, ctx, p, 'processing', { settleAt }, now) };
      },
    });
  }

  cancel(ctx: RequestContext, id: string, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/payout_intents/:id/cancel', raw,
      parse: (r) => ({ id, ...parseCancelPayout(r) }),
      execute: async (em, input) => {
        const p = await this.store.lock(em, ctx, id);
        if (p.status !== 'requires_approval') {
          throw new ApiError('approval_required', `This payout intent is ${p.status}; only a payout intent in requires_approval can be cancelled.`);
        }
        const body = await this.move(em, ctx, p, 'cancelled', {
          failureCode: 'cancelled',
          failureMessage: input.reason ?? DEFAULT_CANCEL_MESSAGE,
        });
        return { status: 202, body };
      },
    });
  }

  /** Test helper: settle a processing payout now, as the provider would. */
  testSettle(ctx: RequestContext, id: string, outcome: 'succeed' | 'fail', raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    this.assertTestMode(ctx);
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: `POST /v1/test_helpers/payout_intents/:id/${outcome}`, raw,
      parse: (r) => ({ id, ...(outcome === 'fail' ? parseTestFailure(r, PAYOUT_TEST_FAILURE, 'Payout') : parseEmptyBody(r)) }),
      execute: async (em, input) => {
        const p = await this.store.lock(em, ctx, id);
        if (p.status !== 'processing') {
          throw new ApiError('invalid_state', `This payout intent is ${p.status}; only a processing payout intent can be settled.`);
        }
        const result: PayoutOutcome = 'failure_code' in input
          ? { status: 'failed', failureCode: input.failure_code, failureMessage: input.failure_message }
          : { status: 'succeeded' };
        return { status: 200, body: await this.applyOutcome(em, ctx, p, result) };
      },
    });
  }

  /**
   * The simulated provider's own settlement: every processing payout whose settle_at has
   * passed. Competes with the test helpers under the row lock; the loser finds the record
   * terminal and does nothing. Returns how many it settled.
   */
  async settleDue(now = new Date()): Promise<number> {
    return this.store.processDue('settle_at', 'processing', now, async (em, p, scope) => {
      const accountNumber = this.deps.cipher.decrypt(p.recipientAccountEncrypted);
      const outcome = this.deps.connector.settle({ accountNumber, environment: scope.environment });
      await this.applyOutcome(em, { ...scope, requestId: null }, p, outcome);
      return true;
    });
  }

  // ---- internals ----

  private async insert(em: EntityManager, ctx: RequestContext, input: CreatePayoutInput) {
    const existing = await this.store.findByReference(em, ctx, input.merchant_reference);
    if (existing) return { status: 200, body: payoutToWire(existing) };
    const now = new Date();
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
      settleAt: null,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await em.insert(PayoutIntent, p);
    } catch (err) {
      if (!this.deps.db.isUniqueViolation(err)) throw err;
      // A concurrent request with the same merchant_reference committed first: return its payout.
      const original = await this.store.findByReference(em, ctx, input.merchant_reference, true);
      if (!original) throw err;
      return { status: 200, body: payoutToWire(original) };
    }
    // Holds the amount; refuses with insufficient_balance (rolling back the insert) when it is not available.
    await this.postLedger(em, ctx, p, 'requires_approval', now);
    const wire = payoutToWire(p);
    await this.deps.events.record(em, ctx, 'created', wire, ctx.requestId, now);
    return { status: 201, body: wire };
  }

  private async applyOutcome(em: EntityManager, ctx: Scope & { requestId: string | null }, p: PayoutIntent, outcome: PayoutOutcome) {
    return outcome.status === 'succeeded'
      ? this.move(em, ctx, p, 'succeeded', { settleAt: null })
      : this.move(em, ctx, p, 'failed', { settleAt: null, failureCode: outcome.failureCode, failureMessage: outcome.failureMessage });
  }

  /** Applies one transition: record change and its event row, in `em`'s transaction. */
  private async move(
    em: EntityManager,
    ctx: Scope & { requestId: string | null },
    p: PayoutIntent,
    to: PayoutStatus,
    changes: Partial<Pick<PayoutIntent, 'settleAt' | 'failureCode' | 'failureMessage'>>,
    now = new Date(),
  ): Promise<PayoutIntentWire> {
    if (!payoutStates.can(p.status, to)) {
      throw new ApiError('invalid_state', `This payout intent is ${p.status} and cannot become ${to}.`);
    }
    await this.store.transition(em, ctx, p, to, changes, now);
    await this.postLedger(em, ctx, p, to, now);
    const wire = payoutToWire(p);
    await this.deps.events.record(em, ctx, to, wire, ctx.requestId, now);
    return wire;
  }

  private async postLedger(em: EntityManager, scope: Scope, p: PayoutIntent, status: PayoutStatus, now: Date): Promise<void> {
    const rule = LEDGER_ON_ENTER[status];
    if (!rule) return;
    await this.deps.ledger.post(em, scope, p.currency, rule.moves(p.amount), { entryType: rule.entryType, sourceType: 'payout_intent', sourceId: p.id }, now);
  }

  private assertTestMode(scope: Scope): void {
    if (scope.environment !== 'test') throw new ApiError('not_found', 'Test helpers exist only for test-mode API keys.');
  }
}
