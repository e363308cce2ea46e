/**
 * Topup intents: the merchant adds money to its balance by bank transfer. Created in
 * requires_action with bank-transfer instructions; succeeds (crediting `available`),
 * fails, or expires. `Idempotency-Key` is required; a reused merchant_reference is a
 * 409 duplicate_merchant_reference (unlike payouts, which return the original).
 */
import type { Tx } from '../../db/tx';
import type { SettleOutcome } from '../../domain/connector';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { done, type Done } from '../../ops/operation';
import { amountOf, upper } from '../../domain/fields';
import { AMOUNT_AND_STATUS_SORTS, type ListSpec } from '../../domain/listing';
import type { Actor } from '../../domain/scope';
import type { Db } from '../../db/db';
import { Lifecycle, LifecycleDeps } from '../shared/lifecycle';
import { IntentReads, IntentStore } from '../shared/intent-store';
import type { NextAction } from '../methods/next-action';
import { TopupIntent } from './topup.entity';
import type { CreateTopupIntentBody } from './topup.schemas';
import { TOPUP_STATUSES, TopupStatus, topupStates } from './topup.states';
import { isoInstant } from '../../domain/instant';
import type { TopupIntentWire } from './topup.schemas';
import { wireRecord } from '../../domain/wire-record';
export type { TopupIntentWire } from './topup.schemas';
export interface CreateTopupInput {
  amount: bigint;
  currency: string;
  country: string;
  merchant_reference: string;
}

/** How long the transfer instructions stay valid. */
export const TOPUP_TTL_MS = 24 * 60 * 60 * 1000;

/** The simulated collection account the merchant transfers to; the reference matches the transfer. */
const COLLECTION_ACCOUNT = {
  bank: 'KBANK',
  bank_name: 'Kasikornbank',
  account_number: '0011223344',
  account_name: 'Payments Gateway Client Funds',
};

export const TOPUP_LIST: ListSpec = { resource: 'topup_intent', statuses: TOPUP_STATUSES, sorts: AMOUNT_AND_STATUS_SORTS };

export function topupToWire(t: TopupIntent): TopupIntentWire {
  return wireRecord({
    object: 'topup_intent',
    id: t.id,
    amount: formatAmount(t.amount),
    currency: t.currency,
    country: t.country,
    environment: t.environment,
    status: t.status,
    merchant_reference: t.merchantReference,
    next_action: t.status === 'requires_action' ? t.nextAction : null,
    failure_code: t.failureCode,
    failure_message: t.failureMessage,
    created_at: isoInstant(t.createdAt),
    updated_at: isoInstant(t.updatedAt),
  });
}

export const TOPUP_TEST_FAILURE = { failure_code: 'transfer_rejected', failure_message: 'The bank transfer was rejected.' };

/** Normalises a create body the schema accepted. */
export function parseCreateTopup(body: CreateTopupIntentBody): CreateTopupInput {
  return {
    amount: amountOf(body.amount),
    currency: upper(body.currency),
    country: upper(body.country),
    merchant_reference: body.merchant_reference,
  };
}

export interface TopupServiceDeps {
  db: Db;
  lifecycle: LifecycleDeps;
}

export class TopupService extends IntentReads<TopupIntent, TopupIntentWire> {
  readonly lifecycle: Lifecycle<TopupIntent, TopupStatus, keyof typeof topupStates.transitions, TopupIntentWire>;

  constructor(private readonly deps: TopupServiceDeps) {
    const store = new IntentStore(deps.db, TopupIntent, 'topupIntent', 'topup intent', TOPUP_LIST, topupToWire);
    super(store);
    this.lifecycle = new Lifecycle(deps.lifecycle, topupStates, store, topupToWire);
  }

  /** Transfer instructions valid for 24 h; a repeated merchant_reference is refused. */
  async create(em: Tx, ctx: Actor, input: CreateTopupInput): Promise<Done<TopupIntentWire>> {
    const duplicate = () =>
      new ApiError(
        'duplicate_merchant_reference',
        `A topup intent with merchant_reference "${input.merchant_reference}" already exists.`,
        'merchant_reference',
      );
    if (await this.store.findByReference(em, ctx, input.merchant_reference)) throw duplicate();
    const now = new Date();
    const id = newId('topupIntent', now.getTime());
    const expiresAt = new Date(now.getTime() + TOPUP_TTL_MS);
    const t = Object.assign(new TopupIntent(), {
      id,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      amount: input.amount,
      currency: input.currency,
      country: input.country,
      status: 'requires_action' as const,
      merchantReference: input.merchant_reference,
      nextAction: {
        type: 'display_bank_transfer_instructions',
        expires_at: expiresAt.toISOString(),
        display_bank_transfer_instructions: {
          ...COLLECTION_ACCOUNT,
          reference: `TU${id.slice(-10).toUpperCase()}`,
          amount: formatAmount(input.amount),
          currency: input.currency,
        },
      } satisfies NextAction,
      failureCode: null,
      failureMessage: null,
      expiresAt,
      createdAt: now,
      updatedAt: now,
    });
    try {
      return done('created', await this.lifecycle.create(em, ctx, t, now));
    } catch (err) {
      if (this.deps.db.isUniqueViolation(err)) throw duplicate();
      throw err;
    }
  }

  /** Test helper: the transfer arrived (succeeded, crediting available) or was rejected. */
  async settle(em: Tx, ctx: Actor, id: string, outcome: SettleOutcome): Promise<Done<TopupIntentWire>> {
    const settled =
      outcome.status === 'succeeded'
        ? await this.lifecycle.applyTo(em, ctx, id, 'succeed')
        : await this.lifecycle.applyTo(em, ctx, id, 'fail', { failureCode: outcome.failureCode, failureMessage: outcome.failureMessage });
    return done('done', settled);
  }

  /** Moves every requires_action topup past its expires_at to expired. */
  async expireDue(now = new Date()): Promise<number> {
    return this.store.processDue('expires_at', 'requires_action', now, async (em, t, scope) => {
      if (t.expiresAt.getTime() > now.getTime()) return false;
      const expired = await this.lifecycle.apply(
        em,
        { ...scope, requestId: null },
        t,
        'expire',
        {
          failureCode: 'expired',
          failureMessage: 'The transfer was not received before the instructions expired.',
        },
        now,
      );
      return expired.end;
    });
  }
}
