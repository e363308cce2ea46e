/** Building blocks of the OpenAPI document, shared by src/http/openapi.ts and the modules' fragments. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: object) => ({ 'application/json': { schema } });
export const error = (description: string) => ({ description, content: json(ref('Error')) });

export const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
export const idempotencyHeader = {
  name: 'Idempotency-Key', in: 'header', required: false,
  description: 'Up to 255 printable ASCII characters; a UUID v4 is suggested. Held for 24 hours per API key.',
  schema: { type: 'string', maxLength: 255 },
};

export const commonErrors = {
  400: error('validation_error, invalid_json or a malformed Idempotency-Key; `param` (validation_error only) names the field or header.'),
  401: error('unauthorized'),
  404: error('not_found'),
};
export const postErrors = {
  ...commonErrors,
  409: error('idempotency_conflict'),
  413: error('payload_too_large'),
  415: error('unsupported_media_type'),
};

export const page = (item: string) => ({
  type: 'object', required: ['data', 'has_more', 'next_cursor'],
  properties: { data: { type: 'array', items: ref(item) }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } },
});
export const timestamps = { created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } };
export const amount = { type: 'string', pattern: '^[0-9]{1,30}$', description: 'Minor units.' };

export const createdParams = [
  { name: 'created_gte', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Inclusive lower bound.' },
  { name: 'created_lt', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'Exclusive upper bound.' },
];

/** The listing query parameters of CONTRACT.md for an intent resource with these states. */
export const listParams = (statuses: readonly string[]) => [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
  { name: 'cursor', in: 'query', schema: { type: 'string', minLength: 1 }, description: "The previous page's next_cursor." },
  { name: 'status', in: 'query', schema: { type: 'string' }, description: `One state or a comma-separated list of: ${statuses.join(', ')}.` },
  { name: 'country', in: 'query', schema: { type: 'string', pattern: '^[A-Z]{2}$' } },
  { name: 'currency', in: 'query', schema: { type: 'string', pattern: '^[A-Z]{3,6}$' } },
  { name: 'merchant_reference', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 256 } },
  ...createdParams,
];

const failureBody = {
  required: false,
  content: json({ type: 'object', additionalProperties: false, properties: { failure_code: { type: 'string' }, failure_message: { type: 'string' } } }),
};

/** A `POST /test_helpers/<resource>/{id}/<action>` route answering the record; `fail` routes take failure_code/message. */
export const testHelperRoute = (schema: string, summary: string, answer: string, takesFailure = false) => ({
  post: {
    summary,
    description: 'Test keys only: a live key gets 404 not_found, as for an unknown route.',
    parameters: [idParam, idempotencyHeader],
    ...(takesFailure ? { requestBody: failureBody } : {}),
    responses: { 200: { description: answer, content: json(ref(schema)) }, ...postErrors, 422: error('invalid_state') },
  },
});

/** `limit` and `cursor` of the listings that have no status filter (events, attempts, audit). */
export const limitCursor = [
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
  { name: 'cursor', in: 'query', schema: { type: 'string', minLength: 1 }, description: "The previous page's next_cursor, or an event id (events only): the page after that event." },
];
