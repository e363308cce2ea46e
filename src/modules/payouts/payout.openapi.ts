/** OpenAPI fragment of the payout intents module. */
import { amount, commonErrors, error, idempotencyHeader, idParam, json, listParams, page, postErrors, ref, testHelperRoute, timestamps } from '../../http/openapi.parts';
import { PAYOUT_STATUSES } from './payout.states';

export const PAYOUT_OPENAPI = {
  paths: {
    '/payout_intents': {
      post: {
        summary: 'Create a payout intent (waits at the approval gate).',
        parameters: [idempotencyHeader],
        requestBody: { required: true, content: json(ref('CreatePayoutIntent')) },
        responses: {
          201: { description: 'Created.', content: json(ref('PayoutIntent')) },
          200: { description: 'merchant_reference repeated: the original payout intent.', content: json(ref('PayoutIntent')) },
          ...postErrors,
          422: error('insufficient_balance: the available balance of the currency is lower than the amount.'),
        },
      },
      get: {
        summary: 'List payout intents, newest first.',
        parameters: listParams(PAYOUT_STATUSES),
        responses: { 200: { description: 'A page.', content: json(page('PayoutIntent')) }, ...commonErrors },
      },
    },
    '/payout_intents/{id}': {
      get: { summary: 'Retrieve a payout intent.', parameters: [idParam], responses: { 200: { description: 'The payout intent.', content: json(ref('PayoutIntent')) }, ...commonErrors } },
    },
    '/payout_intents/{id}/approve': {
      post: {
        summary: 'Approve: requires_approval -> processing.',
        parameters: [idParam, idempotencyHeader],
        responses: { 202: { description: 'Approved.', content: json(ref('PayoutIntent')) }, ...postErrors, 422: error('invalid_state') },
      },
    },
    '/payout_intents/{id}/cancel': {
      post: {
        summary: 'Cancel a payout intent at the approval gate.',
        parameters: [idParam, idempotencyHeader],
        requestBody: { required: false, content: json({ type: 'object', additionalProperties: false, properties: { reason: { type: 'string', maxLength: 512 } } }) },
        responses: { 202: { description: 'Cancelled.', content: json(ref('PayoutIntent')) }, ...postErrors, 422: error('approval_required: the message names the current status.') },
      },
    },
    '/test_helpers/payout_intents/{id}/succeed': testHelperRoute('PayoutIntent', 'Test keys only: settle a processing payout as succeeded.', 'Settled.'),
    '/test_helpers/payout_intents/{id}/fail': testHelperRoute('PayoutIntent', 'Test keys only: settle a processing payout as failed.', 'Settled.', true),
  },
  schemas: {
    CreatePayoutIntent: {
      type: 'object', additionalProperties: false,
      required: ['amount', 'currency', 'country', 'merchant_reference', 'recipient'],
      properties: {
        amount,
        currency: { type: 'string', pattern: '^[A-Za-z]{3,6}$' },
        country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
        merchant_reference: { type: 'string', minLength: 1, maxLength: 256 },
        recipient: {
          type: 'object', additionalProperties: false, required: ['type', 'bank_code', 'account_number', 'holder_name'],
          properties: {
            type: { const: 'bank_account' }, bank_code: { type: 'string', maxLength: 64 },
            account_number: { type: 'string', minLength: 4, maxLength: 34 }, holder_name: { type: 'string', maxLength: 256 },
          },
        },
      },
    },
    PayoutIntent: {
      type: 'object',
      properties: {
        object: { const: 'payout_intent' }, id: { type: 'string' }, amount, currency: { type: 'string' }, country: { type: 'string' },
        environment: { enum: ['test', 'live'] }, status: { enum: [...PAYOUT_STATUSES] }, merchant_reference: { type: 'string' },
        recipient: {
          type: 'object',
          properties: { type: { const: 'bank_account' }, account_last4: { type: 'string' }, bank_code: { type: 'string' }, holder_name: { type: 'string' } },
        },
        failure_code: { type: ['string', 'null'] }, failure_message: { type: ['string', 'null'] }, ...timestamps,
      },
    },
  },
};
