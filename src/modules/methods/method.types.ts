/**
 * GraphQL types for method discovery and method settings: views over the REST wire
 * objects (camelCase schema names reading snake_case wire properties).
 */
import { Field, ID, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { DateTimeScalar } from '../../graphql/scalars';
import { METHODS, type PaymentMethodName } from './catalogue';
import { NextActionTypeEnum } from './next-action.types';
import { PaymentMethodEnum } from './method.enums';
import { moneyOrNull, MoneyType, type Money } from '../../graphql/money';

@ObjectType('PayerRequirement', { description: 'Whether the method needs one payer input.' })
export class PayerRequirementType {
  @Field(() => Boolean, { description: 'True: the create must carry it.', simple: true })
  required: boolean;
}

@ObjectType('PayerRequirements', {
  description:
    'Payer data the method needs; a field is null when not needed. Create-request paths: customerName -> customer.name, ' +
    'customerPhone -> customer.phone, accountName/accountNumber/bank/nameTh -> paymentMethodOptions.accountName/accountNumber/bank/nameTh.',
})
export class PayerRequirementsType {
  @Field(() => PayerRequirementType, { description: 'customer.name.', name: 'customerName', nullable: true })
  customer_name?: PayerRequirementType;

  @Field(() => PayerRequirementType, { description: 'customer.phone.', name: 'customerPhone', nullable: true })
  customer_phone?: PayerRequirementType;

  @Field(() => PayerRequirementType, { description: 'paymentMethodOptions.accountName.', name: 'accountName', nullable: true })
  account_name?: PayerRequirementType;

  @Field(() => PayerRequirementType, { description: 'paymentMethodOptions.accountNumber.', name: 'accountNumber', nullable: true })
  account_number?: PayerRequirementType;

  @Field(() => PayerRequirementType, { description: 'paymentMethodOptions.bank.', nullable: true, simple: true })
  bank?: PayerRequirementType;

  @Field(() => PayerRequirementType, { description: 'paymentMethodOptions.nameTh.', name: 'nameTh', nullable: true })
  name_th?: PayerRequirementType;
}

@ObjectType('PaymentMethodOptionOptions', { description: 'What a create with this option needs.' })
export class PaymentMethodOptionOptionsType {
  @Field(() => PayerRequirementsType, { description: 'The payer inputs the method needs.', simple: true })
  payer: PayerRequirementsType;
}

@ObjectType('PaymentMethodOption', { description: 'One eligible (method, bank) choice. Which provider serves it is never shown.' })
export class PaymentMethodOptionType {
  @Field(() => ID, { description: 'Derived from the method and bank (pmo_bank_transfer_KBANK, pmo_promptpay): stable, a cache key within the environment.' })
  get id(): string {
    return this.bank ? `pmo_${this.payment_method}_${this.bank}` : `pmo_${this.payment_method}`;
  }

  @Field(() => String, { description: 'The method name to send as paymentMethod.', name: 'paymentMethod' })
  payment_method: string;

  @Field(() => PaymentMethodEnum, { description: '`paymentMethod` as a PaymentMethod (to send as paymentMethodEnum).' })
  get paymentMethodEnum(): PaymentMethodEnum {
    return this.payment_method as PaymentMethodEnum;
  }

  @Field(() => String, { nullable: true, description: 'Provider-neutral bank code; null for methods without a bank choice.', simple: true })
  bank: string | null;

  @Field(() => String, { description: 'The name to show the payer.', name: 'displayName' })
  display_name: string;

  @Field(() => String, { description: "The line a payer's page shows under the name (the hosted checkout, a payment link's page)." })
  get hint(): string {
    return METHODS[this.payment_method as PaymentMethodName].hint;
  }

  @Field(() => NextActionTypeEnum, { name: 'nextActionType', nullable: true, description: 'Null for a method that settles at once.' })
  next_action_type: NextActionTypeEnum | null;

  @Field(() => String, {
    name: 'minAmount',
    nullable: true,
    description: 'Minor units, inclusive.',
    deprecationReason: 'Use minAmountMoney: the same amount with its currency, exponent and decimal form.',
  })
  min_amount: string | null;

  @Field(() => String, {
    name: 'maxAmount',
    nullable: true,
    description: 'Minor units, inclusive.',
    deprecationReason: 'Use maxAmountMoney: the same amount with its currency, exponent and decimal form.',
  })
  max_amount: string | null;

  /** The currency of the bounds (PaymentMethodOptionView); not a field of its own. */
  bounds_currency: string | null;

  @Field(() => MoneyType, {
    nullable: true,
    description: 'The smallest amount the option takes (inclusive), as Money; null when its offers span currencies (ask with a currency).',
  })
  get minAmountMoney(): Money | null {
    return moneyOrNull(this.min_amount, this.bounds_currency);
  }

  @Field(() => MoneyType, {
    nullable: true,
    description: 'The largest amount the option takes (inclusive), as Money; null when its offers span currencies (ask with a currency).',
  })
  get maxAmountMoney(): Money | null {
    return moneyOrNull(this.max_amount, this.bounds_currency);
  }

  @Field(() => PaymentMethodOptionOptionsType, { description: 'What a create with this option needs.', simple: true })
  options: PaymentMethodOptionOptionsType;
}

export const PaymentMethodOptionConnection = Connection('PaymentMethodOption', PaymentMethodOptionType);

@ObjectType('PaymentMethodSetting', { description: "Whether the merchant offers a method in this key's environment." })
export class PaymentMethodSettingType {
  @Field(() => ID, { description: 'Derived from the method (pms_promptpay): stable, a cache key within the environment.' })
  get id(): string {
    return `pms_${this.payment_method}`;
  }

  @Field(() => String, { description: 'The method name.', name: 'paymentMethod' })
  payment_method: string;

  @Field(() => PaymentMethodEnum, { description: '`paymentMethod` as a PaymentMethod.' })
  get paymentMethodEnum(): PaymentMethodEnum {
    return this.payment_method as PaymentMethodEnum;
  }

  @Field(() => String, { description: 'The name to show the payer.', name: 'displayName' })
  display_name: string;

  @Field(() => Boolean, { description: 'Whether the merchant offers the method in this environment.', simple: true })
  enabled: boolean;

  @Field(() => DateTimeScalar, { name: 'updatedAt', nullable: true, description: 'Null while the catalogue default (enabled) applies.' })
  updated_at: string | null;
}

@ObjectType('LivePaymentMethod', { description: 'Whether live-mode payments can take a method now (never which provider or account takes it).' })
export class LivePaymentMethodType {
  @Field(() => String, { description: 'The method name.', name: 'paymentMethod' })
  payment_method: string;

  @Field(() => String, { description: 'The name to show the payer.', name: 'displayName' })
  display_name: string;

  @Field(() => Boolean, {
    description: "True when a provider account connected for live mode (the merchant's own or the platform's) offers the method.",
    simple: true,
  })
  live: boolean;
}
