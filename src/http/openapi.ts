/**
 * The OpenAPI 3.1 document of the REST routes, served at /v1/openapi.json. A test checks
 * that every registered /v1 route appears here and every documented route exists.
 */
import type { FastifyInstance } from 'fastify';
import { PAYOUT_STATUSES } from '../modules/payouts/payout.states';
import { TOPUP_STATUSES } from '../modules/topups/topup.states';
import { sendJson } from './plumbing';
import { amount, commonErrors, error, idempotencyHeader, idParam, json, listParams, page, postErrors, ref, testHelperRoute, timestamps } from './openapi.parts';
import { AUDIT_OPENAPI_PATHS, AUDIT_OPENAPI_SCHEMAS } from '../modules/audit/audit.openapi';
import { EVENT_OPENAPI_PATHS, EVENT_OPENAPI_SCHEMAS, WEBHOOK_OPENAPI_PATHS } from '../modules/events/event.openapi';
import { PAYMENT_OPENAPI_PATHS, PAYMENT_OPENAPI_SCHEMAS } from '../modules/payments/payment.openapi';

const payoutListParams = listParams(PAYOUT_STATUSES);
const topupListParams = listParams(TOPUP_STATUSES);

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'Merchant Payments and Payouts API',
    version: '1.0.0',
    description: 'REST compatibility routes. Authenticate with HTTP Basic: public key as username, secret key as password.',
  },
  servers: [{ url: '/v1' }],
  security: [{ basic: [] }],
  paths: {
    '/openapi.json': {
      get: {
        summary: 'This document. Needs no credentials.',
        security: [],
        responses: { 200: { description: 'The OpenAPI 3.1 document of the REST routes.', content: json({ type: 'object' }) } },
      },
    },
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
        parameters: payoutListParams,
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
      get: { summary: 'List topup intents, newest first.', parameters: topupListParams, responses: { 200: { description: 'A page.', content: json(page('TopupIntent')) }, ...commonErrors } },
    },
    '/topup_intents/{id}': {
      get: { summary: 'Retrieve a topup intent.', parameters: [idParam], responses: { 200: { description: 'The topup intent.', content: json(ref('TopupIntent')) }, ...commonErrors } },
    },
    '/test_helpers/topup_intents/{id}/succeed': testHelperRoute('TopupIntent', 'Test keys only: the transfer arrived; credits the available balance.', 'Settled.'),
    '/test_helpers/topup_intents/{id}/fail': testHelperRoute('TopupIntent', 'Test keys only: the transfer was rejected.', 'Settled.', true),
    '/balances': {
      get: {
        summary: "The merchant's balances in the key's environment, one per currency.",
        responses: {
          200: { description: 'Balances.', content: json({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Balance') } } }) },
          401: error('unauthorized'),
        },
      },
    },
    ...EVENT_OPENAPI_PATHS,
    ...WEBHOOK_OPENAPI_PATHS,
    ...AUDIT_OPENAPI_PATHS,
    ...PAYMENT_OPENAPI_PATHS,
  },
  components: {
    securitySchemes: { basic: { type: 'http', scheme: 'basic' } },
    schemas: {
      ...EVENT_OPENAPI_SCHEMAS,
      ...AUDIT_OPENAPI_SCHEMAS,
      ...PAYMENT_OPENAPI_SCHEMAS,
      Error: {
        type: 'object', required: ['error'],
        properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, param: { type: 'string', description: 'Validation errors only: the path of the offending field, query parameter or header.' } }, additionalProperties: false } },
      },
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
      CreateTopupIntent: {
        type: 'object', additionalProperties: false, required: ['amount', 'currency', 'country', 'merchant_reference'],
        properties: {
          amount, currency: { type: 'string', pattern: '^[A-Za-z]{3,6}$' }, country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
          merchant_reference: { type: 'string', minLength: 1, maxLength: 256 },
        },
      },
      NextAction: {
        oneOf: [
          {
            type: 'object', additionalProperties: false, required: ['type', 'url', 'expires_at'],
            properties: { type: { const: 'redirect_to_url' }, url: { type: 'string', format: 'uri' }, expires_at: { type: 'string', format: 'date-time' } },
          },
          {
            type: 'object', additionalProperties: false, required: ['type', 'expires_at', 'display_qr_code'],
            properties: {
              type: { const: 'display_qr_code' }, expires_at: { type: 'string', format: 'date-time' },
              display_qr_code: {
                type: 'object', additionalProperties: false, required: ['data', 'image_url_svg'],
                properties: { data: { type: 'string', description: 'The EMVCo payload the QR code encodes.' }, image_url_svg: { type: 'string', description: 'data:image/svg+xml URL.' } },
              },
            },
          },
          {
            type: 'object', additionalProperties: false, required: ['type', 'expires_at', 'display_bank_transfer_instructions'],
            properties: {
              type: { const: 'display_bank_transfer_instructions' }, expires_at: { type: 'string', format: 'date-time' },
              display_bank_transfer_instructions: {
                type: 'object', additionalProperties: false,
                required: ['bank', 'bank_name', 'account_number', 'account_name', 'reference', 'amount', 'currency'],
                properties: {
                  bank: { type: 'string' }, bank_name: { type: 'string' }, account_number: { type: 'string' }, account_name: { type: 'string' },
                  reference: { type: 'string' }, amount, currency: { type: 'string' },
                },
              },
            },
          },
        ],
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
      Balance: {
        type: 'object',
        properties: {
          object: { const: 'balance' }, currency: { type: 'string' }, environment: { enum: ['test', 'live'] },
          available: amount, pending: amount, reserved: amount, updated_at: { type: 'string', format: 'date-time' },
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
  },
};

export function registerOpenApiRoute(fastify: FastifyInstance): void {
  fastify.get('/v1/openapi.json', async (_req, reply) => sendJson(reply, 200, OPENAPI_DOCUMENT));
}
