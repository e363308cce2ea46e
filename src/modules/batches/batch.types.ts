/**
 * GraphQL types for payout batches: views over the REST wire record (camelCase names read
 * the snake_case wire properties), as for the other resources.
 */
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ApprovalType } from '../../graphql/actor.types';
import { Connection } from '../../graphql/connection';
import { DateTimeScalar } from '../../graphql/scalars';
import { NodeInterface } from '../../graphql/node';
import { money, MoneyType, type Money } from '../../graphql/money';
import { BATCH_STATUSES, type BatchStatus } from './batch.states';

const STATUS_MEANING: Record<BatchStatus, string> = {
  invalid: 'Some row failed its checks: nothing was created; errors lists every row.',
  requires_approval: 'Valid; its totals are reserved, waiting for approval.',
  processing: 'Approved: every row is a payout intent, settling.',
  cancelled: 'Cancelled before approval; the reservation was released.',
  completed: 'Every payout succeeded.',
  partially_completed: 'Every payout settled, some failed (their amounts went back to the balance).',
};

export const PayoutBatchStatusEnum = Object.fromEntries(BATCH_STATUSES.map((s) => [s.toUpperCase(), s])) as { [K in BatchStatus as Uppercase<K>]: K };
export type PayoutBatchStatusEnum = BatchStatus;
registerEnumType(PayoutBatchStatusEnum, {
  name: 'PayoutBatchStatus',
  description: 'Where a payout batch is in its lifecycle.',
  valuesConfig: Object.fromEntries(BATCH_STATUSES.map((s) => [s.toUpperCase(), { description: STATUS_MEANING[s] }])),
});

@ObjectType('PayoutBatchTotal', { description: "The sum of a batch's items in one currency." })
export class PayoutBatchTotalType {
  @Field(() => String, { description: 'ISO 4217 code.', simple: true })
  currency: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.', simple: true })
  amount: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }
}

@ObjectType('PayoutBatchRowError', { description: 'The first error of one row of a batch.' })
export class PayoutBatchRowErrorType {
  @Field(() => Int, { description: 'From 1: the first item, or the first line after the CSV header.', simple: true })
  row: number;

  @Field(() => String, { description: 'The field of the row, in REST names (recipient.bank_code).', simple: true })
  param: string;

  @Field(() => String, { description: 'What is wrong with it.', simple: true })
  message: string;
}

@ObjectType('PayoutBatch', { implements: NodeInterface, description: 'Many payouts created, approved or cancelled together.' })
export class PayoutBatchType {
  @Field(() => ID, { description: 'pob_...', simple: true })
  id: string;

  @Field(() => PayoutBatchStatusEnum, { description: 'Where the batch is in its lifecycle.', simple: true })
  status: PayoutBatchStatusEnum;

  @Field(() => Int, { name: 'itemCount', description: 'Rows in the batch.' })
  item_count: number;

  @Field(() => [PayoutBatchTotalType], { description: 'Sum of the items per currency; empty for an invalid batch.', simple: true })
  totals: PayoutBatchTotalType[];

  @Field(() => [PayoutBatchRowErrorType], { description: "Every invalid row's error; empty unless the batch is invalid.", simple: true })
  errors: PayoutBatchRowErrorType[];

  @Field(() => Int, {
    name: 'approvalsRequired',
    description: 'Approvals it needs to move to processing: the strictest approval policy of its totals at creation (1 without one).',
  })
  approvals_required: number;

  @Field(() => [ApprovalType], { simple: true, description: 'The approvals recorded so far, oldest first.' })
  approvals: ApprovalType[];

  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When it was created.' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'When it last changed.' })
  updated_at: string;
}

export const PayoutBatchConnection = Connection('PayoutBatch', PayoutBatchType);

@InputType('PayoutBatchFilter', { description: 'Filters of the payout batch list.' })
export class PayoutBatchFilter {
  @Field(() => [PayoutBatchStatusEnum], { nullable: true, description: 'Only batches in these states.' })
  status?: PayoutBatchStatusEnum[];

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
