/** Webhook endpoints, their deliveries and attempts. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { WebhookAttemptType, WebhookDeliveryType, WebhookEndpointType } from './webhook.types';
import type { WebhookAttemptWire, WebhookDeliveryWire, WebhookEndpointWire } from './webhook.wire';
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

declare module '../../graphql/context' {
  interface Loaders {
    webhookEndpoint: DataLoader<string, WebhookEndpointWire | null>;
    webhookAttempt: DataLoader<string, WebhookAttemptWire | null>;
    webhookDelivery: DataLoader<string, WebhookDeliveryWire | null>;
  }
}

registerNode('we', WebhookEndpointType, (loaders, id) => loaders.webhookEndpoint.load(id), 'webhook_endpoints:read');
// Deliveries and attempts are read with their endpoint's permission.
registerNode('whd', WebhookDeliveryType, (loaders, id) => loaders.webhookDelivery.load(id), 'webhook_endpoints:read');
registerNode('wha', WebhookAttemptType, (loaders, id) => loaders.webhookAttempt.load(id), 'webhook_endpoints:read');

export const webhooksModule = defineModule({
  name: 'webhooks',
  provide({ db, cipher, config, log }) {
    const webhookEndpoints = new WebhookEndpointService({ db, cipher, allowLoopback: config.webhookAllowLoopback });
    const webhookDelivery = new WebhookDeliveryService({
      db,
      cipher,
      log: log.child({ component: 'webhooks' }),
      sender: new WebhookSender({ allowLoopback: config.webhookAllowLoopback, timeoutMs: config.webhookTimeoutMs }),
      retryScheduleMs: config.webhookRetryScheduleMs,
      leaseMarginMs: config.webhookLeaseMarginMs,
    });
    return { webhookEndpoints, webhookDelivery, ops: webhookOperations(webhookEndpoints) };
  },
  // Last in a pass: a pass delivers the events the other jobs wrote in it.
  jobs: ({ webhookDelivery }, config) => (config.webhookDelivery ? [{ name: 'webhooks.deliver', run: () => webhookDelivery.deliverDue(), last: true }] : []),
  close: ({ webhookDelivery }) => webhookDelivery.drain(),
  entities: [WebhookEndpoint, WebhookDelivery, WebhookAttempt, WebhookEndpointLock],
  resolvers: [WebhookResolver],
  routes: registerWebhookRoutes,
  loaders: ({ webhookEndpoints }, ctx) => ({
    webhookEndpoint: new DataLoader<string, WebhookEndpointWire | null>(async (ids) => byKey(ids, await webhookEndpoints.getMany(ctx, ids))),
    webhookAttempt: new DataLoader<string, WebhookAttemptWire | null>(async (ids) => byKey(ids, await webhookEndpoints.getAttempts(ctx, ids))),
    webhookDelivery: new DataLoader<string, WebhookDeliveryWire | null>(async (ids) => byKey(ids, await webhookEndpoints.getDeliveries(ctx, ids))),
  }),
  models: [WebhookEndpointSchema, WebhookEndpointWithSecretSchema, DeletedWebhookEndpointSchema, WebhookAttemptSchema, WebhookDeliverySchema],
  sealed: [
    { entity: WebhookEndpoint, property: 'secretEncrypted' },
    { entity: WebhookEndpoint, property: 'previousSecretEncrypted' },
  ],
});
