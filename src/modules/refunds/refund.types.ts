/**
 * GraphQL types for refunds. Output types are views over the REST wire record: each
 * field's schema name is camelCase and it reads the snake_case wire property, so the same
 * object (fresh, replayed, or from an event) serves both surfaces. Inputs are camelCase
 * and reach the domain through `snakeKeys`, i.e. as the REST body.
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { DateTimeScalar } from '../../graphql/scalars';
import { IntentFilterFields } from '../../graphql/intent.types';
import { money, MoneyInput, MoneyType, type Money } from '../../graphql/money';
import { NodeInterface } from '../../graphql/node';
import { EnvironmentEnum, failureCodeEnum, FailureCodeEnum, stateEnum } from '../../graphql/enums';
import { REFUND_STATUSES, type RefundStatus } from './refund.states';

export const RefundStatusEnum = stateEnum(REFUND_STATUSES, 'RefundStatus', 'refund', {
  pending: 'Sent to the provider; its amount already counts in amountRefunded.',
  succeeded: 'The payer got the money back.',
  failed: 'The provider refused it; its amount was given back.',
});
export type RefundStatusEnum = RefundStatus;

@ObjectType('Refund', { implements: NodeInterface, description: 'Money returned to the payer of a succeeded payment intent, in full or in part.' })
export class RefundType {
  @Field(() => ID, { description: 're_ id.', simple: true })
  id: string;

  @Field(() => ID, {
    name: 'paymentIntentId',
    description: 'The refunded payment intent (REST `payment_intent`); `paymentIntent` resolves it.',
  })
  payment_intent: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.', simple: true })
  amount: string;

  @Field(() => String, { description: "The payment intent's currency.", simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => EnvironmentEnum, { description: 'The environment of the key that created it.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => RefundStatusEnum, { description: 'Where the refund is in its lifecycle.', simple: true })
  status: RefundStatusEnum;

  @Field(() => String, { description: 'Why the merchant refunds, as sent; null when none.', nullable: true, simple: true })
  reason: string | null;

  @Field(() => String, {
    description: "The merchant's own reference; a repeat with the same details returns the original refund.",
    name: 'merchantReference',
    nullable: true,
  })
  merchant_reference: string | null;

  @Field(() => String, { description: 'Why it failed, as a code; null otherwise.', name: 'failureCode', nullable: true })
  failure_code: string | null;

  @Field(() => FailureCodeEnum, { nullable: true, description: '`failureCode` as a FailureCode (OTHER for a code outside the list); null otherwise.' })
  get failureCodeEnum(): FailureCodeEnum | null {
    return failureCodeEnum(this.failure_code);
  }

  @Field(() => String, { description: 'Why it failed, for people; null otherwise.', name: 'failureMessage', nullable: true })
  failure_message: string | null;

  @Field(() => DateTimeScalar, { description: 'When it was created.', name: 'createdAt' })
  created_at: string;

  @Field(() => DateTimeScalar, { description: 'When it last changed.', name: 'updatedAt' })
  updated_at: string;
}

export const RefundConnection = Connection('Refund', RefundType);

@InputType('CreateRefundInput', { description: 'A refund of a succeeded payment intent, in full or in part.' })
export class CreateRefundInput {
  @Field(() => ID, { description: 'The succeeded payment intent to refund.' })
  paymentIntent: string;

  @Field(() => MoneyInput, {
    nullable: true,
    description: "The amount and its currency, which must be the payment intent's. Give this, or the deprecated amount; neither: what is still refundable.",
  })
  amountMoney?: MoneyInput;

  @Field(() => String, {
    nullable: true,
    description: 'Minor units, as a string of digits. Omitted: what is still refundable.',
    deprecationReason: 'Use amountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  amount?: string;

  @Field(() => String, { nullable: true, description: 'At most 512 characters; blank means none.' })
  reason?: string;

  @Field(() => String, { nullable: true, description: "Unique among the merchant's refunds: a repeat returns the original refund." })
  merchantReference?: string;
}

/** The listing filters of docs/contract.md, plus `paymentIntent` (REST `payment_intent`). */
@InputType('RefundFilter', { description: 'Filters of the refund list.' })
export class RefundFilter extends IntentFilterFields {
  @Field(() => [RefundStatusEnum], { description: 'Only refunds in these states.', nullable: true })
  status?: RefundStatusEnum[];

  @Field(() => ID, { nullable: true, description: 'Only the refunds of this payment intent.' })
  paymentIntent?: string;

  @Field(() => String, { nullable: true, description: "The refunded payment intent's country." })
  declare country?: string;
}
