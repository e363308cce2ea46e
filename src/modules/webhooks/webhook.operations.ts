/** The webhook endpoint operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { EmptyBody } from '../../domain/fields';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import { CreateWebhookEndpointBody, ResendEventBody, UpdateWebhookEndpointBody } from './webhook.schemas';
import { parseCreateEndpoint, parseUpdateEndpoint } from './webhook.wire';

type ById = { id: string };

export function webhookOperations(endpoints: WebhookEndpointService) {
  return {
    create: defineOperation({
      name: 'webhook_endpoint.create',
      label: 'POST /v1/webhook_endpoints',
      ...withBody(CreateWebhookEndpointBody, (body) => parseCreateEndpoint(body)),
      execute: (_em, ctx, input) => Promise.resolve(endpoints.create(ctx, input)),
    }),
    update: defineOperation({
      name: 'webhook_endpoint.update',
      label: 'POST /v1/webhook_endpoints/:id',
      ...withBody(UpdateWebhookEndpointBody, (body, { id }: ById) => ({ id, ...parseUpdateEndpoint(body) })),
      execute: (_em, ctx, { id, ...input }) => Promise.resolve(endpoints.update(ctx, id, input)),
    }),
    rotateSecret: defineOperation({
      name: 'webhook_endpoint.rotate_secret',
      label: 'POST /v1/webhook_endpoints/:id/rotate_secret',
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (em, ctx, { id }) => endpoints.rotateSecret(em, ctx, id),
    }),
    remove: defineOperation({
      name: 'webhook_endpoint.delete',
      label: 'DELETE /v1/webhook_endpoints/:id',
      parse: (_raw, { id }: ById) => ({ id }),
      execute: (em, ctx, { id }) => endpoints.remove(em, ctx, id),
    }),
    resend: defineOperation({
      name: 'event.resend',
      label: 'POST /v1/events/:id/resend',
      ...withBody(ResendEventBody, (body, { id }: ById) => ({ id, endpoint: body.webhook_endpoint })),
      execute: (em, ctx, { id, endpoint }) => endpoints.resend(em, ctx, id, endpoint),
    }),
  };
}
