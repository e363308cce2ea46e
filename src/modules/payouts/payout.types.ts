/**
 * GraphQL types for payout intents. Output types are views over the REST wire record:
 * each field's schema name is camelCase and it reads the snake_case wire property, so the
 * same object (fresh, replayed, or from an event) serves both surfaces; the record answers
 * the camelCase names itself (src/domain/wire-record.ts), so they are plain property
 * reads (`simple: true`). Input types are camelCase and reach the domain through `snakeKeys`,
 * i.e. as the REST body.
 */
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ApprovalType } from '../../graphql/actor.types';
import { Connection } from '../../graphql/connection';
import { NodeInterface } from '../../graphql/node';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { stateEnum } from '../../graphql/enums';
import { PAYOUT_STATUSES, type PayoutStatus } from './payout.states';

export const PayoutIntentStatusEnum = stateEnum(PAYOUT_STATUSES, 'PayoutIntentStatus', 'payout intent', {
  requires_approval: 'Created, its amount reserved; waits for approval (or cancel).',
  processing: 'Approved and sent to the provider.',
  succeeded: 'The recipient was paid.',
  failed: 'The provider refused it; the amount went back to the balance.',
  cancelled: 'Cancelled before approval; the reservation was released.',
});
export type PayoutIntentStatusEnum = PayoutStatus;

export enum RecipientTypeEnum {
  BANK_ACCOUNT = 'bank_account',
}
registerEnumType(RecipientTypeEnum, {
  name: 'RecipientType',
  description: 'What a payout is sent to.',
  valuesConfig: { BANK_ACCOUNT: { description: 'A bank account: bank code, account number and holder name.' } },
});

@ObjectType('PayoutRecipient', { description: 'Who a payout is sent to.' })
export class PayoutRecipientType {
  @Field(() => RecipientTypeEnum, { description: 'What the recipient is: BANK_ACCOUNT.', simple: true })
  type: RecipientTypeEnum;

  @Field(() => String, {
    name: 'accountLast4',
    simple: true,
    description: 'Last four characters of the account number; the full number is never returned.',
  })
  account_last4: string;

  @Field(() => String, { description: 'Provider-neutral bank code, e.g. KBANK.', name: 'bankCode', simple: true })
  bank_code: string;

  @Field(() => String, { description: "The account holder's name.", name: 'holderName', simple: true })
  holder_name: string;
}

@ObjectType('PayoutIntent', { implements: NodeInterface, description: 'Money sent from the available balance to a bank account, after approval.' })
export class PayoutIntentType extends IntentFields {
  @Field(() => PayoutIntentStatusEnum, { description: 'Where the payout is in its lifecycle.', simple: true })
  status: PayoutIntentStatusEnum;

  @Field(() => PayoutRecipientType, { description: 'Who the payout is sent to (the account number masked).', simple: true })
  recipient: PayoutRecipientType;

  @Field(() => ID, {
    name: 'payoutBatch',
    nullable: true,
    description: 'The payout batch this payout was approved with; null for a payout created on its own.',
    simple: true,
  })
  payout_batch: string | null;

  @Field(() => Int, {
    name: 'approvalsRequired',
    simple: true,
    description: 'Approvals it needs to move to processing: its approval policy at creation (1 without one).',
  })
  approvals_required: number;

  @Field(() => [ApprovalType], { simple: true, description: 'The approvals recorded so far, oldest first.' })
  approvals: ApprovalType[];
}

export const PayoutIntentConnection = Connection('PayoutIntent', PayoutIntentType);

@InputType('PayoutRecipientInput', { description: 'Who to send a payout to.' })
export class PayoutRecipientInput {
  @Field(() => RecipientTypeEnum, { description: 'What the recipient is; BANK_ACCOUNT, the default.', defaultValue: RecipientTypeEnum.BANK_ACCOUNT })
  type: RecipientTypeEnum;

  @Field(() => String, { description: 'Provider-neutral bank code, e.g. KBANK.' })
  bankCode: string;

  @Field(() => String, { description: 'The account number, digits only.' })
  accountNumber: string;

  @Field(() => String, { description: "The account holder's name." })
  holderName: string;
}

@InputType('CreatePayoutIntentInput', { description: 'A new payout intent.' })
export class CreatePayoutIntentInput extends CreateIntentFields {
  @Field(() => PayoutRecipientInput, { description: 'Who to send the payout to.' })
  recipient: PayoutRecipientInput;
}

@InputType('PayoutIntentFilter', { description: 'Filters of the payout intent list.' })
export class PayoutIntentFilter extends IntentFilterFields {
  @Field(() => [PayoutIntentStatusEnum], { description: 'Only payouts in these states.', nullable: true })
  status?: PayoutIntentStatusEnum[];

  @Field(() => ID, { nullable: true, description: 'Only the payout intents of this payout batch.' })
  payoutBatch?: string;
}
