/**
 * The webhook endpoints' schemas: the create body (validated by the pipeline for REST and
 * GraphQL alike), the wire records and their types, and what each route publishes in the
 * OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentName, IgnoredEnvironment, Instant, Nullable, Obj } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { answer, failure, invalidWhen, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { EVENT_TYPE_EXPECTED, MAX_EVENT_TYPES, SPACED_EVENT_TYPE } from '../events/event.schemas';

/** Enabled endpoints per merchant and environment. */
export const MAX_ENDPOINTS = 16;

/**
 * The URL's column holds 2048 characters. The stored form is the WHATWG serialisation of
 * what this pattern accepts, which is never more than 2 characters longer (a "/" for an
 * empty path, ":0:" for an IPv6 "::" that stands for one group).
 */
export const URL_MAX = 2046;

// The grammar is a subset of what the WHATWG URL parser accepts (tested in
// test/webhooks/webhook-schemas.spec.ts), so a URL that matches always parses.
const HEX = '[0-9A-Fa-f]{1,4}';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const IPV6 = [
  `(?:${HEX}:){7}${HEX}`,
  `(?:${HEX}:){1,7}:`,
  `(?:${HEX}:){1,6}:${HEX}`,
  `(?:${HEX}:){1,5}(?::${HEX}){1,2}`,
  `(?:${HEX}:){1,4}(?::${HEX}){1,3}`,
  `(?:${HEX}:){1,3}(?::${HEX}){1,4}`,
  `(?:${HEX}:){1,2}(?::${HEX}){1,5}`,
  `${HEX}:(?::${HEX}){1,6}`,
  `:(?:(?::${HEX}){1,7}|:)`,
  `(?:${HEX}:){6}${IPV4}`,
  `::(?:[Ff]{4}:)?${IPV4}`,
].join('|');
const REST = '[A-Za-z0-9_-]*';
/** A label of letters, digits, "_" and "-" that is not an A-label ("xn--..."; the parser refuses invalid punycode). */
const label = (first: string) => `(?:${first}${REST}|[Xx](?:[A-MO-Za-mo-z0-9_-]${REST})?|[Xx][Nn](?:[A-Za-z0-9_]${REST})?|[Xx][Nn]-(?:[A-Za-z0-9_]${REST})?)`;
// The last label starts with a letter: a host ending in a number is read as an IPv4 address.
const HOST = `(?:${label('[A-WYZa-wyz0-9_-]')}\\.)*${label('[A-WYZa-wyz]')}\\.?`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
/** Printable ASCII that the parser keeps as it is in a path, query or fragment (no space, ", ', <, >, `, {, }, \). */
const URL_CHAR = '[!#-&(-;=?-\\[\\]-_a-z|~]';
export const URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://(?:${HOST}|${IPV4}|\\[(?:${IPV6})\\])(?::${PORT})?(?:[/?#]${URL_CHAR}*)?$`;

export const WebhookUrl = Type.String({
  maxLength: URL_MAX,
  pattern: URL_PATTERN,
  'x-expected': 'an absolute http or https URL without credentials, such as "https://example.com/webhooks"',
  description: [
    `An absolute http(s) URL of at most ${URL_MAX} characters: a host name (ASCII letters, digits, "-" and "_"; ` +
      'IDNA A-labels "xn--" are not accepted), a dotted IPv4 address or a bracketed IPv6 address; an optional port; ' +
      'no credentials; the path, query and fragment in printable ASCII without spaces, quotes, <, >, `, {, } or \\ (percent-encode them).',
    'Stored and returned normalised (WHATWG URL: scheme and host lower-cased, default port dropped, "/" for an empty path).',
    'The host must not resolve to a loopback, private, link-local, metadata or otherwise non-public address: checked at creation ' +
      '(400 validation_error on `url`) and again, pinned, on every delivery.',
  ].join(' '),
});

/** One item of `enabled_events`: `*` (all), a type or a `resource.*` wildcard. */
export const EnabledEvent = Type.String({
  pattern: `^(?:\\*|${SPACED_EVENT_TYPE})$`,
  'x-expected': `"*" or ${EVENT_TYPE_EXPECTED}`,
  description: '`*` (all types), an event type or a `resource.*` wildcard; surrounding spaces are trimmed.',
});

const EnabledEvents = (omitted: string) =>
  Type.Array(EnabledEvent, {
    minItems: 1,
    maxItems: MAX_EVENT_TYPES,
    description: `1 to ${MAX_EVENT_TYPES} items; ${omitted}. A list containing "*" is stored as ["*"]; duplicates are dropped.`,
  });

export const CreateWebhookEndpointBody = Obj(
  {
    url: WebhookUrl,
    enabled_events: Type.Optional(Nullable(EnabledEvents('omitted or null = ["*"], all types'))),
    environment: IgnoredEnvironment,
  },
  { title: 'CreateWebhookEndpoint' },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

/** POST /v1/webhook_endpoints/:id: any of the fields; the same rules as the create. */
export const UpdateWebhookEndpointBody = Obj(
  {
    url: Type.Optional(WebhookUrl),
    enabled_events: Type.Optional(EnabledEvents('omitted = unchanged')),
    status: Type.Optional(
      Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
        'x-expected': '"enabled" or "disabled"',
        description:
          '"disabled" pauses the endpoint (its pending deliveries are cancelled, no new ones are made); "enabled" resumes it, ' +
          `also after a 410 Gone, within the cap of ${MAX_ENDPOINTS} enabled endpoints.`,
      }),
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'UpdateWebhookEndpoint' },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBody>;

/** POST /v1/events/:id/resend. */
export const ResendEventBody = Obj(
  {
    webhook_endpoint: Type.String({ minLength: 1, maxLength: 40, description: 'The endpoint id (we_...) to send the event to.' }),
    environment: IgnoredEnvironment,
  },
  { title: 'ResendEvent' },
);
export type ResendEventBody = Static<typeof ResendEventBody>;

/** How long deliveries carry the replaced secret's signature too, after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const ENDPOINT_LIST: ListSpec = { resource: 'webhook_endpoint', statuses: [], noCountryCurrency: true, noMerchantReference: true };
export const ATTEMPT_LIST: ListSpec = { resource: 'webhook_attempt', statuses: [], noCountryCurrency: true, noMerchantReference: true };

const endpointProperties = {
  object: Type.Literal('webhook_endpoint'),
  id: Type.String(),
  url: Type.String({ description: 'Normalised (WHATWG URL serialisation).' }),
  environment: EnvironmentName,
  enabled_events: Type.Array(Type.String(), { minItems: 1, description: 'Types, `resource.*` wildcards, or ["*"] for all.' }),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
    description: 'disabled after the receiver answered 410 Gone, or by an update; an update re-enables it.',
  }),
  disabled_reason: Nullable(Type.String()),
  created_at: Instant,
  updated_at: Instant,
};

/** An endpoint as reads return it: never its secret. */
export const WebhookEndpointSchema = Type.Object(endpointProperties, { $id: 'WebhookEndpoint', additionalProperties: false });

/** The create answer (and its replays): the endpoint with its signing secret. */
export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({
      pattern: '^whsec_',
      description: 'whsec_...: signs every delivery (Standard Webhooks); returned by the create and rotate_secret calls only.',
    }),
  },
  { $id: 'WebhookEndpointWithSecret', additionalProperties: false },
);
export type WebhookEndpointWithSecretWire = Static<typeof WebhookEndpointWithSecretSchema>;

/** An endpoint as any answer shows it: `secret` only in the create and rotate_secret answers. */
export type WebhookEndpointWire = Static<typeof WebhookEndpointSchema> & Partial<Pick<WebhookEndpointWithSecretWire, 'secret'>>;

export const DeletedWebhookEndpointSchema = Type.Object(
  {
    object: Type.Literal('webhook_endpoint'),
    id: Type.String(),
    deleted: Type.Literal(true),
  },
  { $id: 'DeletedWebhookEndpoint', additionalProperties: false },
);
export type WebhookEndpointDeleted = Static<typeof DeletedWebhookEndpointSchema>;

export const WebhookAttemptSchema = Type.Object(
  {
    object: Type.Literal('webhook_attempt'),
    id: Type.String(),
    webhook_endpoint: Type.String({ description: 'The endpoint id.' }),
    event: Type.String({ description: 'The event id (the webhook-id header).' }),
    attempt_number: Type.Integer({ minimum: 1 }),
    status_code: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when no answer came (network error, timeout)." })),
    error: Nullable(Type.String()),
    duration_ms: Type.Integer({ minimum: 0 }),
    created_at: Instant,
  },
  { $id: 'WebhookAttempt', additionalProperties: false },
);
export type WebhookAttemptWire = Static<typeof WebhookAttemptSchema>;

/** The answer to a resend: the delivery it queued (one attempt, not retried). */
export const WebhookDeliverySchema = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    id: Type.String(),
    webhook_endpoint: Type.String({ description: 'The endpoint id.' }),
    event: Type.String({ description: 'The event id (the webhook-id header of the attempt).' }),
    status: Type.Literal('pending', {
      description: 'Queued: its one attempt is listed by GET /v1/webhook_endpoints/:id/attempts once made.',
    }),
    created_at: Instant,
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);
export type WebhookDeliveryWire = Static<typeof WebhookDeliverySchema>;

export const WEBHOOK_ROUTES = {
  create: {
    operationId: 'createWebhookEndpoint',
    permission: 'webhook_endpoints:write',
    summary: 'Create a webhook endpoint; the answer carries its `secret` (whsec_...), shown this once.',
    description:
      "SSRF rule: the url's host is resolved when the endpoint is created; if any of its addresses is loopback, private, " +
      'shared (CGNAT), link-local or cloud metadata, multicast, documentation, reserved or otherwise non-public, the call is refused ' +
      'with 400 validation_error, `param: "url"` (stored against the Idempotency-Key like any refusal). A host without a DNS answer ' +
      'yet is accepted: every delivery resolves and checks the address again and connects to the checked address only. ' +
      `At most ${MAX_ENDPOINTS} enabled endpoints per merchant and environment.`,
    responses: {
      201: answer('Created, with its secret.', 'WebhookEndpointWithSecret'),
      ...writeFailures,
      400: invalidWhen({ url: 'its host is, or resolves to, a loopback, private, link-local, metadata or otherwise non-public address (SSRF rule)' }),
      422: failure(`endpoint_limit_reached: the merchant already has ${MAX_ENDPOINTS} enabled endpoints in this environment; delete one first.`),
    },
  },
  list: {
    operationId: 'listWebhookEndpoints',
    permission: 'webhook_endpoints:read',
    summary: 'List webhook endpoints, newest first (never their secrets).',
    responses: { 200: pageOf('WebhookEndpoint'), ...readFailures },
  },
  get: {
    operationId: 'getWebhookEndpoint',
    permission: 'webhook_endpoints:read',
    summary: 'Retrieve a webhook endpoint (never its secret).',
    responses: { 200: answer('The endpoint.', 'WebhookEndpoint'), ...readFailures },
  },
  remove: {
    operationId: 'deleteWebhookEndpoint',
    permission: 'webhook_endpoints:write',
    summary: 'Delete a webhook endpoint; its pending deliveries are cancelled.',
    responses: { 200: answer('Deleted.', 'DeletedWebhookEndpoint'), ...writeFailures },
  },
  update: {
    operationId: 'updateWebhookEndpoint',
    permission: 'webhook_endpoints:write',
    summary: 'Update a webhook endpoint: any of url, enabled_events, status (enabled | disabled).',
    description:
      'The same rules as the create for `url` (SSRF rule included) and `enabled_events`. `status: "disabled"` pauses the endpoint ' +
      'and cancels its pending deliveries; `status: "enabled"` resumes a disabled one (also one disabled by a 410 Gone answer) ' +
      `if fewer than ${MAX_ENDPOINTS} endpoints of the environment are enabled. The answer never carries the secret.`,
    responses: {
      200: answer('The updated endpoint.', 'WebhookEndpoint'),
      ...writeFailures,
      400: invalidWhen({ url: 'its host is, or resolves to, a loopback, private, link-local, metadata or otherwise non-public address (SSRF rule)' }),
      422: failure(`endpoint_limit_reached: re-enabling would make more than ${MAX_ENDPOINTS} enabled endpoints in this environment.`),
    },
  },
  rotateSecret: {
    operationId: 'rotateWebhookEndpointSecret',
    permission: 'webhook_endpoints:write',
    summary: 'Replace the signing secret; the answer carries the new `secret`, shown this once.',
    description:
      'For 24 hours after a rotation every delivery carries two signatures in `webhook-signature` (space-separated `v1,...` ' +
      'entries): by the new secret and by the replaced one, so receivers verifying with either accept it. A second rotation within ' +
      'the 24 hours drops the oldest secret (only the last replaced one is kept).',
    responses: { 200: answer('The endpoint with its new secret.', 'WebhookEndpointWithSecret'), ...writeFailures },
  },
  resend: {
    operationId: 'resendEvent',
    permission: 'webhook_endpoints:write',
    summary: 'Send one event again to one endpoint: one new delivery attempt, recorded like any other.',
    description:
      'The attempt carries the same `webhook-id` (the event id) and is not retried. Allowed for a disabled endpoint ' +
      "(to test the receiver before re-enabling it) and for an endpoint not subscribed to the event's type: the caller names both. " +
      'An event or endpoint of another merchant or environment, or a deleted endpoint, is 404.',
    responses: {
      202: answer('Queued.', 'WebhookDelivery'),
      ...writeFailures,
      400: failure('validation_error (`param` names the field), invalid_json.'),
    },
  },
  attempts: {
    operationId: 'listWebhookAttempts',
    permission: 'webhook_endpoints:read',
    summary: 'Delivery attempts to this endpoint, newest first.',
    description: 'Cursors are bound to the endpoint: a cursor of another endpoint is a validation_error on `cursor`.',
    responses: { 200: pageOf('WebhookAttempt'), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
