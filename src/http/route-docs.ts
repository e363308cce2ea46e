/**
 * What a REST route publishes about itself: operation id, summary, query, responses. The
 * route's request schemas are the ones that validate it (the operation's `body`, the
 * read's `query`), so the OpenAPI document that @fastify/swagger builds from the routes
 * cannot drift from what is enforced.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { Requirement } from '../domain/access';

export interface RouteDoc {
  /** Unique; generated clients name their methods after it. */
  operationId: string;
  /** What the caller needs (`payout_intents:write`, a team capability, or `authenticated`): checked before anything else runs. */
  permission: Requirement;
  summary: string;
  description?: string;
  query?: TSchema;
  /** The JSON body as the document shows it, when it says more than the operation's own schema checks at once (a batch's items, checked row by row). */
  body?: TSchema;
  /** A multipart/form-data body the route takes besides its JSON one (documented beside it). */
  upload?: TSchema;
  /** Answers by status; build them with `answer` and `failure`. */
  responses: Record<number, TSchema>;
}

/** A documented answer carrying a component schema (registered with its `$id`). */
export const answer = (description: string, schema: TSchema | string): TSchema =>
  typeof schema === 'string' ? Type.Ref(schema, { description }) : Type.Unsafe({ ...schema, description });

/** A documented error answer: the contract's error body; `description` names the codes. */
export const forbidden = (needed: Requirement) => failure(`permission_denied: the caller lacks ${needed}.`);

export const failure = (description: string): TSchema => Type.Ref('Error', { description });

/** The error answers every authenticated route may give. */
export const commonFailures = {
  400: failure('validation_error (`param` names the field, query parameter or header) or invalid_json.'),
  401: failure('unauthorized'),
  503: failure(
    'service_unavailable: the database is unreachable or did not answer in time, or the server is shutting down; retry after the `Retry-After` header.',
  ),
};
export const readFailures = { ...commonFailures, 404: failure('not_found') };

/**
 * The 400 answer of an operation with rules its schemas cannot state (a maximum not below a
 * minimum, a time in the future, a public host): each is listed as "`param`: rule", the
 * `param` its validation_error names. A request the schemas accept is refused with 400 only
 * for a rule listed here (each field's description says it too).
 */
export const invalidWhen = (rules: Record<string, string>): TSchema =>
  failure(
    `validation_error (\`param\` names the field, query parameter or header) or invalid_json. Also validation_error, for rules the schema cannot state: ${Object.entries(
      rules,
    )
      .map(([param, rule]) => `\`${param}\`: ${rule}`)
      .join('; ')}.`,
  );
export const writeFailures = {
  ...readFailures,
  405: failure('method_not_allowed'),
  409: failure(
    'idempotency_conflict: the key was used with another body, or the first call with the key is still running (then with Retry-After; the same request sent again replays its answer).',
  ),
  413: failure('payload_too_large'),
  415: failure('unsupported_media_type'),
};

/** `{ data, has_more, next_cursor }` of the listing rules. */
export const pageOf = (item: string, description = 'A page, newest first.'): TSchema =>
  Type.Object(
    {
      data: Type.Array(Type.Ref(item)),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()], {
        description: 'Opaque: send it back as `cursor` for the next page; null on the last page.',
      }),
    },
    { description },
  );

/** The contract's error body. */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String(),
        message: Type.String(),
        param: Type.Optional(Type.String({ description: 'Validation errors only: the path of the offending field, query parameter or header.' })),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Error' },
);
