/** The webhook endpoint operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../domain/operation';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import { CreateWebhookEndpointBody } from './webhook.schemas';
import { parseCreateEndpoint } from './webhook.wire';

export function webhookOperations(endpoints: WebhookEndpointService) {
  return {
    create: defineOperation({
      name: 'webhook_endpoint.create', label: 'POST /v1/webhook_endpoints',
      ...withBody(CreateWebhookEndpointBody, (body) => parseCreateEndpoint(body)),
      execute: async (_em, ctx, input) => endpoints.create(ctx, input),
    }),
    remove: defineOperation({
      name: 'webhook_endpoint.delete', label: 'DELETE /v1/webhook_endpoints/:id',
      parse: (_raw, { id }: { id: string }) => ({ id }),
      execute: (em, ctx, { id }) => endpoints.remove(em, ctx, id),
    }),
  };
}
