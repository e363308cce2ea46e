/** GraphQL for balance transactions: translate GraphQL <-> BalanceTransactionService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { Needs } from '../../graphql/access';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { foundOrNotFound, withListArgs } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { PaymentIntentType } from '../payments/payment.types';
import { PayoutIntentType } from '../payouts/payout.types';
import { RefundType } from '../refunds/refund.types';
import type { BalanceTransactionService } from './balance-transaction.service';
import type { BalanceTransactionWire } from './balance-transaction.schemas';
import { BalanceTransactionConnection, BalanceTransactionFilter, BalanceTransactionObject } from './balance-transaction.types';

type Services = { balanceTransactions: BalanceTransactionService };

@Resolver(() => BalanceTransactionObject)
export class BalanceTransactionResolver {
  constructor(private readonly services: Services) {}

  @Needs('balance_transactions:read')
  @Query(() => BalanceTransactionObject, {
    nullable: true,
    description: 'A balance transaction of the calling merchant and environment; null, with a not_found error, when unknown.',
  })
  balanceTransaction(@Arg('id', () => ID, { description: 'txn_ id.' }) id: string, @Ctx() { loaders }: GqlContext): Promise<BalanceTransactionWire> {
    return foundOrNotFound(loaders.balanceTransaction.load(id), 'balance transaction');
  }

  @Needs('balance_transactions:read')
  @Query(() => BalanceTransactionConnection, { nullable: true, description: 'Movements of the available balance, newest first.' })
  balanceTransactions(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size (1-100).' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => BalanceTransactionFilter, { nullable: true, description: 'Filters.' }) filter?: BalanceTransactionFilter,
  ) {
    const svc = this.services.balanceTransactions;
    return withListArgs(async () =>
      toConnection(await svc.list(ctx, svc.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)))),
    );
  }
}

const sourceField = { description: "The movements of this record's balance, oldest first." };

/** `balanceTransactions` on payment intents, payout intents and refunds: their movements of the balance. */
@Resolver(() => PaymentIntentType)
export class PaymentIntentBalanceTransactionsResolver {
  constructor(private readonly services: Services) {}

  @FieldResolver(() => [BalanceTransactionObject], sourceField)
  balanceTransactions(@Root() record: { id: string }, @Ctx() { ctx }: GqlContext): Promise<BalanceTransactionWire[]> {
    return this.services.balanceTransactions.ofSource(ctx, record.id);
  }
}

@Resolver(() => PayoutIntentType)
export class PayoutIntentBalanceTransactionsResolver {
  constructor(private readonly services: Services) {}

  @FieldResolver(() => [BalanceTransactionObject], sourceField)
  balanceTransactions(@Root() record: { id: string }, @Ctx() { ctx }: GqlContext): Promise<BalanceTransactionWire[]> {
    return this.services.balanceTransactions.ofSource(ctx, record.id);
  }
}

@Resolver(() => RefundType)
export class RefundBalanceTransactionsResolver {
  constructor(private readonly services: Services) {}

  @FieldResolver(() => [BalanceTransactionObject], sourceField)
  balanceTransactions(@Root() record: { id: string }, @Ctx() { ctx }: GqlContext): Promise<BalanceTransactionWire[]> {
    return this.services.balanceTransactions.ofSource(ctx, record.id);
  }
}
