/**
 * Webhook fan-out: the delivery rows of newly recorded events, one per matching enabled
 * endpoint. EventService calls it in the event's own transaction, so a committed event always
 * has its deliveries and a rolled-back one never does; delivering them is the webhooks
 * module's (WebhookDeliveryService).
 */
import type { EntityManager } from 'typeorm';
import { newId } from '../../domain/ids';
import { insertOf } from '../../db/compiled-write';
import type { Statement } from '../../db/batch';
import { compiledSelect } from '../../db/compiled-select';
import type { EventRecord } from '../events/event.entity';
import { typeMatches } from '../events/event.wire';
import { WebhookDelivery, WebhookEndpoint } from '../webhooks/webhook.entity';

/** Delivery rows per INSERT (many events recorded together). */
const CHUNK = 500;

export class WebhookFanOut {
  /**
   * The matching endpoints are read now, before the events take their scope's counter; the
   * returned INSERTs of the delivery rows are sent with the event rows. No matching endpoint:
   * no statement.
   */
  async plan(em: EntityManager, events: readonly EventRecord[]): Promise<Statement[]> {
    if (events.length === 0) return [];
    const { merchantId, environment } = events[0];
    // Built once (compiledSelect): this read runs with every event (once for events recorded together: one scope).
    const endpoints = await compiledSelect(em, 'webhookEndpoint.enabled', { merchantId, environment, status: 'enabled' }, () =>
      em.createQueryBuilder(WebhookEndpoint, 'w').where('w.merchant_id = :merchantId AND w.environment = :environment AND w.status = :status'),
    );
    if (endpoints.length === 0) return [];
    const rows = events.flatMap((event) =>
      endpoints
        .filter((e) => e.enabledEvents.includes('*') || typeMatches(event.type, e.enabledEvents))
        .map((e) =>
          Object.assign(new WebhookDelivery(), {
            id: newId('webhookDelivery', event.createdAt.getTime()),
            merchantId: event.merchantId,
            environment: event.environment,
            endpointId: e.id,
            eventId: event.id,
            eventType: event.type,
            status: 'pending' as const,
            attemptCount: 0,
            resendKey: '',
            nextAttemptAt: event.createdAt,
            leaseUntil: null,
            lastStatusCode: null,
            lastError: null,
            deliveredAt: null,
            createdAt: event.createdAt,
            updatedAt: event.createdAt,
          }),
        ),
    );
    const statements: Statement[] = [];
    for (let i = 0; i < rows.length; i += CHUNK) statements.push(insertOf(em, WebhookDelivery, rows.slice(i, i + CHUNK)));
    return statements;
  }
}
