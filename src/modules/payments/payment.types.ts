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
import { CheckoutModeEnum, paymentMethodEnum, PaymentMethodEnum } from '../methods/method.enums';
import { NodeInterface } from '../../graphql/node';
import { money, MoneyType, type Money } from '../../graphql/money';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { NextActionType } from '../methods/next-action.types';
import { NextStepUnion } from '../methods/next-step.types';
import type { NextAction } from '../methods/next-action';
import { stateEnum } from '../../graphql/enums';
import { PAYMENT_STATUSES, type PaymentStatus } from './payment.states';

export const PaymentIntentStatusEnum = stateEnum(PAYMENT_STATUSES, 'PaymentIntentStatus', 'payment intent', {
  requires_action: 'Waiting for the payer (nextStep says what to do).',
  processing: 'The payer acted; the provider is confirming (processingReason says why).',
  succeeded: 'Paid: receipt is present.',
  failed: 'Not paid: failureCode and failureMessage say why.',
  cancelled: 'Cancelled by the merchant before the payer paid.',
  expired: 'The payer did not pay in time.',
});
export type PaymentIntentStatusEnum = PaymentStatus;

@ObjectType('PaymentReceipt', { description: 'Present once the payment succeeded.' })
export class PaymentReceiptType {
  @Field(() => String, { description: 'The receipt number, for the payer.', name: 'receiptNumber' })
  receipt_number: string;

  @Field(() => String, { description: 'Minor units.', simple: true })
  amount: string;

  @Field(() => String, { description: 'The currency of the amount.', simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => String, { description: 'The method the payer paid with.', name: 'paymentMethod' })
  payment_method: string;

  @Field(() => PaymentMethodEnum, { description: '`paymentMethod` as a PaymentMethod.', nullable: true })
  get paymentMethodEnum(): PaymentMethodEnum | null {
    return paymentMethodEnum(this.payment_method);
  }

  @Field(() => String, { description: "The payer's bank code; null for methods without one.", nullable: true, simple: true })
  bank: string | null;

  @Field(() => String, { description: 'The payer-facing payment reference.', simple: true })
  reference: string;

  @Field(() => DateTimeScalar, { description: 'When the payment succeeded.', name: 'paidAt' })
  paid_at: string;
}

@ObjectType('PaymentIntent', { implements: NodeInterface, description: 'A payment a payer makes to the merchant, with the method and next action it needs.' })
export class PaymentIntentType extends IntentFields {
  @Field(() => CheckoutModeEnum, { description: 'DIRECT or HOSTED.', name: 'checkoutMode' })
  checkout_mode: CheckoutModeEnum;

  @Field(() => PaymentIntentStatusEnum, { description: 'Where the payment is in its lifecycle.', simple: true })
  status: PaymentIntentStatusEnum;

  @Field(() => String, { name: 'paymentMethod', nullable: true, description: 'Null in hosted checkout until the payer picks a method.' })
  payment_method: string | null;

  @Field(() => PaymentMethodEnum, {
    nullable: true,
    description: '`paymentMethod` as a PaymentMethod; null in hosted checkout until the payer picks a method.',
  })
  get paymentMethodEnum(): PaymentMethodEnum | null {
    return paymentMethodEnum(this.payment_method);
  }

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

  @Field(() => PaymentReceiptType, { description: 'The receipt; present once the payment succeeded.', nullable: true, simple: true })
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
  @Field(() => String, { description: "The payer's name.", nullable: true })
  name?: string;

  @Field(() => String, { description: "The payer's email address.", nullable: true })
  email?: string;

  @Field(() => String, { nullable: true, description: 'E.164, e.g. +66812345678.' })
  phone?: string;

  @Field(() => String, { nullable: true, description: "The merchant's id for the payer." })
  reference?: string;
}

@InputType('PaymentMethodOptionsInput', { description: 'Route inputs for the selected method (discovery options.payer fields).' })
export class PaymentMethodOptionsInput {
  @Field(() => String, { description: "The payer's account name (methods that need it, see payer requirements).", nullable: true })
  accountName?: string;

  @Field(() => String, { description: "The payer's account number, digits only.", nullable: true })
  accountNumber?: string;

  @Field(() => String, { description: 'Provider-neutral bank code, e.g. KBANK.', nullable: true })
  bank?: string;

  @Field(() => String, { description: "The payer's name in Thai script.", nullable: true })
  nameTh?: string;
}

@InputType('CreatePaymentIntentInput', { description: 'A new payment intent.' })
export class CreatePaymentIntentInput extends CreateIntentFields {
  @Field(() => CheckoutModeEnum, { nullable: true, description: 'Default DIRECT.' })
  checkoutMode?: CheckoutModeEnum;

  @Field(() => PaymentCustomerInput, { description: 'Payer identity and contact details; at least one field.' })
  customer: PaymentCustomerInput;

  @Field(() => PaymentMethodEnum, {
    nullable: true,
    description: 'The method (the enum form of paymentMethod); omit in hosted checkout, or to let the service pick. Not together with paymentMethod.',
  })
  paymentMethodEnum?: PaymentMethodEnum;

  @Field(() => String, {
    nullable: true,
    description: 'The method name; omit in hosted checkout, or to let the service pick. paymentMethodEnum is its enum form.',
  })
  paymentMethod?: string;

  @Field(() => PaymentMethodOptionsInput, { description: 'Payer inputs the chosen method needs (paymentMethodOptions.payer of discovery).', nullable: true })
  paymentMethodOptions?: PaymentMethodOptionsInput;

  @Field(() => String, { description: 'Where the hosted checkout sends the payer after paying.', nullable: true })
  returnUrl?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'String keys to string values; keys are kept as sent.' })
  metadata?: Record<string, unknown>;

  @Field(() => String, { description: "The payer device's fingerprint, for risk checks.", nullable: true })
  deviceFingerprint?: string;

  @Field(() => String, { description: 'A reference of another system; part of the fingerprint.', nullable: true })
  externalReference?: string;
}

@InputType('PaymentIntentFilter', { description: 'Filters of the payment intent list.' })
export class PaymentIntentFilter extends IntentFilterFields {
  @Field(() => [PaymentIntentStatusEnum], { description: 'Only payments in these states.', nullable: true })
  status?: PaymentIntentStatusEnum[];
}
