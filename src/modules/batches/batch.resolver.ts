/** GraphQL queries and mutations for payout batches: translate GraphQL <-> PayoutBatchService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Needs } from '../../graphql/access';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { foundOrNotFound, mutate, withListArgs } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { withAmountFields } from '../../graphql/intent.types';
import { CreatePayoutIntentInput, PayoutIntentConnection } from '../payouts/payout.types';
import type { batchOperations } from './batch.operations';
import type { PayoutBatchWire } from './batch.schemas';
import type { PayoutBatchService } from './batch.service';
import { PayoutBatchConnection, PayoutBatchFilter, PayoutBatchType } from './batch.types';

@Resolver(() => PayoutBatchType)
export class PayoutBatchResolver {
  constructor(private readonly services: { batches: PayoutBatchService; ops: ReturnType<typeof batchOperations> }) {}

  @Needs('payout_batches:read')
  @Query(() => PayoutBatchType, {
    nullable: true,
    description:
      'A payout batch of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  payoutBatch(@Arg('id', () => ID, { description: 'pob_...' }) id: string, @Ctx() { loaders }: GqlContext): Promise<PayoutBatchWire> {
    return foundOrNotFound(loaders.payoutBatch.load(id), 'payout batch');
  }

  @Needs('payout_batches:read')
  @Query(() => PayoutBatchConnection, { nullable: true, description: 'Payout batches, newest first.' })
  payoutBatches(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => PayoutBatchFilter, { nullable: true, description: 'Listing filters.' }) filter?: PayoutBatchFilter,
  ) {
    const { batches } = this.services;
    return withListArgs(async () =>
      toConnection(
        await batches.list(ctx, batches.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>))),
      ),
    );
  }

  @Needs('payout_batches:read')
  @FieldResolver(() => PayoutIntentConnection, { description: "The batch's payout intents (from approval on), newest first." })
  items(
    @Root() batch: PayoutBatchWire,
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    return withListArgs(async () => toConnection(await this.services.batches.items(ctx, batch.id, connectionQuery(info, { first, after, ...page }, {}))));
  }

  @Needs('payout_batches:write')
  @Mutation(() => PayoutBatchType, {
    nullable: true,
    description:
      'Creates a payout batch: invalid (every row error listed, nothing created) or requires_approval with its totals reserved. Honors the Idempotency-Key header.',
  })
  async createPayoutBatch(
    @Arg('items', () => [CreatePayoutIntentInput], { description: 'The payouts, 1 to 5,000; each checked as createPayoutIntent checks its input.' })
    items: CreatePayoutIntentInput[],
    @Ctx() gql: GqlContext,
  ) {
    // Each item as createPayoutIntent reads it: amountMoney or the strings, not both (param `items.<index>.amountMoney`).
    const body = items.map((item, i) => withAmountFields(item, `items.${i}`));
    return mutate(gql, this.services.ops.create, { items: snakeKeys(body) }, {}, '');
  }

  @Needs('payout_approvals:write')
  @Mutation(() => PayoutBatchType, { nullable: true, description: 'requires_approval -> processing: every item becomes a payout intent in processing.' })
  async approvePayoutBatch(@Arg('id', () => ID, { description: 'pob_...' }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.ops.approve, {}, { id }, '');
  }

  @Needs('payout_batches:write')
  @Mutation(() => PayoutBatchType, { nullable: true, description: 'requires_approval -> cancelled: the reservation is released.' })
  async cancelPayoutBatch(
    @Arg('id', () => ID, { description: 'pob_...' }) id: string,
    @Arg('reason', () => String, { nullable: true, description: 'Why; at most 512 characters.' }) reason: string | undefined,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.cancel, reason === undefined || reason === null ? {} : { reason }, { id }, '');
  }
}
