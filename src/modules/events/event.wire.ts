/** The event as both surfaces show it, and the event-type filters they accept. */
import { ApiError } from '../../domain/errors';
import { isoInstant } from '../../domain/instant';
import { wireActor, type Principal, type WireActor } from '../../domain/permissions';
import type { Scope } from '../../domain/scope';
import type { EventRecord } from './event.entity';
import { EVENT_TYPE, MAX_EVENT_TYPES, splitEventTypes, type EventWire } from './event.schemas';

/** Any record as its REST route returns it. */
export interface WireRecord {
  object: string;
  id: string;
}

export type { EventWire } from './event.schemas';

/** The scope an event is recorded in, and who caused it (a request's key or member; none for the system). */
export type ActingScope = Scope & { principal?: Principal };

/** The event's `actor`: the principal as the wire names it, or null when no API caller caused the change. */
export function actorOf(scope: ActingScope): WireActor | null {
  return scope.principal ? wireActor(scope.principal) : null;
}

/** A committed event, as announced to in-process listeners (subscriptions). */
export interface CommittedEvent {
  merchantId: string;
  environment: string;
  seq: number;
}

/**
 * Checks a list of event types or `resource.*` wildcards that no schema validated (the
 * subscription's `types`): the grammar and limit of EventTypeFilter; `param` names it in errors.
 */
export function parseTypeFilter(value: string | readonly string[], param = 'type'): string[] {
  const items = (typeof value === 'string' ? value.split(',') : [...value]).map((t) => t.trim());
  if (items.length === 0 || items.length > MAX_EVENT_TYPES || items.some((t) => !EVENT_TYPE.test(t))) {
    throw ApiError.validation(param, `${param} must be one or a comma-separated list of event types (payout_intent.cancelled) or wildcards (payout_intent.*).`);
  }
  return splitEventTypes(items);
}

/** True when `type` matches any of `patterns` (exact or `resource.*`); no patterns = all. */
export function typeMatches(type: string, patterns: readonly string[] | undefined): boolean {
  if (!patterns || patterns.length === 0) return true;
  return patterns.some((p) => (p.endsWith('.*') ? type.startsWith(p.slice(0, -1)) : p === type));
}

export function eventToWire(event: EventRecord): EventWire {
  return {
    object: 'event',
    id: event.id,
    type: event.type,
    environment: event.environment,
    created_at: isoInstant(event.createdAt),
    actor: event.actor ?? null,
    data: { object: event.data },
  };
}
