/** GraphQL for method discovery and method settings: translate GraphQL <-> MethodRouting / MethodSettings. */
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { MethodRouting } from './method-routing.service';
import type { MethodSettings } from './method-settings.service';
import type { methodOperations } from './method.operations';
import { toConnection } from '../../graphql/connection';
import { mutate, withArgs } from '../../graphql/errors';
import { CheckoutModeEnum } from './method.enums';
import { MoneyInput } from '../../graphql/money';
import { oneAmountForm } from '../../graphql/intent.types';
import type { PaymentMethodSettingWire } from './method.wire';
import { LivePaymentMethodType, PaymentMethodOptionConnection, PaymentMethodSettingType } from './method.types';
import { METHODS, PAYMENT_METHODS } from './catalogue';

@Resolver()
export class MethodResolver {
  constructor(private readonly services: { methodRouting: MethodRouting; methodSettings: MethodSettings; ops: ReturnType<typeof methodOperations> }) {}

  @Needs('payment_intents:read')
  @Query(() => PaymentMethodOptionConnection, {
    nullable: true,
    description:
      'Eligible payment methods and bank choices for the amount, currency, country and checkout mode (default DIRECT), optionally pinned strictly to one provider. Empty when nothing is eligible.',
  })
  async paymentMethodOptions(
    @Ctx() { ctx }: GqlContext,
    @Arg('amount', () => String, {
      nullable: true,
      description: 'Minor units.',
      deprecationReason: 'Use amountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
    })
    amount?: string,
    @Arg('currency', () => String, { nullable: true, description: 'ISO 4217 currency of the payment (without an amount: every option in it).' })
    currency?: string,
    @Arg('country', () => String, { nullable: true, description: 'ISO 3166-1 alpha-2 country of the payment.' }) country?: string,
    @Arg('checkoutMode', () => CheckoutModeEnum, { nullable: true, description: 'Only the options of this checkout mode.' }) checkoutMode?: CheckoutModeEnum,
    @Arg('provider', () => String, { nullable: true, description: "Strict pin: only this provider's methods." }) provider?: string,
    @Arg('first', () => Int, { nullable: true, defaultValue: 100, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('amountMoney', () => MoneyInput, {
      nullable: true,
      description: 'The amount of the payment and its currency. Give this, or the deprecated amount with currency.',
    })
    amountMoney?: MoneyInput,
  ) {
    const given = oneAmountForm('amountMoney', amountMoney, { amount, currency }, '');
    if (given) [amount, currency] = [given.minorUnits, given.currency];
    const query: Record<string, unknown> = {};
    for (const [k, v] of Object.entries({ amount, currency, country, checkout_mode: checkoutMode, provider })) if (v !== undefined && v !== null) query[k] = v;
    return toConnection(await withArgs(() => this.services.methodRouting.discoverPage(ctx, query, { first, after })));
  }

  @Needs('payment_intents:read')
  @Query(() => [PaymentMethodSettingType], {
    nullable: true,
    description: 'Every method of the catalogue and whether the merchant offers it in this environment.',
  })
  paymentMethodSettings(@Ctx() { ctx }: GqlContext): Promise<PaymentMethodSettingWire[]> {
    return this.services.methodSettings.listSettings(ctx);
  }

  @Needs('payment_intents:write')
  @Query(() => [LivePaymentMethodType], {
    nullable: true,
    description:
      "Which methods live-mode payments can take now, in either environment's session (owners, admins and full keys: payment_intents:write). Provider accounts are the operator's (cli providers connect); this says nothing of which provider takes a method.",
  })
  async livePaymentMethods(@Ctx() { ctx }: GqlContext): Promise<LivePaymentMethodType[]> {
    const live = await this.services.methodRouting.liveMethods(ctx.merchantId);
    return PAYMENT_METHODS.map((m) => ({ payment_method: m, display_name: METHODS[m].displayName, live: live.has(m) }));
  }

  @Needs('payment_intents:write')
  @Mutation(() => PaymentMethodSettingType, {
    nullable: true,
    description: 'Enables or disables a method for the merchant in this environment. Honors the Idempotency-Key header.',
  })
  async updatePaymentMethodSetting(
    @Arg('paymentMethod', () => String, { description: 'The method name, e.g. promptpay.' }) paymentMethod: string,
    @Arg('enabled', () => Boolean, { description: 'Whether the merchant offers the method.' }) enabled: boolean,
    @Ctx() gql: GqlContext,
  ) {
    return mutate(gql, this.services.ops.updateSetting, { enabled }, { payment_method: paymentMethod }, '');
  }
}
