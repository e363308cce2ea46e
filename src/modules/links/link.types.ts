/**
 * GraphQL types for payment links: views over the REST wire record (camelCase names reading
 * the snake_case properties), so a fresh answer, a replay and an event payload render the
 * same. Inputs are camelCase and reach the domain through `snakeKeys`, as the REST body.
 */
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';
import { PaymentMethodEnum } from '../methods/method.enums';
import { money, MoneyInput, moneyOrNull, MoneyType, type Money } from '../../graphql/money';
import { NodeInterface } from '../../graphql/node';
import { DateTimeScalar } from '../../graphql/scalars';

@ObjectType('PaymentLinkAmountRange', { description: 'The bounds of the amount a payer chooses (minor units, inclusive).' })
export class PaymentLinkAmountRangeType {
  @Field(() => String, {
    description: 'The smallest amount, in minor units.',
    simple: true,
    deprecationReason: 'Use minimumMoney: the same amount with its currency, exponent and decimal form.',
  })
  minimum: string;

  @Field(() => String, {
    description: 'The largest amount, in minor units.',
    simple: true,
    deprecationReason: 'Use maximumMoney: the same amount with its currency, exponent and decimal form.',
  })
  maximum: string;

  /** The link's currency: not a field of its own (the range is read inside its link), set by `PaymentLink.customerChooses`. */
  currency: string;

  @Field(() => MoneyType, { description: "`minimum` as Money, in the link's currency." })
  get minimumMoney(): Money {
    return money(this.minimum, this.currency);
  }

  @Field(() => MoneyType, { description: "`maximum` as Money, in the link's currency." })
  get maximumMoney(): Money {
    return money(this.maximum, this.currency);
  }
}

@ObjectType('PaymentLink', {
  implements: NodeInterface,
  description: 'A page where a payer pays the merchant through the hosted checkout, without an integration.',
})
export class PaymentLinkType {
  @Field(() => ID, { description: 'plink_...', simple: true })
  id: string;

  @Field(() => String, { description: 'PUBLIC_BASE_URL/pay/<token>: the page the payer opens.', simple: true })
  url: string;

  @Field(() => Boolean, { description: 'False once deactivated.', simple: true })
  active: boolean;

  @Field(() => String, { nullable: true, description: 'The fixed amount in minor units; null when the payer chooses it.', simple: true })
  amount: string | null;

  @Field(() => MoneyType, { nullable: true, description: '`amount` as Money; null when the payer chooses the amount.' })
  get amountMoney(): Money | null {
    return this.amount === null ? null : money(this.amount, this.currency);
  }

  @Field(() => String, { description: 'ISO 4217 code.', simple: true })
  currency: string;

  @Field(() => String, { description: 'ISO 3166-1 alpha-2 code.', simple: true })
  country: string;

  @Field(() => String, { nullable: true, description: 'Shown to the payer.', simple: true })
  description: string | null;

  customer_chooses: { minimum: string; maximum: string } | null;

  @Field(() => PaymentLinkAmountRangeType, {
    name: 'customerChooses',
    nullable: true,
    description: 'The bounds of a payer-chosen amount; null for a fixed amount.',
  })
  get customerChoosesRange(): PaymentLinkAmountRangeType | null {
    return this.customer_chooses ? ({ ...this.customer_chooses, currency: this.currency } as PaymentLinkAmountRangeType) : null;
  }

  @Field(() => MoneyType, { nullable: true, description: '`customerChooses.minimum` as Money; null for a fixed amount.' })
  get customerChoosesMinimumMoney(): Money | null {
    return moneyOrNull(this.customer_chooses?.minimum, this.currency);
  }

  @Field(() => MoneyType, { nullable: true, description: '`customerChooses.maximum` as Money; null for a fixed amount.' })
  get customerChoosesMaximumMoney(): Money | null {
    return moneyOrNull(this.customer_chooses?.maximum, this.currency);
  }

  @Field(() => [String], { name: 'allowedMethods', nullable: true, description: 'Method names the payer may choose from; null: every eligible method.' })
  allowed_methods: string[] | null;

  @Field(() => [PaymentMethodEnum], { nullable: true, description: '`allowedMethods` as PaymentMethod values; null: every eligible method.' })
  get allowedMethodsEnum(): PaymentMethodEnum[] | null {
    return this.allowed_methods as PaymentMethodEnum[] | null;
  }

  @Field(() => Boolean, { description: 'False for a single-use link.', simple: true })
  reusable: boolean;

  @Field(() => Int, { name: 'completionLimit', nullable: true, description: 'How many succeeded payments the link takes; null = no limit.' })
  completion_limit: number | null;

  @Field(() => Int, { name: 'completedCount', description: 'Succeeded payments made through the link.' })
  completed_count: number;

  @Field(() => DateTimeScalar, { name: 'expiresAt', nullable: true, description: 'When the link stops taking new payments; null = never.' })
  expires_at: string | null;

  @Field(() => String, { name: 'returnUrl', nullable: true, description: 'Where the checkout sends the payer after paying.' })
  return_url: string | null;

  @Field(() => GraphQLJSONObject, { description: 'String keys to string values; empty when none.', simple: true })
  metadata: Record<string, string>;

  @Field(() => EnvironmentEnum, { description: 'Set by the API key.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When the link was created.' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'When the link last changed (its count included).' })
  updated_at: string;
}

export const PaymentLinkConnection = Connection('PaymentLink', PaymentLinkType);

@InputType('PaymentLinkAmountRangeInput', { description: 'The bounds of a payer-chosen amount (minor units, inclusive).' })
export class PaymentLinkAmountRangeInput {
  @Field(() => String, { description: 'The smallest amount, in minor units.' })
  minimum: string;

  @Field(() => String, { description: 'The largest amount, in minor units.' })
  maximum: string;
}

@InputType('PaymentLinkMoneyRangeInput', { description: 'The bounds of a payer-chosen amount as Money (inclusive, one currency).' })
export class PaymentLinkMoneyRangeInput {
  @Field(() => MoneyInput, { description: 'The smallest amount.' })
  minimum: MoneyInput;

  @Field(() => MoneyInput, { description: 'The largest amount, in the currency of minimum.' })
  maximum: MoneyInput;
}

@InputType('CreatePaymentLinkInput', {
  description: 'A new payment link: exactly one of amountMoney and customerChoosesMoney (or of the deprecated amount and customerChooses, with currency).',
})
export class CreatePaymentLinkInput {
  @Field(() => MoneyInput, { nullable: true, description: 'A fixed amount and its currency. Give this, or the deprecated amount and currency.' })
  amountMoney?: MoneyInput;

  @Field(() => PaymentLinkMoneyRangeInput, {
    nullable: true,
    description: "The payer enters the amount between these bounds (their currency is the link's). Give this, or the deprecated customerChooses and currency.",
  })
  customerChoosesMoney?: PaymentLinkMoneyRangeInput;

  @Field(() => String, {
    nullable: true,
    description: 'A fixed amount in minor units.',
    deprecationReason: 'Use amountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  amount?: string;

  @Field(() => String, {
    nullable: true,
    description: 'ISO 4217 code.',
    deprecationReason: 'Use amountMoney or customerChoosesMoney: each amount carries its currency, as Money reads it.',
  })
  currency?: string;

  @Field(() => String, { description: 'ISO 3166-1 alpha-2 code.' })
  country: string;

  @Field(() => String, { nullable: true, description: 'Shown to the payer; at most 500 characters.' })
  description?: string;

  @Field(() => PaymentLinkAmountRangeInput, {
    nullable: true,
    description: 'The payer enters the amount between these bounds.',
    deprecationReason: 'Use customerChoosesMoney { minimum maximum }: the bounds with their currency, as Money reads it.',
  })
  customerChooses?: PaymentLinkAmountRangeInput;

  @Field(() => [String], { nullable: true, description: 'Method names the payer may choose from; omitted: every eligible method.' })
  allowedMethods?: string[];

  @Field(() => Boolean, { nullable: true, description: 'Default true; false makes a single-use link.' })
  reusable?: boolean;

  @Field(() => Int, { nullable: true, description: 'How many succeeded payments the link takes; omitted = no limit.' })
  completionLimit?: number;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When the link stops taking new payments (in the future).' })
  expiresAt?: string;

  @Field(() => String, { nullable: true, description: 'Where the checkout sends the payer after paying.' })
  returnUrl?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String keys to string values; keys are kept as sent.' })
  metadata?: Record<string, unknown>;
}

@InputType('UpdatePaymentLinkInput', {
  description: 'The fields of a payment link that can change; omitted or null fields stay as they are, except where said.',
})
export class UpdatePaymentLinkInput {
  @Field(() => String, { nullable: true, description: 'Shown to the payer; an empty string removes it.' })
  description?: string;

  @Field(() => Boolean, { nullable: true, description: 'false deactivates the link; true activates it again.' })
  active?: boolean;

  @Field(() => Int, { nullable: true, description: 'A new limit, not below completedCount.' })
  completionLimit?: number;

  @Field(() => DateTimeScalar, { nullable: true, description: 'A new expiry, in the future.' })
  expiresAt?: string;
}
