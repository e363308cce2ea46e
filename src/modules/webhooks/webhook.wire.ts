/** Webhook wire shapes (REST and GraphQL read them), list specs and the create-body parser. */
import { ApiError } from '../../domain/errors';
import type { ListSpec } from '../../domain/listing';
import { FieldReader } from '../../domain/validation';
import { parseTypeFilter } from '../events/event.service';
import { parseWebhookUrl } from './ssrf';
import type { WebhookAttempt, WebhookEndpoint } from './webhook.entity';

export interface WebhookEndpointWire {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  environment: string;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  /** Create response only. */
  secret?: string;
}

/** The answer to a delete. */
export interface WebhookEndpointDeleted {
  object: 'webhook_endpoint';
  id: string;
  deleted: true;
}

export interface WebhookAttemptWire {
  object: 'webhook_attempt';
  id: string;
  webhook_endpoint: string;
  event: string;
  attempt_number: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

export const ENDPOINT_LIST: ListSpec = { resource: 'webhook_endpoint', statuses: [], noCountryCurrency: true, noMerchantReference: true };
export const ATTEMPT_LIST: ListSpec = { resource: 'webhook_attempt', statuses: [], noCountryCurrency: true, noMerchantReference: true };
export const attemptCursorResource = (endpointId: string) => `${ATTEMPT_LIST.resource}:${endpointId}`;

export function endpointToWire(e: WebhookEndpoint): WebhookEndpointWire {
  return {
    object: 'webhook_endpoint', id: e.id, url: e.url, environment: e.environment, enabled_events: e.enabledEvents,
    status: e.status === 'disabled' ? 'disabled' : 'enabled', disabled_reason: e.disabledReason,
    created_at: e.createdAt.toISOString(), updated_at: e.updatedAt.toISOString(),
  };
}

export function attemptToWire(a: WebhookAttempt): WebhookAttemptWire {
  return {
    object: 'webhook_attempt', id: a.id, webhook_endpoint: a.endpointId, event: a.eventId, attempt_number: a.attemptNumber,
    status_code: a.statusCode, error: a.error, duration_ms: a.durationMs, created_at: a.createdAt.toISOString(),
  };
}

export interface CreateEndpointInput {
  url: string;
  enabled_events: string[];
}

/** The body of POST /v1/webhook_endpoints: an http(s) url and the event-type filter (default `*`). */
export function parseCreateEndpoint(raw: unknown): CreateEndpointInput {
  const body = FieldReader.body(raw);
  const url = body.string('url', { max: 2048 });
  const parsed = parseWebhookUrl(url);
  if (typeof parsed === 'string') throw ApiError.validation('url', parsed);
  const events = body.raw('enabled_events');
  let enabled = ['*'];
  if (events !== undefined && events !== null) {
    if (!Array.isArray(events) || events.length === 0 || events.some((e) => typeof e !== 'string')) {
      throw ApiError.validation('enabled_events', 'enabled_events must be a non-empty array of event types, `resource.*` wildcards, or "*".');
    }
    const list = events as string[];
    enabled = list.includes('*') ? ['*'] : parseTypeFilter(list, 'enabled_events');
  }
  body.end();
  return { url: parsed.toString(), enabled_events: enabled };
}
