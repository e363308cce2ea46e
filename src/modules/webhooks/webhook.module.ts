/** Webhook endpoints, their deliveries and attempts. */
import { defineModule } from '../module';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointLock } from './webhook.entity';
import { WebhookResolver } from './webhook.resolver';
import { registerWebhookRoutes } from './webhook.routes';
import {
  DeletedWebhookEndpointSchema, WebhookAttemptSchema, WebhookDeliverySchema, WebhookEndpointSchema, WebhookEndpointWithSecretSchema,
} from './webhook.schemas';

export const webhooksModule = defineModule({
  name: 'webhooks',
  entities: [WebhookEndpoint, WebhookDelivery, WebhookAttempt, WebhookEndpointLock],
  resolvers: [WebhookResolver],
  routes: registerWebhookRoutes,
  models: [WebhookEndpointSchema, WebhookEndpointWithSecretSchema, DeletedWebhookEndpointSchema, WebhookAttemptSchema, WebhookDeliverySchema],
  sealed: [{ entity: WebhookEndpoint, property: 'secretEncrypted' }, { entity: WebhookEndpoint, property: 'previousSecretEncrypted' }],
});
