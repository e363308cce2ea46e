/**
 * The topup intents' schemas: the create body (validated by the pipeline for REST and
 * GraphQL alike), the wire record and its type, and what each route publishes in the OpenAPI
 * document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Amount, AmountText, Country, Currency, EnvironmentName, IgnoredEnvironment, Instant, MerchantReference, Nullable, Obj } from '../../domain/fields';
import { answer, failure, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { NextActionSchema } from '../methods/next-action';
import { Literals, RefTo } from '../shared/wire-schema';
import { TOPUP_STATUSES } from './topup.states';

export const CreateTopupIntentBody = Obj(
  {
    amount: Amount,
    currency: Currency,
    country: Country,
    merchant_reference: MerchantReference,
    environment: IgnoredEnvironment,
  },
  { title: 'CreateTopupIntent' },
);
export type CreateTopupIntentBody = Static<typeof CreateTopupIntentBody>;

export const TopupIntentSchema = Type.Object(
  {
    object: Type.Literal('topup_intent'),
    id: Type.String(),
    amount: AmountText,
    currency: Type.String(),
    country: Type.String(),
    environment: EnvironmentName,
    status: Literals(TOPUP_STATUSES),
    merchant_reference: Type.String(),
    next_action: Nullable(RefTo(NextActionSchema, { description: 'Bank-transfer instructions while requires_action; null otherwise.' })),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'TopupIntent', additionalProperties: false },
);
export type TopupIntentWire = Static<typeof TopupIntentSchema>;

const record = (description: string) => answer(description, 'TopupIntent');
const TEST_ONLY = 'A live key gets 404 not_found, as for an unknown route.';

export const TOPUP_ROUTES = {
  create: {
    operationId: 'createTopupIntent',
    permission: 'topup_intents:write',
    summary: 'Create a topup intent (bank-transfer instructions in next_action). Idempotency-Key is required.',
    description: 'The instructions are valid for 24 hours; the topup credits the available balance of its currency when the transfer arrives.',
    responses: {
      201: record('Created.'),
      ...writeFailures,
      400: failure(
        'validation_error (`param` names the field or header), invalid_json, or idempotency_key_required when the Idempotency-Key header is missing.',
      ),
      409: failure(
        'duplicate_merchant_reference when merchant_reference was used before; idempotency_conflict: the key was used with another body, or the first call with the key is still running (then with Retry-After; the same request sent again replays its answer).',
      ),
    },
  },
  list: {
    operationId: 'listTopupIntents',
    permission: 'topup_intents:read',
    summary: 'List topup intents, newest first.',
    responses: { 200: pageOf('TopupIntent'), ...readFailures },
  },
  get: {
    operationId: 'getTopupIntent',
    permission: 'topup_intents:read',
    summary: 'Retrieve a topup intent.',
    responses: { 200: record('The topup intent.'), ...readFailures },
  },
  testSucceed: {
    operationId: 'testSucceedTopupIntent',
    permission: 'topup_intents:write',
    summary: 'Test keys only: the transfer arrived; credits the available balance. The body may be absent.',
    description: TEST_ONLY,
    responses: {
      200: record('Settled.'),
      ...writeFailures,
      422: failure('invalid_state: only a topup intent in requires_action can be settled.'),
    },
  },
  testFail: {
    operationId: 'testFailTopupIntent',
    permission: 'topup_intents:write',
    summary: 'Test keys only: the transfer was rejected. The body may be absent.',
    description: TEST_ONLY,
    responses: {
      200: record('Settled.'),
      ...writeFailures,
      422: failure('invalid_state: only a topup intent in requires_action can be settled.'),
    },
  },
} satisfies Record<string, RouteDoc>;
