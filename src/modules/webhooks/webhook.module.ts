/** Webhook endpoints, their deliveries and attempts. */
import { eventsModule } from '../events/event.module';
import { defineModule } from '../module';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookSender } from './webhook-sender';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointLock } from './webhook.entity';
import { webhookOperations } from './webhook.operations';
import { WebhookResolver } from './webhook.resolver';
import { registerWebhookRoutes } from './webhook.routes';
import {
  DeletedWebhookEndpointSchema,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook.schemas';

export const webhooksModule = defineModule({
  name: 'webhooks',
  uses: { events: eventsModule },
  provide({ db, cipher, config, log }, { events }) {
    const webhookEndpoints = new WebhookEndpointService({ db, cipher, allowLoopback: config.webhookAllowLoopback });
    const webhookDelivery = new WebhookDeliveryService({
      db,
      cipher,
      log: log.child({ component: 'webhooks' }),
      sender: new WebhookSender({ allowLoopback: config.webhookAllowLoopback, timeoutMs: config.webhookTimeoutMs }),
      retryScheduleMs: config.webhookRetryScheduleMs,
      leaseMarginMs: config.webhookLeaseMarginMs,
    });
    // Every event writes its webhook deliveries inside the event's own transaction.
    events.events.afterRecord.push((em, recorded) => webhookDelivery.planFanOut(em, recorded));
    return { webhookEndpoints, webhookDelivery, ops: webhookOperations(webhookEndpoints) };
  },
  // Last in a pass: a pass delivers the events the other jobs wrote in it.
  jobs: ({ webhookDelivery }, config) => (config.webhookDelivery ? [{ name: 'webhooks.deliver', run: () => webhookDelivery.deliverDue(), last: true }] : []),
  close: ({ webhookDelivery }) => webhookDelivery.drain(),
  entities: [WebhookEndpoint, WebhookDelivery, WebhookAttempt, WebhookEndpointLock],
  resolvers: [WebhookResolver],
  routes: registerWebhookRoutes,
  models: [WebhookEndpointSchema, WebhookEndpointWithSecretSchema, DeletedWebhookEndpointSchema, WebhookAttemptSchema, WebhookDeliverySchema],
  sealed: [
    { entity: WebhookEndpoint, property: 'secretEncrypted' },
    { entity: WebhookEndpoint, property: 'previousSecretEncrypted' },
  ],
});
