/**
 * The payment intents' wire records and what each route publishes in the OpenAPI
 * document. The create body's schemas are in payment-request.schemas.ts. The wire
 * records' TypeScript types are read off their schemas.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, EnvironmentName, Instant, Nullable, OneOf } from '../../domain/fields';
import { answer, failure, invalidWhen, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { CHECKOUT_MODES, PAYER_FIELD_PATHS } from '../methods/catalogue';
import { NextActionSchema } from '../methods/next-action';
import { Literals, RefTo } from '../shared/wire-schema';
import { PAYMENT_STATUSES } from './payment.states';

export const PaymentReceiptSchema = Type.Object(
  {
    receipt_number: Type.String(),
    amount: AmountText,
    currency: Type.String(),
    payment_method: Type.String(),
    bank: Nullable(Type.String()),
    reference: Type.String({ description: 'The payer-facing payment reference.' }),
    paid_at: Instant,
  },
  { $id: 'PaymentReceipt', additionalProperties: false, description: 'Present once the payment succeeded.' },
);
export type PaymentReceiptWire = Static<typeof PaymentReceiptSchema>;

export const PaymentIntentSchema = Type.Object(
  {
    object: Type.Literal('payment_intent'),
    id: Type.String(),
    amount: AmountText,
    currency: Type.String(),
    country: Type.String(),
    environment: EnvironmentName,
    checkout_mode: Literals(CHECKOUT_MODES),
    status: Literals(PAYMENT_STATUSES),
    merchant_reference: Type.String(),
    payment_method: Nullable(Type.String({ description: 'Null in hosted checkout until the payer picks a method.' })),
    next_action: Nullable(RefTo(NextActionSchema, { description: 'Only in requires_action: what the payer does next.' })),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    // OneOf, not Literals: typed string, as the connectors' catalogue names the reason.
    processing_reason: Nullable(OneOf(['provider_confirmation', 'risk_review'])),
    receipt: Nullable(RefTo(PaymentReceiptSchema)),
    amount_refunded: {
      ...AmountText,
      description: 'The sum of the refunds of this payment intent that have not failed (pending or succeeded); "0" when none.',
    },
    payment_link: Nullable(Type.String({ description: 'The payment link (plink_...) the payer started from; null for an intent created through the API.' })),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'PaymentIntent', additionalProperties: false },
);
export type PaymentIntentWire = Static<typeof PaymentIntentSchema>;

const record = (description: string) => answer(description, 'PaymentIntent');
const testHelper = { description: 'A live key gets 404 not_found, as for an unknown route. The body may be absent.' };

const PAYER_FIELD_MISSING =
  'a payer field the chosen (method, bank) requires for this amount, currency and country, missing (GET /v1/payment_method_options reports it under options.payer; with payment_method omitted, the first missing field of the first eligible method)';

export const PAYMENT_ROUTES = {
  create: {
    operationId: 'createPaymentIntent',
    permission: 'payment_intents:write',
    summary: "Create a payment intent. Direct: the named (or service-picked) method's next_action. Hosted: redirect_to_url to the hosted checkout page.",
    responses: {
      201: record('Created.'),
      200: record('merchant_reference repeated with the same fingerprint: the original payment intent, as it is now.'),
      ...writeFailures,
      // Rules that depend on the payment method and the other fields: a body the schema accepts can still break them.
      400: invalidWhen({
        'payment_method_options.bank':
          'missing when the named payment_method has a bank choice (bank_transfer, online_banking, direct_debit) and is eligible, ' +
          'or given when it has none (promptpay)',
        ...Object.fromEntries(
          Object.values(PAYER_FIELD_PATHS)
            .filter((path) => path !== 'payment_method_options.bank')
            .map((path) => [path, PAYER_FIELD_MISSING]),
        ),
      }),
      409: failure(
        'idempotency_conflict: the Idempotency-Key was used with another body, or merchant_reference was used with a different fingerprint; or the first call with the key is still running (then with Retry-After; the same request sent again replays its answer).',
      ),
      422: failure(
        'payment_method_unavailable: the named payment_method (or bank) is not eligible for this amount (each method has a minimum and maximum), currency, country and checkout mode, or is disabled for the merchant; or nothing is eligible.',
      ),
    },
  },
  list: {
    operationId: 'listPaymentIntents',
    permission: 'payment_intents:read',
    summary: 'List payment intents, newest first.',
    responses: { 200: pageOf('PaymentIntent'), ...readFailures },
  },
  get: {
    operationId: 'getPaymentIntent',
    permission: 'payment_intents:read',
    summary: 'Retrieve a payment intent.',
    responses: { 200: record('The payment intent.'), ...readFailures },
  },
  cancel: {
    operationId: 'cancelPaymentIntent',
    permission: 'payment_intents:write',
    summary: 'Cancel a payment intent in requires_action. The body may be absent.',
    responses: { 200: record('Cancelled.'), ...writeFailures, 422: failure('invalid_state: not in requires_action.') },
  },
  testSucceed: {
    operationId: 'testSucceedPaymentIntent',
    permission: 'payment_intents:write',
    ...testHelper,
    summary: 'Test keys only: the payer paid and the provider confirmed (requires_action -> processing -> succeeded, or processing -> succeeded).',
    responses: { 200: record('Succeeded.'), ...writeFailures, 422: failure('invalid_state: not in requires_action or processing.') },
  },
  testFail: {
    operationId: 'testFailPaymentIntent',
    permission: 'payment_intents:write',
    ...testHelper,
    summary: 'Test keys only: the payment failed (requires_action -> processing -> failed, or processing -> failed). Default failure_code payment_declined.',
    responses: { 200: record('Failed.'), ...writeFailures, 422: failure('invalid_state: not in requires_action or processing.') },
  },
  testExpire: {
    operationId: 'testExpirePaymentIntent',
    permission: 'payment_intents:write',
    ...testHelper,
    summary: 'Test keys only: expire a payment intent in requires_action now.',
    responses: { 200: record('Expired.'), ...writeFailures, 422: failure('invalid_state: not in requires_action.') },
  },
} satisfies Record<string, RouteDoc>;
