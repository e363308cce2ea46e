/** GraphQL queries and mutations for payout intents: translate GraphQL <-> PayoutService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { payoutOperations } from './payout.operations';
import { SortedPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs, foundOrNotFound, mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { withAmountFields } from '../../graphql/intent.types';
import type { PayoutIntentWire, PayoutService } from './payout.service';
import { CreatePayoutIntentInput, PayoutIntentConnection, PayoutIntentFilter, PayoutIntentType } from './payout.types';

@Resolver(() => PayoutIntentType)
export class PayoutResolver {
  constructor(private readonly services: { payouts: PayoutService; ops: ReturnType<typeof payoutOperations> }) {}

  @Needs('payout_intents:read')
  @Query(() => PayoutIntentType, {
    nullable: true,
    description:
      'A payout intent of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  payoutIntent(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() { loaders }: GqlContext): Promise<PayoutIntentWire> {
    return foundOrNotFound(loaders.payoutIntent.load(id), 'payout intent');
  }

  @Needs('payout_intents:read')
  @Query(() => PayoutIntentConnection, { nullable: true, description: 'Payout intents, newest first.' })
  payoutIntents(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => SortedPageArgs) page: SortedPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => PayoutIntentFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: PayoutIntentFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.payouts.list(
          ctx,
          this.services.payouts.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)),
        ),
      ),
    );
  }

  @Needs('payout_intents:write')
  @Mutation(() => PayoutIntentType, {
    nullable: true,
    description: 'Creates a payout intent waiting at the approval gate. Honors the Idempotency-Key header.',
  })
  async createPayoutIntent(
    @Arg('input', () => CreatePayoutIntentInput, { description: 'The fields of the request.' }) input: CreatePayoutIntentInput,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.create, snakeKeys(withAmountFields(input)), {});
  }

  @Needs('payout_approvals:write')
  @Mutation(() => PayoutIntentType, {
    nullable: true,
    description: 'requires_approval -> processing.',
  })
  async approvePayoutIntent(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.ops.approve, {}, { id }, '');
  }

  @Needs('payout_intents:write')
  @Mutation(() => PayoutIntentType, {
    nullable: true,
    description: 'requires_approval -> cancelled; the reason (at most 512 characters) becomes failureMessage.',
  })
  async cancelPayoutIntent(
    @Arg('id', () => ID, { description: "The record's id." }) id: string,
    @Arg('reason', () => String, { nullable: true, description: 'Why, at most 512 characters; becomes failureMessage.' }) reason: string | undefined,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.cancel, reason === undefined || reason === null ? {} : { reason }, { id }, '');
  }
}
