/** GraphQL for webhook endpoints: translate GraphQL <-> WebhookEndpointService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { WebhookEndpointService } from './webhook-endpoint.service';
import type { webhookOperations } from './webhook.operations';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs, mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import {
  CreateWebhookEndpointInput,
  DeletedWebhookEndpointType,
  UpdateWebhookEndpointInput,
  WebhookAttemptConnection,
  WebhookDeliveryType,
  WebhookEndpointConnection,
  WebhookEndpointType,
} from './webhook.types';

@Resolver(() => WebhookEndpointType)
export class WebhookResolver {
  constructor(private readonly services: { webhookEndpoints: WebhookEndpointService; ops: ReturnType<typeof webhookOperations> }) {}

  @Needs('webhook_endpoints:read')
  @Query(() => WebhookEndpointConnection, { nullable: true, description: 'Webhook endpoints of this merchant and environment, newest first.' })
  webhookEndpoints(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.webhookEndpoints.list(ctx, this.services.webhookEndpoints.parseList(ctx, connectionQuery(info, { first, after, ...page }))),
      ),
    );
  }

  @Needs('webhook_endpoints:read')
  @Query(() => WebhookAttemptConnection, { nullable: true, description: 'Delivery attempts to one endpoint, newest first.' })
  webhookAttempts(
    @Ctx() { ctx }: GqlContext,
    @Arg('webhookEndpointId', () => ID, { description: 'The webhook endpoint (we_...).' }) endpointId: string,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.webhookEndpoints.listAttempts(
          ctx,
          endpointId,
          this.services.webhookEndpoints.parseAttemptList(ctx, endpointId, connectionQuery(info, { first, after, ...page })),
        ),
      ),
    );
  }

  @Needs('webhook_endpoints:write')
  @Mutation(() => WebhookEndpointType, {
    nullable: true,
    description: 'Creates a webhook endpoint; `secret` is returned here only. Honors the Idempotency-Key header.',
  })
  async createWebhookEndpoint(
    @Arg('input', () => CreateWebhookEndpointInput, { description: 'The fields of the request.' }) input: CreateWebhookEndpointInput,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.create, snakeKeys(input), {});
  }

  @Needs('webhook_endpoints:write')
  @Mutation(() => WebhookEndpointType, {
    nullable: true,
    description: 'Updates any of url, enabledEvents, status ("enabled" | "disabled"); the same rules as the create. Honors the Idempotency-Key header.',
  })
  async updateWebhookEndpoint(
    @Arg('id', () => ID, { description: "The record's id." }) id: string,
    @Arg('input', () => UpdateWebhookEndpointInput, { description: 'The fields of the request.' }) input: UpdateWebhookEndpointInput,
    @Ctx() gql: GqlContext,
  ) {
    // An explicit null means unchanged, like an omitted field.
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
    return mutate(gql, this.services.ops.update, snakeKeys(given), { id });
  }

  @Needs('webhook_endpoints:write')
  @Mutation(() => WebhookEndpointType, {
    nullable: true,
    description: 'Replaces the signing secret; the new `secret` is returned here only. For 24 hours deliveries are signed with both.',
  })
  async rotateWebhookEndpointSecret(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.ops.rotateSecret, {}, { id }, '');
  }

  @Needs('webhook_endpoints:write')
  @Mutation(() => WebhookDeliveryType, {
    nullable: true,
    description: 'Sends one event again to one endpoint: one attempt, same webhook-id, not retried.',
  })
  async resendEvent(
    @Arg('id', () => ID, { description: "The record's id." }) id: string,
    @Arg('webhookEndpointId', () => ID, { description: 'The webhook endpoint (we_...).' }) webhookEndpointId: string,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.resend, { webhook_endpoint: webhookEndpointId }, { id }, '');
  }

  @Needs('webhook_endpoints:write')
  @Mutation(() => DeletedWebhookEndpointType, {
    nullable: true,
    description: 'Deletes a webhook endpoint; pending deliveries are cancelled.',
  })
  async deleteWebhookEndpoint(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.ops.remove, {}, { id }, '');
  }
}
