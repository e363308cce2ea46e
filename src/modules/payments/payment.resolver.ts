/** GraphQL queries and mutations for payment intents: translate GraphQL <-> PaymentService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { paymentOperations } from './payment.operations';
import type { PaymentService } from './payment.service';
import { SortedPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs, foundOrNotFound, mutate, toGraphQLError } from '../../graphql/errors';
import { ApiError } from '../../domain/errors';
import { snakeKeys } from '../../graphql/input';
import { withAmountFields } from '../../graphql/intent.types';
import type { PaymentIntentWire } from './payment.wire';
import { CreatePaymentIntentInput, PaymentCustomerType, PaymentIntentConnection, PaymentIntentFilter, PaymentIntentType } from './payment.types';
import type { PaymentDetails } from './payment.service';

/** The REST body of a create: camelCase -> snake_case, except metadata, whose keys are the merchant's own. */
export function createBody(input: CreatePaymentIntentInput): Record<string, unknown> {
  const { metadata, paymentMethodEnum, ...rest } = withAmountFields(input);
  if (paymentMethodEnum !== undefined && paymentMethodEnum !== null) {
    if (rest.paymentMethod !== undefined && rest.paymentMethod !== null)
      throw toGraphQLError(ApiError.validation('payment_method_enum', 'Give either paymentMethodEnum or paymentMethod, not both.'));
    rest.paymentMethod = paymentMethodEnum;
  }
  const body = snakeKeys({ ...rest }) as Record<string, unknown>;
  if (metadata !== undefined) body.metadata = metadata;
  return body;
}

@Resolver(() => PaymentIntentType)
export class PaymentResolver {
  constructor(private readonly services: { payments: PaymentService; ops: ReturnType<typeof paymentOperations> }) {}

  @Needs('payment_intents:read')
  @Query(() => PaymentIntentType, {
    nullable: true,
    description:
      'A payment intent of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  paymentIntent(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() { loaders }: GqlContext): Promise<PaymentIntentWire> {
    return foundOrNotFound(loaders.paymentIntent.load(id), 'payment intent');
  }

  @Needs('payment_intents:read')
  @Query(() => PaymentIntentConnection, { nullable: true, description: 'Payment intents, newest first.' })
  paymentIntents(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => SortedPageArgs) page: SortedPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => PaymentIntentFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: PaymentIntentFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.payments.list(
          ctx,
          this.services.payments.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)),
        ),
      ),
    );
  }

  @Needs('payment_intents:write')
  @Mutation(() => PaymentIntentType, {
    nullable: true,
    description:
      'Creates a payment intent. A repeated merchantReference with the same fingerprint returns the original; with any fingerprinted field changed it fails with idempotency_conflict. Honors the Idempotency-Key header.',
  })
  async createPaymentIntent(
    @Arg('input', () => CreatePaymentIntentInput, { description: 'The fields of the request.' }) input: CreatePaymentIntentInput,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.create, createBody(input), {});
  }

  @Needs('payment_intents:write')
  @Mutation(() => PaymentIntentType, {
    nullable: true,
    description: 'requires_action -> cancelled; the reason (at most 512 characters) becomes failureMessage.',
  })
  async cancelPaymentIntent(
    @Arg('id', () => ID, { description: "The record's id." }) id: string,
    @Arg('reason', () => String, { nullable: true, description: 'Why, at most 512 characters; becomes failureMessage.' }) reason: string | undefined,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.cancel, reason === undefined || reason === null ? {} : { reason }, { id }, '');
  }

  // What the create accepted and the REST record leaves out, read back from the intent's row.

  @FieldResolver(() => PaymentCustomerType, {
    nullable: true,
    description: 'The payer identity and contact details sent on create (or completed on the hosted page).',
  })
  async customer(@Root() p: PaymentIntentWire, @Ctx() { loaders }: GqlContext): Promise<PaymentDetails['customer'] | null> {
    return (await loaders.paymentIntentDetails.load(p.id))?.customer ?? null;
  }

  @FieldResolver(() => GraphQLJSONObject, { nullable: true, description: 'The metadata sent on create (string keys to string values, as sent); {} when none.' })
  async metadata(@Root() p: PaymentIntentWire, @Ctx() { loaders }: GqlContext): Promise<Record<string, string> | null> {
    return (await loaders.paymentIntentDetails.load(p.id))?.metadata ?? null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The external reference sent on create; null when none.' })
  async externalReference(@Root() p: PaymentIntentWire, @Ctx() { loaders }: GqlContext): Promise<string | null> {
    return (await loaders.paymentIntentDetails.load(p.id))?.external_reference ?? null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'Where the hosted checkout sends the payer after paying; null when none was sent.' })
  async returnUrl(@Root() p: PaymentIntentWire, @Ctx() { loaders }: GqlContext): Promise<string | null> {
    return (await loaders.paymentIntentDetails.load(p.id))?.return_url ?? null;
  }
}
