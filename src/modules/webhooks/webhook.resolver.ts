/** GraphQL for webhook endpoints: translate GraphQL <-> WebhookEndpointService, nothing more. */
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { listQuery, toConnection } from '../../graphql/connection';
import { withListArgs, mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
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
    return withListArgs(async () =>
      toConnection(await app.webhookEndpoints.listAttempts(ctx, endpointId, app.webhookEndpoints.parseAttemptList(ctx, endpointId, listQuery(first, after)))));
  }

  @Mutation(() => WebhookEndpointType, { description: 'Creates a webhook endpoint; `secret` is returned here only. Honors the Idempotency-Key header.' })
  async createWebhookEndpoint(@Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput, @Ctx() gql: GqlContext) {
    return mutate(gql, gql.app.ops.webhooks.create, snakeKeys(input), {});
  }

  @Mutation(() => DeletedWebhookEndpointType, { description: 'Deletes a webhook endpoint; pending deliveries are cancelled.' })
  async deleteWebhookEndpoint(@Arg('id', () => ID) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, gql.app.ops.webhooks.remove, {}, { id }, '');
  }
}
