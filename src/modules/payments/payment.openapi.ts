/** OpenAPI fragment of the payments module: payment intents and their test helpers. */
import { PAYMENT_METHODS } from '../methods/catalogue';
import { PAYMENT_STATUSES } from './payment.states';
import { amount, commonErrors, error, idempotencyHeader, idParam, json, listParams, page, postErrors, ref, testHelperRoute } from '../../http/openapi.parts';

/** What create accepts: digits only, greater than zero, at most 30 significant digits; leading zeros are dropped. */
const createAmount = { type: 'string', pattern: '^0*[1-9][0-9]{0,29}$', description: 'Minor units: ASCII digits, greater than zero, at most 30 significant digits; leading zeros are normalised away.' };
const paymentListParams = listParams(PAYMENT_STATUSES);

const paths = {
  '/payment_intents': {
    post: {
      summary: 'Create a payment intent. Direct: the named (or service-picked) method\'s next_action. Hosted: redirect_to_url to the hosted checkout page.',
      parameters: [idempotencyHeader],
      requestBody: { required: true, content: json(ref('CreatePaymentIntent')) },
      responses: {
        201: { description: 'Created.', content: json(ref('PaymentIntent')) },
        200: { description: 'merchant_reference repeated with the same fingerprint: the original payment intent.', content: json(ref('PaymentIntent')) },
        ...postErrors,
        400: error('validation_error; `param` names the create-request path, e.g. payment_method_options.account_number for a missing payer field.'),
        409: error('idempotency_conflict: the Idempotency-Key was used with another body, or merchant_reference was used with a different fingerprint.'),
        422: error('payment_method_unavailable: the named payment_method (or bank) is not eligible, or nothing is eligible.'),
      },
    },
    get: { summary: 'List payment intents, newest first.', parameters: paymentListParams, responses: { 200: { description: 'A page.', content: json(page('PaymentIntent')) }, ...commonErrors } },
  },
  '/payment_intents/{id}': {
    get: { summary: 'Retrieve a payment intent.', parameters: [idParam], responses: { 200: { description: 'The payment intent.', content: json(ref('PaymentIntent')) }, ...commonErrors } },
  },
  '/payment_intents/{id}/cancel': {
    post: {
      summary: 'Cancel a payment intent in requires_action.',
      parameters: [idParam, idempotencyHeader],
      requestBody: { required: false, content: json({ type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 512 } } }) },
      responses: { 200: { description: 'Cancelled.', content: json(ref('PaymentIntent')) }, ...postErrors, 422: error('invalid_state: not in requires_action.') },
    },
  },
  '/test_helpers/payment_intents/{id}/succeed': testHelperRoute('PaymentIntent', 'Test keys only: the payer paid and the provider confirmed (requires_action -> processing -> succeeded, or processing -> succeeded).', 'Succeeded.'),
  '/test_helpers/payment_intents/{id}/fail': testHelperRoute('PaymentIntent', 'Test keys only: the payment failed (requires_action -> processing -> failed, or processing -> failed). Default failure_code payment_declined.', 'Failed.', true),
  '/test_helpers/payment_intents/{id}/expire': testHelperRoute('PaymentIntent', 'Test keys only: expire a payment intent in requires_action now.', 'Expired.'),
};

const optionalString = (maxLength: number) => ({ type: 'string', maxLength });

const schemas = {
  CreatePaymentIntent: {
    type: 'object', additionalProperties: false,
    required: ['amount', 'currency', 'country', 'merchant_reference', 'customer'],
    properties: {
      amount: createAmount,
      currency: { type: 'string', pattern: '^\\s*[A-Za-z]{3,6}\\s*$', description: 'Trimmed and upper-cased, then ^[A-Z]{3,6}$.' },
      country: { type: 'string', pattern: '^\\s*[A-Za-z]{2}\\s*$', description: 'Trimmed and upper-cased, then ^[A-Z]{2}$.' },
      merchant_reference: { type: 'string', minLength: 1, maxLength: 256 },
      checkout_mode: { enum: ['direct', 'hosted'], default: 'direct' },
      customer: {
        type: 'object', additionalProperties: false, minProperties: 1,
        description: 'Required; at least one field.',
        properties: {
          name: optionalString(256), email: { type: 'string', format: 'email', maxLength: 254 },
          phone: { type: 'string', description: 'E.164 (^\\+[1-9][0-9]{6,14}$) once spaces, hyphens, dots and brackets are removed, e.g. +66 81-234-5678.' },
          reference: optionalString(256),
        },
      },
      payment_method: { type: 'string', maxLength: 40, description: `Omit in hosted checkout, or to let the service pick. One of: ${PAYMENT_METHODS.join(', ')}.` },
      payment_method_options: {
        type: 'object', additionalProperties: false,
        properties: {
          account_name: optionalString(256),
          account_number: { type: 'string', description: '6 to 20 digits once spaces and hyphens are removed.' },
          bank: { type: 'string', maxLength: 32, description: 'Provider-neutral bank code from discovery, e.g. KBANK (upper-cased).' },
          name_th: { type: 'string', maxLength: 256, description: 'Thai script.' },
        },
      },
      return_url: { type: 'string', format: 'uri', maxLength: 2048 },
      metadata: { type: 'object', additionalProperties: { type: 'string', maxLength: 500 }, maxProperties: 50, propertyNames: { minLength: 1, maxLength: 40 } },
      device_fingerprint: optionalString(512),
      external_reference: optionalString(256),
    },
  },
  PaymentReceipt: {
    type: 'object', additionalProperties: false,
    required: ['receipt_number', 'amount', 'currency', 'payment_method', 'bank', 'reference', 'paid_at'],
    properties: {
      receipt_number: { type: 'string' }, amount, currency: { type: 'string' }, payment_method: { type: 'string' },
      bank: { type: ['string', 'null'] }, reference: { type: 'string' }, paid_at: { type: 'string', format: 'date-time' },
    },
  },
  PaymentIntent: {
    type: 'object', additionalProperties: false,
    required: [
      'object', 'id', 'amount', 'currency', 'country', 'environment', 'checkout_mode', 'status', 'merchant_reference', 'payment_method',
      'next_action', 'failure_code', 'failure_message', 'processing_reason', 'receipt', 'created_at', 'updated_at',
    ],
    properties: {
      object: { const: 'payment_intent' }, id: { type: 'string' }, amount, currency: { type: 'string' }, country: { type: 'string' },
      environment: { enum: ['test', 'live'] }, checkout_mode: { enum: ['direct', 'hosted'] }, status: { enum: [...PAYMENT_STATUSES] },
      merchant_reference: { type: 'string' }, payment_method: { type: ['string', 'null'] },
      next_action: { oneOf: [ref('NextAction'), { type: 'null' }] },
      failure_code: { type: ['string', 'null'] }, failure_message: { type: ['string', 'null'] },
      processing_reason: { enum: ['provider_confirmation', 'risk_review', null], description: 'Why the payment is processing; null in every other state.' },
      receipt: { oneOf: [ref('PaymentReceipt'), { type: 'null' }] },
      created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const PAYMENT_OPENAPI = { paths, schemas };
