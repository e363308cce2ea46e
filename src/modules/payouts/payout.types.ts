/**
 * GraphQL types for payout intents. Output types are views over the REST wire record:
 * each field's schema name is camelCase and it reads the snake_case wire property, so the
 * same object (fresh, replayed, or from an event) serves both surfaces. Input types are
 * camelCase and reach the domain through `snakeKeys`, i.e. as the REST body.
 */
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ApprovalType } from '../../graphql/actor.types';
import { Connection } from '../../graphql/connection';
import { PayoutIntentStatusEnum, RecipientTypeEnum } from '../../graphql/enums';
import { NodeInterface } from '../../graphql/node';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';

@ObjectType('PayoutRecipient')
export class PayoutRecipientType {
  @Field(() => RecipientTypeEnum, { simple: true })
  type: RecipientTypeEnum;

  @Field(() => String, {
    name: 'accountLast4',
    description: 'Last four characters of the account number; the full number is never returned.',
  })
  account_last4: string;

  @Field(() => String, { name: 'bankCode' })
  bank_code: string;

  @Field(() => String, { name: 'holderName' })
  holder_name: string;
}

@ObjectType('PayoutIntent', { implements: NodeInterface, description: 'Money sent from the available balance to a bank account, after approval.' })
export class PayoutIntentType extends IntentFields {
  @Field(() => PayoutIntentStatusEnum, { simple: true })
  status: PayoutIntentStatusEnum;

  @Field(() => PayoutRecipientType, { simple: true })
  recipient: PayoutRecipientType;

  @Field(() => ID, {
    name: 'payoutBatch',
    nullable: true,
    description: 'The payout batch this payout was approved with; null for a payout created on its own.',
    simple: true,
  })
  payout_batch: string | null;

  @Field(() => Int, { name: 'approvalsRequired', description: 'Approvals it needs to move to processing: its approval policy at creation (1 without one).' })
  approvals_required: number;

  @Field(() => [ApprovalType], { simple: true, description: 'The approvals recorded so far, oldest first.' })
  approvals: ApprovalType[];
}

export const PayoutIntentConnection = Connection('PayoutIntent', PayoutIntentType);

@InputType('PayoutRecipientInput')
export class PayoutRecipientInput {
  @Field(() => RecipientTypeEnum, { defaultValue: RecipientTypeEnum.BANK_ACCOUNT })
  type: RecipientTypeEnum;

  @Field(() => String)
  bankCode: string;

  @Field(() => String)
  accountNumber: string;

  @Field(() => String)
  holderName: string;
}

@InputType('CreatePayoutIntentInput')
export class CreatePayoutIntentInput extends CreateIntentFields {
  @Field(() => PayoutRecipientInput)
  recipient: PayoutRecipientInput;
}

@InputType('PayoutIntentFilter')
export class PayoutIntentFilter extends IntentFilterFields {
  @Field(() => [PayoutIntentStatusEnum], { nullable: true })
  status?: PayoutIntentStatusEnum[];

  @Field(() => ID, { nullable: true, description: 'Only the payout intents of this payout batch.' })
  payoutBatch?: string;
}
