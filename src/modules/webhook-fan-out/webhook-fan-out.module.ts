/**
 * Webhook fan-out: the delivery rows an event is recorded with. Its own module so that the
 * events module, which the webhooks module builds on, can be given it at construction and call
 * it explicitly where an event is written.
 */
import { defineModule } from '../module';
import { WebhookFanOut } from './webhook-fan-out.service';

export const webhookFanOutModule = defineModule({
  name: 'webhookFanOut',
  provide: () => ({ webhookFanOut: new WebhookFanOut() }),
});
