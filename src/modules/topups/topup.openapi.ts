/** OpenAPI fragment of the topup intents module. */
import { amount, commonErrors, error, idempotencyHeader, idParam, json, listParams, page, postErrors, ref, testHelperRoute, timestamps } from '../../http/openapi.parts';
import { TOPUP_STATUSES } from './topup.states';

export const TOPUP_OPENAPI = {
  paths: {
    '/topup_intents': {
      post: {
        summary: 'Create a topup intent (bank-transfer instructions in next_action). Idempotency-Key is required.',
        parameters: [{ ...idempotencyHeader, required: true }],
        requestBody: { required: true, content: json(ref('CreateTopupIntent')) },
        responses: {
          201: { description: 'Created.', content: json(ref('TopupIntent')) },
          ...postErrors,
          400: error('validation_error, invalid_json, or idempotency_key_required when the Idempotency-Key header is missing.'),
          409: error('idempotency_conflict, or duplicate_merchant_reference when merchant_reference was used before.'),
        },
      },
      get: { summary: 'List topup intents, newest first.', parameters: listParams(TOPUP_STATUSES), responses: { 200: { description: 'A page.', content: json(page('TopupIntent')) }, ...commonErrors } },
    },
    '/topup_intents/{id}': {
      get: { summary: 'Retrieve a topup intent.', parameters: [idParam], responses: { 200: { description: 'The topup intent.', content: json(ref('TopupIntent')) }, ...commonErrors } },
    },
    '/test_helpers/topup_intents/{id}/succeed': testHelperRoute('TopupIntent', 'Test keys only: the transfer arrived; credits the available balance.', 'Settled.'),
    '/test_helpers/topup_intents/{id}/fail': testHelperRoute('TopupIntent', 'Test keys only: the transfer was rejected.', 'Settled.', true),
  },
  schemas: {
    CreateTopupIntent: {
      type: 'object', additionalProperties: false, required: ['amount', 'currency', 'country', 'merchant_reference'],
      properties: {
        amount, currency: { type: 'string', pattern: '^[A-Za-z]{3,6}$' }, country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
        merchant_reference: { type: 'string', minLength: 1, maxLength: 256 },
      },
    },
    TopupIntent: {
      type: 'object',
      properties: {
        object: { const: 'topup_intent' }, id: { type: 'string' }, amount, currency: { type: 'string' }, country: { type: 'string' },
        environment: { enum: ['test', 'live'] }, status: { enum: [...TOPUP_STATUSES] }, merchant_reference: { type: 'string' },
        next_action: { oneOf: [ref('NextAction'), { type: 'null' }] },
        failure_code: { type: ['string', 'null'] }, failure_message: { type: ['string', 'null'] }, ...timestamps,
      },
    },
  },
};
