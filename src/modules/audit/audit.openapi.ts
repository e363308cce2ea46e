/** OpenAPI fragments for the audit log (collected by src/http/openapi.ts). */
import { error, json, ref } from '../../http/openapi.parts';

const paths = {
  '/audit_log': {
    get: {
      summary: 'State-changing calls (REST and GraphQL) of this merchant and environment, newest first.',
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
        { name: 'cursor', in: 'query', schema: { type: 'string', minLength: 1 }, description: "The previous page's next_cursor." },
        { name: 'created_gte', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Inclusive lower bound.' },
        { name: 'created_lt', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Exclusive upper bound.' },
        { name: 'resource_id', in: 'query', schema: { type: 'string' }, description: 'Only entries about this record.' },
        { name: 'operation', in: 'query', schema: { type: 'string' }, description: 'Only this operation, e.g. `POST /v1/payout_intents/:id/cancel`.' },
      ],
      responses: {
        200: {
          description: 'A page.',
          content: json({
            type: 'object', required: ['data', 'has_more', 'next_cursor'],
            properties: { data: { type: 'array', items: ref('AuditEntry') }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } },
          }),
        },
        400: error('validation_error; `param` names the parameter.'),
        401: error('unauthorized'),
      },
    },
  },
};

const schemas = {
  AuditEntry: {
    type: 'object',
    properties: {
      object: { const: 'audit_entry' }, id: { type: 'string' }, environment: { enum: ['test', 'live'] },
      api_key_id: { type: 'string', description: 'The API key that made the call.' },
      operation: { type: 'string', description: 'Named as its REST route, e.g. `POST /v1/payout_intents/:id/cancel`; GraphQL mutations share the names.' },
      resource_type: { type: ['string', 'null'] }, resource_id: { type: ['string', 'null'] },
      reason: { type: ['string', 'null'], description: 'The reason given (cancel), if any.' },
      request_id: { type: ['string', 'null'], description: 'The Request-Id response header of the call.' },
      status_code: { type: ['integer', 'null'], description: 'HTTP status of the answer.' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const AUDIT_OPENAPI = { paths, schemas };
