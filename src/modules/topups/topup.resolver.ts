/** GraphQL queries and mutations for topup intents: translate GraphQL <-> TopupService. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { topupOperations } from './topup.operations';
import { SortedPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs, foundOrNotFound, mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { withAmountFields } from '../../graphql/intent.types';
import type { TopupIntentWire, TopupService } from './topup.service';
import { CreateTopupIntentInput, TopupIntentConnection, TopupIntentFilter, TopupIntentType } from './topup.types';

@Resolver(() => TopupIntentType)
export class TopupResolver {
  constructor(private readonly services: { topups: TopupService; ops: ReturnType<typeof topupOperations> }) {}

  @Needs('topup_intents:read')
  @Query(() => TopupIntentType, {
    nullable: true,
    description:
      'A topup intent of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  topupIntent(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() { loaders }: GqlContext): Promise<TopupIntentWire> {
    return foundOrNotFound(loaders.topupIntent.load(id), 'topup intent');
  }

  @Needs('topup_intents:read')
  @Query(() => TopupIntentConnection, { nullable: true, description: 'Topup intents, newest first.' })
  topupIntents(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => SortedPageArgs) page: SortedPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => TopupIntentFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: TopupIntentFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.topups.list(
          ctx,
          this.services.topups.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)),
        ),
      ),
    );
  }

  @Needs('topup_intents:write')
  @Mutation(() => TopupIntentType, {
    nullable: true,
    description: 'Creates a topup intent with bank-transfer instructions. Requires the Idempotency-Key header.',
  })
  async createTopupIntent(
    @Arg('input', () => CreateTopupIntentInput, { description: 'The fields of the request.' }) input: CreateTopupIntentInput,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.create, snakeKeys(withAmountFields(input)), {});
  }
}
