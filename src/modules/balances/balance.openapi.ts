/** OpenAPI fragment of the balances module. */
import { amount, error, json, ref } from '../../http/openapi.parts';

export const BALANCE_OPENAPI = {
  paths: {
    '/balances': {
      get: {
        summary: "The merchant's balances in the key's environment, one per currency.",
        responses: {
          200: { description: 'Balances.', content: json({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Balance') } } }) },
          401: error('unauthorized'),
        },
      },
    },
  },
  schemas: {
    Balance: {
      type: 'object',
      properties: {
        object: { const: 'balance' }, currency: { type: 'string' }, environment: { enum: ['test', 'live'] },
        available: amount, pending: amount, reserved: amount, updated_at: { type: 'string', format: 'date-time' },
      },
    },
  },
};
