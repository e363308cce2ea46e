/** GraphQL for payment links: translate GraphQL <-> LinkService, nothing more. Permission resource: payment_links. */
import type { GraphQLResolveInfo } from 'graphql';
import { Needs } from '../../graphql/access';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { foundOrNotFound, mutate, withListArgs } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { PaymentIntentType } from '../payments/payment.types';
import type { PaymentIntentWire } from '../payments/payment.wire';
import type { linkOperations } from './link.operations';
import type { LinkService } from './link.service';
import type { PaymentLinkWire } from './link.wire';
import { CreatePaymentLinkInput, PaymentLinkConnection, PaymentLinkType, UpdatePaymentLinkInput } from './link.types';
import { oneAmountForm } from '../../graphql/intent.types';
import { GraphQLError } from 'graphql';

/** The REST body of a create or update: camelCase -> snake_case, except metadata, whose keys are the merchant's own; null fields dropped. */
function bodyOf(input: object): Record<string, unknown> {
  const { metadata, ...rest } = input as { metadata?: unknown };
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined));
  const body = snakeKeys(given) as Record<string, unknown>;
  if (metadata !== undefined && metadata !== null) body.metadata = metadata;
  return body;
}

/**
 * A create input with its Money forms as the REST body's `amount`, `customer_chooses` and
 * `currency` (the same request, and fingerprint, in either form). Each Money form refuses its
 * string form beside it; a range's bounds must share one currency.
 */
function withLinkAmounts(input: CreatePaymentLinkInput): Omit<CreatePaymentLinkInput, 'amountMoney' | 'customerChoosesMoney'> {
  const { amountMoney, customerChoosesMoney, ...rest } = input;
  const fixed = oneAmountForm('amountMoney', amountMoney, { amount: rest.amount, currency: rest.currency });
  const range = oneAmountForm('customerChoosesMoney', customerChoosesMoney, { customerChooses: rest.customerChooses, currency: rest.currency });
  const out = { ...rest };
  if (fixed) Object.assign(out, { amount: fixed.minorUnits, currency: fixed.currency });
  if (range) {
    if (range.minimum.currency !== range.maximum.currency)
      throw new GraphQLError('customerChoosesMoney.maximum must be in the currency of customerChoosesMoney.minimum.', {
        extensions: { code: 'validation_error', param: 'input.customerChoosesMoney.maximum.currency' },
      });
    // Both Money forms at once: the create refuses amount beside customer_chooses, as for the strings.
    Object.assign(out, {
      customerChooses: { minimum: range.minimum.minorUnits, maximum: range.maximum.minorUnits },
      currency: out.currency ?? range.minimum.currency,
    });
  }
  return out;
}

@Resolver(() => PaymentLinkType)
export class LinkResolver {
  constructor(private readonly services: { links: LinkService; linkOps: ReturnType<typeof linkOperations> }) {}

  @Needs('payment_links:read')
  @Query(() => PaymentLinkType, {
    nullable: true,
    description:
      'A payment link of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  paymentLink(@Arg('id', () => ID, { description: 'plink_...' }) id: string, @Ctx() { loaders }: GqlContext): Promise<PaymentLinkWire> {
    return foundOrNotFound(loaders.paymentLink.load(id), 'payment link');
  }

  @Needs('payment_links:read')
  @Query(() => PaymentLinkConnection, { nullable: true, description: 'Payment links, newest first.' })
  paymentLinks(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    return withListArgs(async () =>
      toConnection(await this.services.links.list(ctx, this.services.links.parseList(ctx, connectionQuery(info, { first, after, ...page })))),
    );
  }

  @Needs('payment_links:write')
  @Mutation(() => PaymentLinkType, {
    nullable: true,
    description: 'Creates a payment link (a fixed amount, or customerChooses). Honors the Idempotency-Key header.',
  })
  async createPaymentLink(@Arg('input', () => CreatePaymentLinkInput, { description: 'The new link.' }) input: CreatePaymentLinkInput, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.linkOps.create, bodyOf(withLinkAmounts(input)), {});
  }

  @Needs('payment_links:write')
  @Mutation(() => PaymentLinkType, {
    nullable: true,
    description: 'Updates any of description, active, completionLimit, expiresAt. Honors the Idempotency-Key header.',
  })
  async updatePaymentLink(
    @Arg('id', () => ID, { description: 'plink_...' }) id: string,
    @Arg('input', () => UpdatePaymentLinkInput, { description: 'The changes.' }) input: UpdatePaymentLinkInput,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.linkOps.update, bodyOf(input), { id });
  }

  @Needs('payment_links:write')
  @Mutation(() => PaymentLinkType, { nullable: true, description: 'Deactivates a payment link (active false): its page answers 410 from now on.' })
  async deactivatePaymentLink(@Arg('id', () => ID, { description: 'plink_...' }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.linkOps.update, { active: false }, { id });
  }
}

/** `PaymentIntent.paymentLink`: the links module adds the field, so the payments module does not depend on it. */
@Resolver(() => PaymentIntentType)
export class PaymentIntentLinkResolver {
  @Needs('payment_links:read')
  @FieldResolver(() => PaymentLinkType, {
    nullable: true,
    description: 'The payment link the payer started from, as it is now; null for an intent created through the API.',
  })
  async paymentLink(@Root() payment: PaymentIntentWire, @Ctx() { loaders }: GqlContext): Promise<PaymentLinkWire | null> {
    return payment.payment_link === null ? null : loaders.paymentLink.load(payment.payment_link);
  }
}
