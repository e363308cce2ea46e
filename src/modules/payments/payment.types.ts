/**
 * GraphQL types for payment intents. Output types are views over the REST wire record
 * (camelCase schema names reading snake_case wire properties), so a fresh answer, an
 * idempotent replay and an event payload render the same. Inputs are camelCase and reach
 * the domain through `snakeKeys`, i.e. as the REST body.
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { CheckoutModeEnum, PaymentIntentStatusEnum } from '../../graphql/enums';
import { NodeInterface } from '../../graphql/node';
import { money, MoneyType, type Money } from '../../graphql/money';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { NextActionType } from '../methods/next-action.types';
import { NextStepUnion } from '../methods/next-step.types';
import type { NextAction } from '../methods/next-action';

@ObjectType('PaymentReceipt', { description: 'Present once the payment succeeded.' })
export class PaymentReceiptType {
  @Field(() => String, { name: 'receiptNumber' })
  receipt_number: string;

  @Field(() => String, { description: 'Minor units.', simple: true })
  amount: string;

  @Field(() => String, { simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => String, { name: 'paymentMethod' })
  payment_method: string;

  @Field(() => String, { nullable: true, simple: true })
  bank: string | null;

  @Field(() => String, { description: 'The payer-facing payment reference.', simple: true })
  reference: string;

  @Field(() => DateTimeScalar, { name: 'paidAt' })
  paid_at: string;
}

@ObjectType('PaymentIntent', { implements: NodeInterface, description: 'A payment a payer makes to the merchant, with the method and next action it needs.' })
export class PaymentIntentType extends IntentFields {
  @Field(() => CheckoutModeEnum, { name: 'checkoutMode' })
  checkout_mode: CheckoutModeEnum;

  @Field(() => PaymentIntentStatusEnum, { simple: true })
  status: PaymentIntentStatusEnum;

  @Field(() => String, { name: 'paymentMethod', nullable: true, description: 'Null in hosted checkout until the payer picks a method.' })
  payment_method: string | null;

  @Field(() => NextActionType, {
    name: 'nextAction',
    nullable: true,
    description: 'What the payer must do next; null once nothing is.',
    deprecationReason: 'Use nextStep: one type per kind, selected with inline fragments.',
  })
  next_action: NextActionType | null;

  @Field(() => NextStepUnion, { nullable: true, description: 'What the payer must do next, one type per kind; null once nothing is.' })
  get nextStep(): NextAction | null {
    return this.next_action as NextAction | null;
  }

  @Field(() => String, {
    name: 'processingReason',
    nullable: true,
    description: 'Why the payment is processing (provider_confirmation, risk_review); null in every other state.',
  })
  processing_reason: string | null;

  @Field(() => PaymentReceiptType, { nullable: true, simple: true })
  receipt: PaymentReceiptType | null;

  @Field(() => String, { name: 'amountRefunded', description: 'Minor units: the sum of the refunds that have not failed; "0" when none.' })
  amount_refunded: string;

  @Field(() => MoneyType, { description: '`amountRefunded` as Money.' })
  get amountRefundedMoney(): Money {
    return money(this.amount_refunded, this.currency);
  }

  @Field(() => ID, {
    name: 'paymentLinkId',
    nullable: true,
    description: 'The payment link the payer started from (REST `payment_link`); null for an intent created through the API. `paymentLink` resolves it.',
  })
  payment_link: string | null;
}

@ObjectType('PaymentCustomer', { description: 'The payer identity and contact details the intent was created with (or completed on the hosted page).' })
export class PaymentCustomerType {
  @Field(() => String, { nullable: true, description: "The payer's name." })
  name?: string;

  @Field(() => String, { nullable: true, description: "The payer's email address." })
  email?: string;

  @Field(() => String, { nullable: true, description: "The payer's phone number, E.164." })
  phone?: string;

  @Field(() => String, { nullable: true, description: "The merchant's id for the payer." })
  reference?: string;
}

export const PaymentIntentConnection = Connection('PaymentIntent', PaymentIntentType);

@InputType('PaymentCustomerInput', { description: 'Payer identity and contact details; at least one field.' })
export class PaymentCustomerInput {
  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => String, { nullable: true })
  email?: string;

  @Field(() => String, { nullable: true, description: 'E.164, e.g. +66812345678.' })
  phone?: string;

  @Field(() => String, { nullable: true, description: "The merchant's id for the payer." })
  reference?: string;
}

@InputType('PaymentMethodOptionsInput', { description: 'Route inputs for the selected method (discovery options.payer fields).' })
export class PaymentMethodOptionsInput {
  @Field(() => String, { nullable: true })
  accountName?: string;

  @Field(() => String, { nullable: true })
  accountNumber?: string;

  @Field(() => String, { nullable: true })
  bank?: string;

  @Field(() => String, { nullable: true })
  nameTh?: string;
}

@InputType('CreatePaymentIntentInput')
export class CreatePaymentIntentInput extends CreateIntentFields {
  @Field(() => CheckoutModeEnum, { nullable: true, description: 'Default DIRECT.' })
  checkoutMode?: CheckoutModeEnum;

  @Field(() => PaymentCustomerInput)
  customer: PaymentCustomerInput;

  @Field(() => String, { nullable: true, description: 'Omit in hosted checkout, or to let the service pick.' })
  paymentMethod?: string;

  @Field(() => PaymentMethodOptionsInput, { nullable: true })
  paymentMethodOptions?: PaymentMethodOptionsInput;

  @Field(() => String, { nullable: true })
  returnUrl?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String keys to string values; keys are kept as sent.' })
  metadata?: Record<string, unknown>;

  @Field(() => String, { nullable: true })
  deviceFingerprint?: string;

  @Field(() => String, { nullable: true })
  externalReference?: string;
}

@InputType('PaymentIntentFilter')
export class PaymentIntentFilter extends IntentFilterFields {
  @Field(() => [PaymentIntentStatusEnum], { nullable: true })
  status?: PaymentIntentStatusEnum[];
}
