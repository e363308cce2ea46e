/**
 * The events' schemas: the `type` filter of the listing (also the grammar of a webhook
 * endpoint's `enabled_events` and of the subscription's `types`), the wire record and its
 * type, and what each route publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentName, Instant, NullableActor } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { answer, pageOf, readFailures, type RouteDoc } from '../../http/route-docs';

/** At most this many types or wildcards in one filter. */
export const MAX_EVENT_TYPES = 50;

const NAME = '[a-z][a-z_]{0,40}';
const ONE_TYPE = `${NAME}\\.(?:\\*|${NAME})`;
/** An event type (`payout_intent.cancelled`) or a resource wildcard (`payout_intent.*`). */
export const EVENT_TYPE = new RegExp(`^${ONE_TYPE}$`);
/** The same with surrounding spaces, which are trimmed. */
export const SPACED_EVENT_TYPE = `\\s*${ONE_TYPE}\\s*`;
export const EVENT_TYPE_EXPECTED = 'an event type such as payout_intent.cancelled or a wildcard such as payout_intent.*';

/** `type` of GET /v1/events: a comma-separated list. */
export const EventTypeFilter = Type.String({
  pattern: `^${SPACED_EVENT_TYPE}(?:,${SPACED_EVENT_TYPE}){0,${MAX_EVENT_TYPES - 1}}$`,
  'x-expected': `one or a comma-separated list of up to ${MAX_EVENT_TYPES} event types (payout_intent.cancelled) or wildcards (payout_intent.*)`,
  description:
    `One or a comma-separated list of up to ${MAX_EVENT_TYPES} event types (payout_intent.cancelled) or wildcards (payout_intent.*); ` +
    'surrounding spaces are trimmed. A type is `<resource>.created` or `<resource>.<new status>`; an unknown type matches nothing.',
});

/** A validated list of types or wildcards: trimmed, duplicates dropped. */
export function splitEventTypes(items: readonly string[]): string[] {
  return [...new Set(items.map((t) => t.trim()))];
}

export const EVENT_LIST: ListSpec = {
  resource: 'event',
  statuses: [],
  noCountryCurrency: true,
  noMerchantReference: true,
  extra: { type: { schema: EventTypeFilter, parse: (v) => splitEventTypes(v.split(',')).join(',') } },
};

export const EventSchema = Type.Object(
  {
    object: Type.Literal('event'),
    id: Type.String(),
    type: Type.String({ description: '`<resource>.created` or `<resource>.<new status>`, e.g. payout_intent.cancelled.' }),
    environment: EnvironmentName,
    created_at: Instant,
    actor: NullableActor,
    data: Type.Object(
      {
        object: Type.Record(Type.String(), Type.Unknown(), {
          description: 'The record as its REST route returns it, at the moment of the event.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Event', additionalProperties: false },
);
export type EventWire = Static<typeof EventSchema>;

export const EVENT_ROUTES = {
  list: {
    operationId: 'listEvents',
    permission: 'events:read',
    summary: 'List events, newest first.',
    description:
      '`cursor` also accepts an event id: the page after that event. A cursor (or event id) of another merchant, ' +
      'environment or list is a validation_error on `cursor`.',
    responses: { 200: pageOf('Event'), ...readFailures },
  },
  get: {
    operationId: 'getEvent',
    permission: 'events:read',
    summary: 'Retrieve an event.',
    responses: { 200: answer('The event.', 'Event'), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
