/**
 * The audit log's schemas: the extra filters of the listing, the wire record and its type,
 * and what the route publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentName, Instant, Nullable, ActorSchema } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { pageOf, readFailures, type RouteDoc } from '../../http/route-docs';

const ID_FILTER = /^[a-z]{2,4}_[0-9a-z]{1,36}$|^[a-z_]{1,40}$/;
// A REST route's name, or a team change's (GraphQL-only mutations such as `changeMemberRole`).
const OPERATION_FILTER = /^(POST|DELETE|PUT|PATCH) \/v1\/[A-Za-z0-9_/:{}.-]{1,110}$|^[a-z][A-Za-z]{2,63}$/;

export const AUDIT_LIST: ListSpec = {
  resource: 'audit_entry',
  statuses: [],
  noCountryCurrency: true,
  noMerchantReference: true,
  extra: {
    resource_id: {
      schema: Type.String({
        pattern: ID_FILTER.source,
        'x-expected': 'a record id such as po_01k...',
        description: 'Only entries about this record.',
      }),
    },
    actor: {
      schema: Type.String({
        pattern: ID_FILTER.source,
        'x-expected': "an API key id (key_...) or a member's user id (usr_...)",
        description: 'Only entries made by this API key or member (the `actor.id` of the entries).',
      }),
    },
    operation: {
      schema: Type.String({
        pattern: OPERATION_FILTER.source,
        'x-expected': 'an operation name such as "POST /v1/payout_intents/:id/cancel"',
        description: 'Only this operation, e.g. `POST /v1/payout_intents/:id/cancel`, or a team change such as `changeMemberRole`.',
      }),
    },
  },
};

export const AuditEntrySchema = Type.Object(
  {
    object: Type.Literal('audit_entry'),
    id: Type.String(),
    environment: EnvironmentName,
    api_key_id: Type.String({ description: 'The API key that made the call; for a signed-in member, the id of their session.' }),
    actor: Type.Union([ActorSchema, Type.Null()], {
      description:
        'Who made the call: the API key (restricted or not) or the signed-in member (with their email); null only on entries recorded before actors were.',
    }),
    operation: Type.String({
      description: 'Named as its REST route, e.g. `POST /v1/payout_intents/:id/cancel`; GraphQL mutations share the names.',
    }),
    resource_type: Nullable(Type.String({ description: 'The record type, e.g. payout_intent.' })),
    resource_id: Nullable(Type.String()),
    reason: Nullable(Type.String({ description: 'The reason given (cancel), if any.' })),
    request_id: Nullable(Type.String({ description: 'The Request-Id response header of the call.' })),
    status_code: Nullable(Type.Integer({ description: 'HTTP status of the answer.' })),
    created_at: Instant,
  },
  { $id: 'AuditEntry', additionalProperties: false },
);
export type AuditEntryWire = Static<typeof AuditEntrySchema>;

export const AUDIT_ROUTES = {
  list: {
    operationId: 'listAuditEntries',
    permission: 'events:read',
    summary: 'State-changing calls (REST and GraphQL) of this merchant and environment, newest first.',
    description: 'Only calls that committed are recorded: refused (4xx) and failed (5xx) calls and idempotent replays leave no entry.',
    responses: { 200: pageOf('AuditEntry'), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
