/** OpenAPI fragment of the webhooks module: endpoints and their delivery attempts. */
import { commonErrors, createdParams, error, idParam, json, limitCursor, page, ref } from '../../http/openapi.parts';

const paths = {
  '/webhook_endpoints': {
    post: {
      summary: 'Create a webhook endpoint; the response carries `secret` (whsec_...) once.',
      parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
      requestBody: { required: true, content: json(ref('CreateWebhookEndpoint')) },
      responses: {
        201: { description: 'Created, with its secret.', content: json(ref('WebhookEndpoint')) },
        ...commonErrors,
        409: error('idempotency_conflict'),
        413: error('payload_too_large'),
        415: error('unsupported_media_type'),
      },
    },
    get: {
      summary: 'List webhook endpoints, newest first.',
      parameters: [...limitCursor, ...createdParams],
      responses: { 200: { description: 'A page.', content: json(page('WebhookEndpoint')) }, ...commonErrors },
    },
  },
  '/webhook_endpoints/{id}': {
    get: { summary: 'Retrieve a webhook endpoint (never its secret).', parameters: [idParam], responses: { 200: { description: 'The endpoint.', content: json(ref('WebhookEndpoint')) }, ...commonErrors } },
    delete: {
      summary: 'Delete a webhook endpoint; its pending deliveries are cancelled.',
      parameters: [idParam],
      responses: { 200: { description: 'Deleted.', content: json({ type: 'object', properties: { object: { const: 'webhook_endpoint' }, id: { type: 'string' }, deleted: { const: true } } }) }, ...commonErrors },
    },
  },
  '/webhook_endpoints/{id}/attempts': {
    get: {
      summary: 'Delivery attempts to this endpoint, newest first.',
      parameters: [idParam, ...limitCursor, ...createdParams],
      responses: { 200: { description: 'A page.', content: json(page('WebhookAttempt')) }, ...commonErrors },
    },
  },
};

const schemas = {
  CreateWebhookEndpoint: {
    type: 'object', additionalProperties: false, required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', maxLength: 2048, description: 'http(s); must not resolve to a loopback, private, link-local or metadata address.' },
      enabled_events: { type: 'array', items: { type: 'string' }, description: 'Types or `resource.*` wildcards; omitted = all.' },
    },
  },
  WebhookEndpoint: {
    type: 'object',
    properties: {
      object: { const: 'webhook_endpoint' }, id: { type: 'string' }, url: { type: 'string' }, environment: { enum: ['test', 'live'] },
      enabled_events: { type: 'array', items: { type: 'string' } }, status: { enum: ['enabled', 'disabled'] },
      disabled_reason: { type: ['string', 'null'] }, secret: { type: 'string', description: 'Create response only.' },
      created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' },
    },
  },
  WebhookAttempt: {
    type: 'object',
    properties: {
      object: { const: 'webhook_attempt' }, id: { type: 'string' }, webhook_endpoint: { type: 'string' }, event: { type: 'string' },
      attempt_number: { type: 'integer' }, status_code: { type: ['integer', 'null'] }, error: { type: ['string', 'null'] },
      duration_ms: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const WEBHOOK_OPENAPI = { paths, schemas };
