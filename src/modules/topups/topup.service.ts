/**
 * Topup intents: the merchant adds money to its balance by bank transfer. Created in
 * requires_action with bank-transfer instructions; succeeds (crediting `available`),
 * fails, or expires. `Idempotency-Key` is required; a reused merchant_reference is a
 * 409 duplicate_merchant_reference (unlike payouts, which return the original).
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { formatAmount } from '../../domain/money';
import { FieldReader, parseEmptyBody, parseTestFailure, readIntentBasics } from '../../domain/validation';
import type { ListSpec } from '../../domain/listing';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import type { EventService } from '../events/event.service';
import type { ApiResult, IdempotencyService } from '../idempotency/idempotency.service';
import { LedgerService, MOVES } from '../balances/ledger.service';
import { IntentReads, IntentStore } from '../shared/intent-store';
import type { NextAction } from '../methods/next-action';
import { TopupIntent } from './topup.entity';
import { TOPUP_STATUSES, TopupStatus, topupStates } from './topup.states';

export interface TopupIntentWire {
  object: 'topup_intent';
  id: string;
  amount: string;
  currency: string;
  country: string;
  environment: string;
  status: TopupStatus;
  merchant_reference: string;
  next_action: NextAction | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreateTopupInput {
  amount: bigint;
  currency: string;
  country: string;
  merchant_reference: string;
}

/** How long the transfer instructions stay valid. */
export const TOPUP_TTL_MS = 24 * 60 * 60 * 1000;

/** The simulated collection account the merchant transfers to; the reference matches the transfer. */
const COLLECTION_ACCOUNT = { bank: 'KBANK', bank_name: 'Kasikornbank', account_number: '0011223344', account_name: 'Payments Gateway Client Funds' };

export const TOPUP_LIST: ListSpec = { resource: 'topup_intent', statuses: TOPUP_STATUSES };

export function topupToWire(t: TopupIntent): TopupIntentWire {
  return {
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
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

const TOPUP_TEST_FAILURE = { failure_code: 'transfer_rejected', failure_message: 'The bank transfer was rejected.' };

export function parseCreateTopup(raw: unknown): CreateTopupInput {
  const body = FieldReader.body(raw);
  const { amount, currency, country, merchantReference } = readIntentBasics(body);
  const input = { amount, currency, country, merchant_reference: merchantReference };
  body.end();
  return input;
}



export interface TopupServiceDeps {
  db: Db;
  idempotency: IdempotencyService;
  events: EventService;
  ledger: LedgerService;
}

type Changes = Partial<Pick<TopupIntent, 'failureCode' | 'failureMessage'>>;

export class TopupService extends IntentReads<TopupIntent, TopupIntentWire> {

  constructor(private readonly deps: TopupServiceDeps) {
    super(new IntentStore(deps.db, TopupIntent, 'topup intent', TOPUP_LIST, topupToWire));
  }

  create(ctx: RequestContext, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    if (idempotencyKey === undefined) {
      return Promise.reject(new ApiError('idempotency_key_required', 'POST /v1/topup_intents requires an Idempotency-Key header (a UUID v4 is suggested).'));
    }
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/topup_intents', raw, parse: parseCreateTopup,
      execute: (em, input) => this.insert(em, ctx, input),
    });
  }

  /** Test helper: the transfer arrived (succeed) or was rejected (fail). */
  testSettle(ctx: RequestContext, id: string, outcome: 'succeed' | 'fail', raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    if (ctx.environment !== 'test') return Promise.reject(new ApiError('not_found', 'Test helpers exist only for test-mode API keys.'));
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: `POST /v1/test_helpers/topup_intents/:id/${outcome}`, raw,
      parse: (r) => ({ id, ...(outcome === 'fail' ? parseTestFailure(r, TOPUP_TEST_FAILURE, 'Topup') : parseEmptyBody(r)) }),
      execute: async (em, input) => {
        const t = await this.store.lock(em, ctx, id);
        if (t.status !== 'requires_action') {
          throw new ApiError('invalid_state', `This topup intent is ${t.status}; only a topup intent in requires_action can be settled.`);
        }
        const body = 'failure_code' in input
          ? await this.move(em, ctx, t, 'failed', { failureCode: input.failure_code, failureMessage: input.failure_message })
          : await this.move(em, ctx, t, 'succeeded', {});
        return { status: 200, body };
      },
    });
  }

  /** Moves every requires_action topup past its expires_at to expired. */
  async expireDue(now = new Date()): Promise<number> {
    return this.store.processDue('expires_at', 'requires_action', now, async (em, t, scope) => {
      if (t.expiresAt.getTime() > now.getTime()) return false;
      await this.move(em, { ...scope, requestId: null }, t, 'expired', {
        failureCode: 'expired', failureMessage: 'The transfer was not received before the instructions expired.',
      }, now);
      return true;
    });
  }

  private async insert(em: EntityManager, ctx: RequestContext, input: CreateTopupInput) {
    const duplicate = () => new ApiError('duplicate_merchant_reference', `A topup intent with merchant_reference "${input.merchant_reference}" already exists.`, 'merchant_reference');
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
      await em.getRepository(TopupIntent).insert(t as never);
    } catch (err) {
      if (this.deps.db.isUniqueViolation(err)) throw duplicate();
      throw err;
    }
    const wire = topupToWire(t);
    await this.deps.events.record(em, ctx, 'created', wire, ctx.requestId, now);
    return { status: 201, body: wire };
  }

  /** One transition: record change, ledger rows (a success credits `available`) and event row. */
  private async move(em: EntityManager, ctx: Scope & { requestId: string | null }, t: TopupIntent, to: TopupStatus, changes: Changes, now = new Date()) {
    if (!topupStates.can(t.status, to)) throw new ApiError('invalid_state', `This topup intent is ${t.status} and cannot become ${to}.`);
    await this.store.transition(em, ctx, t, to, changes, now);
    if (to === 'succeeded') {
      await this.deps.ledger.post(em, ctx, t.currency, MOVES.credit(t.amount), { entryType: 'topup_succeeded', sourceType: 'topup_intent', sourceId: t.id }, now);
    }
    const wire = topupToWire(t);
    await this.deps.events.record(em, ctx, to, wire, ctx.requestId, now);
    return wire;
  }
}
