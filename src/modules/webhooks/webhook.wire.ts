/**
 * Webhook records as both surfaces show them (their types are read off the schemas in
 * webhook.schemas.ts) and the create body's normalisation.
 */
import { splitEventTypes } from '../events/event.schemas';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity';
import {
  ATTEMPT_LIST,
  type CreateWebhookEndpointBody,
  type UpdateWebhookEndpointBody,
  type WebhookAttemptWire,
  type WebhookDeliveryWire,
  type WebhookEndpointDeleted,
  type WebhookEndpointWire,
} from './webhook.schemas';
import { isoInstant } from '../../domain/instant';

export type { WebhookAttemptWire, WebhookDeliveryWire, WebhookEndpointDeleted, WebhookEndpointWire };

export function deliveryToWire(d: WebhookDelivery): WebhookDeliveryWire {
  return {
    object: 'webhook_delivery',
    id: d.id,
    webhook_endpoint: d.endpointId,
    event: d.eventId,
    status: 'pending',
    created_at: isoInstant(d.createdAt),
  };
}

export const attemptCursorResource = (endpointId: string) => `${ATTEMPT_LIST.resource}:${endpointId}`;

export function endpointToWire(e: WebhookEndpoint): WebhookEndpointWire {
  return {
    object: 'webhook_endpoint',
    id: e.id,
    url: e.url,
    environment: e.environment,
    enabled_events: e.enabledEvents,
    status: e.status === 'disabled' ? 'disabled' : 'enabled',
    disabled_reason: e.disabledReason,
    created_at: isoInstant(e.createdAt),
    updated_at: isoInstant(e.updatedAt),
  };
}

export function attemptToWire(a: WebhookAttempt): WebhookAttemptWire {
  return {
    object: 'webhook_attempt',
    id: a.id,
    webhook_endpoint: a.endpointId,
    event: a.eventId,
    attempt_number: a.attemptNumber,
    status_code: a.statusCode,
    error: a.error,
    duration_ms: a.durationMs,
    created_at: isoInstant(a.createdAt),
  };
}

export interface CreateEndpointInput {
  url: string;
  enabled_events: string[];
}

/**
 * The validated body of POST /v1/webhook_endpoints, normalised: the url as the WHATWG
 * parser serialises it, the event filter trimmed and deduplicated (omitted, null or
 * containing `*`: `["*"]`).
 */
export function parseCreateEndpoint(body: CreateWebhookEndpointBody): CreateEndpointInput {
  const events = body.enabled_events;
  return {
    url: new URL(body.url).toString(),
    enabled_events: events === undefined || events === null || events.includes('*') ? ['*'] : splitEventTypes(events),
  };
}

export interface UpdateEndpointInput {
  url?: string;
  enabled_events?: string[];
  status?: 'enabled' | 'disabled';
}

/** The validated body of POST /v1/webhook_endpoints/:id, normalised like the create's; omitted fields stay as they are. */
export function parseUpdateEndpoint(body: UpdateWebhookEndpointBody): UpdateEndpointInput {
  const events = body.enabled_events;
  return {
    ...(body.url !== undefined ? { url: new URL(body.url).toString() } : {}),
    ...(events !== undefined ? { enabled_events: events.includes('*') ? ['*'] : splitEventTypes(events) } : {}),
    ...(body.status !== undefined ? { status: body.status } : {}),
  };
}
