/**
 * POST /v1/provider_webhooks/:pa_id: events from a real provider account (no API key; the
 * account's connector verifies each one). The raw body is kept: a signature covers the bytes.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { answer, failure } from '../../http/route-docs';
import type { ProviderOutcomes } from './provider-outcomes.service';

const WEBHOOK_BODY_LIMIT = 256 * 1024;
/** Published in the OpenAPI document only (Fastify's own validation is off, src/server.ts). */
const schema = {
  operationId: 'receiveProviderWebhook',
  summary: "A provider account's event (called by the provider, not by merchants). Needs no API key.",
  description:
    "The body is the provider's own event, read as raw bytes: a Stripe event is acted on only if its `Stripe-Signature` verifies with the account's webhook secret; an Opn event only after it is fetched back by id from Opn with the account's key. Duplicate, late and out-of-order events change nothing.",
  security: [],
  params: Type.Object({ pa_id: Type.String({ minLength: 1, description: 'The provider account id (`webhook_url` of `cli providers connect`).' }) }),
  response: {
    200: answer('Accepted, a duplicate, or an event about nothing of ours.', Type.Object({ received: Type.Literal(true) }, { additionalProperties: false })),
    400: failure('invalid_signature: the signature (or the fetch-back) does not verify, or the account is unknown; nothing changed.'),
    404: failure('not_found: the path names no provider account id.'),
    413: failure('payload_too_large'),
    503: failure(
      'service_unavailable: the event could not be confirmed with the provider (or the database) now; nothing changed. Retry after the `Retry-After` header.',
    ),
  },
};

export async function registerProviderWebhookRoutes(fastify: FastifyInstance, { providerOutcomes }: { providerOutcomes: ProviderOutcomes }): Promise<void> {
  await fastify.register((instance, _opts, done) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, next) => next(null, body));
    instance.post<{ Params: { pa_id: string } }>('/v1/provider_webhooks/:pa_id', { schema }, async (request, reply) => {
      // Only an id the service could have issued is looked up; a well-formed unknown one is answered like a bad signature.
      if (!isId('providerAccount', request.params.pa_id)) throw new ApiError('not_found', 'No such provider account.');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const answer = await providerOutcomes.receive(request.params.pa_id, raw, request.headers);
      return reply.code(200).send(answer);
    });
    done();
  });
}
