/** Webhook endpoints, their deliveries and attempts. */
import { defineModule } from '../module';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity';
import { WEBHOOK_OPENAPI } from './webhook.openapi';
import { WebhookResolver } from './webhook.resolver';
import { registerWebhookRoutes } from './webhook.routes';

export const webhooksModule = defineModule({
  name: 'webhooks',
  entities: [WebhookEndpoint, WebhookDelivery, WebhookAttempt],
  resolvers: [WebhookResolver],
  routes: registerWebhookRoutes,
  openapi: WEBHOOK_OPENAPI,
});
