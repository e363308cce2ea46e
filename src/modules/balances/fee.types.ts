/** The GraphQL view of the merchant's own fee schedule (docs/finance.md, "Fees"): what `cli fees show` prints. */
import { Field, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import { PaymentMethodEnum } from '../methods/method.enums';

@ObjectType('FeeRate', { description: "One payment method's fee: a percentage of the payment plus a fixed amount, before tax." })
export class FeeRateType {
  @Field(() => String, { name: 'paymentMethod', description: 'The payment method (REST payment_method, e.g. promptpay).' })
  payment_method: string;

  @Field(() => PaymentMethodEnum, { description: '`paymentMethod` as a PaymentMethod.' })
  get paymentMethodEnum(): PaymentMethodEnum {
    return this.payment_method as PaymentMethodEnum;
  }

  @Field(() => Int, { name: 'percentBps', description: 'Percentage of the payment amount in basis points: 165 is 1.65%.' })
  percent_bps: number;

  @Field(() => String, {
    description: "Fixed part in minor units of the payment's currency (a schedule is not per currency, so no Money).",
    simple: true,
  })
  fixed: string;
}

@ObjectType('FeeSchedule', {
  description: 'The fees the operator set for the calling merchant in this environment (cli fees set). Rounded half-up per fee; no schedule means no fees.',
})
export class FeeScheduleType {
  @Field(() => EnvironmentEnum, { description: 'The environment the schedule applies to.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => Int, { name: 'taxBps', description: 'Tax on every fee in basis points: 700 is 7% (Thai VAT).' })
  tax_bps: number;

  @Field(() => String, {
    name: 'payoutFixed',
    description: "Fee per payout in minor units of the payout's currency, before tax; charged on top of the payout.",
  })
  payout_fixed: string;

  @Field(() => [FeeRateType], { description: 'Per payment method, by name; a method not listed pays no fee.', simple: true })
  methods: FeeRateType[];

  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'When the operator last changed the schedule.' })
  updated_at: string;
}
