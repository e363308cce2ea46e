/**
 * The refunds' schemas: the create body (validated by the pipeline for REST and GraphQL
 * alike), the listing's extra filter, the wire record and its type, and what each route
 * publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Amount, AmountText, EnvironmentName, IgnoredEnvironment, Instant, MerchantReference, Nullable, Obj, TEXT } from '../../domain/fields';
import { AMOUNT_AND_STATUS_SORTS, type ListSpec } from '../../domain/listing';
import { REFUND_REASON_MAX } from '../../domain/validation';
import { answer, failure, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { Literals } from '../shared/wire-schema';
import { REFUND_STATUSES } from './refund.states';

/** A payment intent's id as a client sends it back: no format is imposed, an id never issued is 404 not_found. */
const PaymentIntentId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The id of a succeeded payment intent (pi_...) of this merchant and environment.',
});

export const CreateRefundBody = Obj(
  {
    payment_intent: PaymentIntentId,
    amount: Type.Optional(Nullable({ ...Amount, description: `${Amount.description} Omitted or null: what is still refundable on the payment intent.` })),
    reason: Type.Optional(
      Nullable(
        Type.String({
          maxLength: REFUND_REASON_MAX,
          ...TEXT,
          description: `Why; at most ${REFUND_REASON_MAX} characters (code points), stored as sent. Blank or null means none.`,
        }),
      ),
    ),
    merchant_reference: Type.Optional(
      Nullable({
        ...MerchantReference,
        description: "The merchant's own reference; unique per merchant and environment among refunds: a repeat returns the original refund (200).",
      }),
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'CreateRefund' },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

export const REFUND_LIST: ListSpec = {
  resource: 'refund',
  statuses: REFUND_STATUSES,
  sorts: AMOUNT_AND_STATUS_SORTS,
  extra: { payment_intent: { schema: { ...PaymentIntentId, description: 'Only the refunds of this payment intent.' } } },
};

export const RefundSchema = Type.Object(
  {
    object: Type.Literal('refund'),
    id: Type.String(),
    payment_intent: Type.String({ description: 'The refunded payment intent.' }),
    amount: AmountText,
    currency: Type.String({ description: "The payment intent's currency." }),
    environment: EnvironmentName,
    status: Literals(REFUND_STATUSES),
    reason: Nullable(Type.String()),
    merchant_reference: Nullable(Type.String()),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'Refund', additionalProperties: false },
);
export type RefundWire = Static<typeof RefundSchema>;

const record = (description: string) => answer(description, 'Refund');
const testHelper = { description: 'A live key gets 404 not_found, as for an unknown route. The body may be absent.' };

export const REFUND_ROUTES = {
  create: {
    operationId: 'createRefund',
    permission: 'refunds:write',
    summary: 'Refund a succeeded payment intent, in full (amount omitted) or in part.',
    description:
      'Holds the amount from the available balance of the currency (available -> reserved) until the provider settles the refund. ' +
      'The refunds of a payment intent that have not failed never add up to more than its amount.',
    responses: {
      201: record('Created (pending).'),
      200: record('merchant_reference repeated: the original refund, as it is now.'),
      ...writeFailures,
      404: failure('not_found: no such payment intent for this merchant and environment.'),
      422: failure(
        'invalid_state: the payment intent has not succeeded; refund_exceeds_payment: the amount is more than what is still refundable; ' +
          'insufficient_balance: the available balance of the currency is lower than the amount.',
      ),
    },
  },
  list: {
    operationId: 'listRefunds',
    permission: 'refunds:read',
    summary: 'List refunds, newest first.',
    responses: { 200: pageOf('Refund'), ...readFailures },
  },
  get: { operationId: 'getRefund', permission: 'refunds:read', summary: 'Retrieve a refund.', responses: { 200: record('The refund.'), ...readFailures } },
  testSucceed: {
    operationId: 'testSucceedRefund',
    permission: 'refunds:write',
    ...testHelper,
    summary: 'Test keys only: settle a pending refund as succeeded.',
    responses: { 200: record('Settled.'), ...writeFailures, 422: failure('invalid_state: the refund is not pending.') },
  },
  testFail: {
    operationId: 'testFailRefund',
    permission: 'refunds:write',
    ...testHelper,
    summary: 'Test keys only: settle a pending refund as failed (its amount goes back to available). Default failure_code refund_declined.',
    responses: { 200: record('Settled.'), ...writeFailures, 422: failure('invalid_state: the refund is not pending.') },
  },
} satisfies Record<string, RouteDoc>;
