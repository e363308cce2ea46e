/** GraphQL for method discovery and method settings: translate GraphQL <-> MethodRouting / MethodSettings. */
import { GraphQLError } from 'graphql';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { ApiError } from '../../domain/errors';
import type { GqlContext } from '../../graphql/context';
import { toConnection } from '../../graphql/connection';
import { graphqlParam, mutationResult } from '../../graphql/errors';
import { CheckoutModeEnum } from '../../graphql/enums';
import type { Page } from '../../domain/listing';
import type { PaymentMethodOptionWire, PaymentMethodSettingWire } from './method.wire';
import { PaymentMethodOptionConnection, PaymentMethodSettingType } from './method.types';

function argError(err: unknown): never {
  if (err instanceof ApiError && err.param) throw new GraphQLError(err.message, { extensions: { code: err.code, param: graphqlParam(err.param, '') } });
  throw err;
}

/** Discovery is one short list; `first`/`after` page through it in memory so it is a connection like every list. */
function pageOf(items: PaymentMethodOptionWire[], first: number, after?: string): Page<PaymentMethodOptionWire> {
  let start = 0;
  if (after !== undefined && after !== null) {
    const m = /^pmo:(\d{1,4})$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
    if (!m) throw new GraphQLError('after is not a cursor returned by paymentMethodOptions.', { extensions: { code: 'validation_error', param: 'after' } });
    start = Number(m[1]) + 1;
  }
  if (!Number.isInteger(first) || first < 1 || first > 100) {
    throw new GraphQLError('first must be a whole number from 1 to 100.', { extensions: { code: 'validation_error', param: 'first' } });
  }
  const data = items.slice(start, start + first);
  const cursors = data.map((_, i) => Buffer.from(`pmo:${start + i}`).toString('base64url'));
  const hasMore = start + first < items.length;
  return { data, hasMore, nextCursor: hasMore ? cursors[cursors.length - 1] : null, cursors };
}

@Resolver()
export class MethodResolver {
  @Query(() => PaymentMethodOptionConnection, {
    description: 'Eligible payment methods and bank choices for the amount, currency, country and checkout mode (default DIRECT), optionally pinned strictly to one provider. Empty when nothing is eligible.',
  })
  async paymentMethodOptions(
    @Ctx() { app, ctx }: GqlContext,
    @Arg('amount', () => String, { nullable: true, description: 'Minor units.' }) amount?: string,
    @Arg('currency', () => String, { nullable: true }) currency?: string,
    @Arg('country', () => String, { nullable: true }) country?: string,
    @Arg('checkoutMode', () => CheckoutModeEnum, { nullable: true }) checkoutMode?: CheckoutModeEnum,
    @Arg('provider', () => String, { nullable: true, description: 'Strict pin: only this provider\'s methods.' }) provider?: string,
    @Arg('first', () => Int, { nullable: true, defaultValue: 100 }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ) {
    const query: Record<string, unknown> = {};
    for (const [k, v] of Object.entries({ amount, currency, country, checkout_mode: checkoutMode, provider })) if (v !== undefined && v !== null) query[k] = v;
    const items = await app.methodRouting.discover(ctx, query).catch(argError);
    return toConnection(pageOf(items, first ?? 100, after));
  }

  @Query(() => [PaymentMethodSettingType], { description: 'Every method of the catalogue and whether the merchant offers it in this environment.' })
  paymentMethodSettings(@Ctx() { app, ctx }: GqlContext): Promise<PaymentMethodSettingWire[]> {
    return app.methodSettings.listSettings(ctx);
  }

  @Mutation(() => PaymentMethodSettingType, { description: 'Enables or disables a method for the merchant in this environment. Honors the Idempotency-Key header.' })
  async updatePaymentMethodSetting(
    @Arg('paymentMethod', () => String) paymentMethod: string,
    @Arg('enabled', () => Boolean) enabled: boolean,
    @Ctx() gql: GqlContext,
  ) {
    const { app, ctx, idempotencyKey } = gql;
    return mutationResult<PaymentMethodSettingWire>(gql, app.methodSettings.updateSetting(ctx, paymentMethod, { enabled }, idempotencyKey), '');
  }
}
