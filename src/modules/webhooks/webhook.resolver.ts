/** GraphQL for webhook endpoints: translate GraphQL <-> WebhookEndpointService, nothing more. */
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { listQuery, toConnection } from '../../graphql/connection';
import { toGraphQLError, withListArgs, mutationResult } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { ApiError } from '../../domain/errors';
import type { WebhookEndpointWire } from './webhook.wire';
import {
  CreateWebhookEndpointInput, DeletedWebhookEndpointType, WebhookAttemptConnection, WebhookEndpointConnection, WebhookEndpointType,
} from './webhook.types';

@Resolver(() => WebhookEndpointType)
export class WebhookResolver {
  @Query(() => WebhookEndpointConnection, { description: 'Webhook endpoints of this merchant and environment, newest first.' })
  webhookEndpoints(
    @Ctx() { app, ctx }: GqlContext,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25 }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ) {
    return withListArgs(async () => toConnection(await app.webhookEndpoints.list(ctx, app.webhookEndpoints.parseList(ctx, listQuery(first, after)))));
  }

  @Query(() => WebhookAttemptConnection, { description: 'Delivery attempts to one endpoint, newest first.' })
  webhookAttempts(
    @Ctx() { app, ctx }: GqlContext,
    @Arg('webhookEndpointId', () => ID) endpointId: string,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25 }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ) {
    return withListArgs(async () => {
      try {
        return toConnection(await app.webhookEndpoints.listAttempts(ctx, endpointId, app.webhookEndpoints.parseAttemptList(ctx, endpointId, listQuery(first, after))));
      } catch (err) {
        if (err instanceof ApiError && !err.param) throw toGraphQLError(err, '');
        throw err;
      }
    });
  }

  @Mutation(() => WebhookEndpointType, { description: 'Creates a webhook endpoint; `secret` is returned here only. Honors the Idempotency-Key header.' })
  async createWebhookEndpoint(@Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput, @Ctx() gql: GqlContext) {
    const { app, ctx, idempotencyKey } = gql;
    return mutationResult<WebhookEndpointWire>(gql, app.webhookEndpoints.create(ctx, snakeKeys(input), idempotencyKey));
  }

  @Mutation(() => DeletedWebhookEndpointType, { description: 'Deletes a webhook endpoint; pending deliveries are cancelled.' })
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() gql: GqlContext) {
    const { app, ctx, idempotencyKey } = gql;
    return mutationResult<{ id: string; deleted: boolean }>(gql, app.webhookEndpoints.remove(ctx, id, idempotencyKey), '');
  }
}
