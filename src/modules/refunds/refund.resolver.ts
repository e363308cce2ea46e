/** GraphQL queries and mutations for refunds: translate GraphQL <-> RefundService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { refundOperations } from './refund.operations';
import { BackwardPageArgs, SortedPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs, foundOrNotFound, mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { oneAmountForm } from '../../graphql/intent.types';
import { GraphQLError } from 'graphql';
import { PaymentIntentType } from '../payments/payment.types';
import type { PaymentIntentWire } from '../payments/payment.wire';
import type { RefundService, RefundWire } from './refund.service';
import { CreateRefundInput, RefundConnection, RefundFilter, RefundType } from './refund.types';

@Resolver(() => RefundType)
export class RefundResolver {
  constructor(private readonly services: { refunds: RefundService; ops: ReturnType<typeof refundOperations> }) {}

  @Needs('refunds:read')
  @Query(() => RefundType, {
    nullable: true,
    description: 'A refund of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  refund(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() { loaders }: GqlContext): Promise<RefundWire> {
    return foundOrNotFound(loaders.refund.load(id), 'refund');
  }

  @Needs('refunds:read')
  @Query(() => RefundConnection, { nullable: true, description: 'Refunds, newest first.' })
  refunds(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => SortedPageArgs) page: SortedPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => RefundFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: RefundFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.refunds.list(
          ctx,
          this.services.refunds.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)),
        ),
      ),
    );
  }

  @Needs('refunds:write')
  @Mutation(() => RefundType, {
    nullable: true,
    description:
      'Refunds a succeeded payment intent, in full (amount omitted) or in part; a repeated merchantReference returns the original refund. Honors the Idempotency-Key header.',
  })
  async createRefund(@Arg('input', () => CreateRefundInput, { description: 'The fields of the request.' }) input: CreateRefundInput, @Ctx() gql: GqlContext) {
    const { amountMoney, ...rest } = input;
    const given = oneAmountForm('amountMoney', amountMoney, { amount: rest.amount });
    if (!given) return mutate(gql, this.services.ops.create, snakeKeys(rest), {});
    // A refund is in its payment's currency: a Money form in another is refused before anything runs
    // (an unknown payment is left to the create, which answers not_found as for the string form).
    const payment = await gql.loaders.paymentIntent.load(rest.paymentIntent);
    if (payment && payment.currency !== given.currency)
      throw new GraphQLError('amountMoney.currency must be the currency of the payment intent.', {
        extensions: { code: 'validation_error', param: 'input.amountMoney.currency' },
      });
    return mutate(gql, this.services.ops.create, snakeKeys({ ...rest, amount: given.minorUnits }), {});
  }

  @Needs('payment_intents:read')
  @FieldResolver(() => PaymentIntentType, {
    nullable: true,
    description: 'The refunded payment intent, as it is now; null, with its error, when the caller may not read payment intents.',
  })
  paymentIntent(@Root() refund: RefundWire, @Ctx() { loaders }: GqlContext): Promise<PaymentIntentWire> {
    return foundOrNotFound(loaders.paymentIntent.load(refund.payment_intent), 'payment intent');
  }
}

/** `PaymentIntent.refunds`: the refunds module adds the field, so the payments module does not depend on it. */
@Resolver(() => PaymentIntentType)
export class PaymentIntentRefundsResolver {
  constructor(private readonly services: { refunds: RefundService }) {}

  @Needs('refunds:read')
  @FieldResolver(() => RefundConnection, {
    nullable: true,
    description: 'The refunds of this payment intent, newest first; null, with its error, when the caller may not read refunds.',
  })
  refunds(
    @Root() payment: PaymentIntentWire,
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.refunds.list(
          ctx,
          this.services.refunds.parseList(ctx, connectionQuery(info, { first, after, ...page }, { payment_intent: payment.id })),
        ),
      ),
    );
  }
}
