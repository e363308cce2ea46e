/**
 * GraphQL types for payout intents. Output types are views over the REST wire record:
 * each field's schema name is camelCase and it reads the snake_case wire property, so the
 * same object (fresh, replayed, or from an event) serves both surfaces. Input types are
 * camelCase and reach the domain through `snakeKeys`, i.e. as the REST body.
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum, PayoutIntentStatusEnum, RecipientTypeEnum } from '../../graphql/enums';

@ObjectType('PayoutRecipient')
export class PayoutRecipientType {
  @Field(() => RecipientTypeEnum)
  type: RecipientTypeEnum;

  @Field(() => String, { name: 'accountLast4', description: 'Last four characters of the account number; the full number is never returned.' })
  account_last4: string;

  @Field(() => String, { name: 'bankCode' })
  bank_code: string;

  @Field(() => String, { name: 'holderName' })
  holder_name: string;
}

@ObjectType('PayoutIntent')
export class PayoutIntentType {
  @Field(() => ID)
  id: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.' })
  amount: string;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  country: string;

  @Field(() => EnvironmentEnum)
  environment: EnvironmentEnum;

  @Field(() => PayoutIntentStatusEnum)
  status: PayoutIntentStatusEnum;

  @Field(() => String, { name: 'merchantReference' })
  merchant_reference: string;

  @Field(() => PayoutRecipientType)
  recipient: PayoutRecipientType;

  @Field(() => String, { name: 'failureCode', nullable: true })
  failure_code: string | null;

  @Field(() => String, { name: 'failureMessage', nullable: true })
  failure_message: string | null;

  @Field(() => DateTimeScalar, { name: 'createdAt' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt' })
  updated_at: string;
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
export class CreatePayoutIntentInput {
  @Field(() => String, { description: 'Minor units, as a string of digits.' })
  amount: string;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  country: string;

  @Field(() => String)
  merchantReference: string;

  @Field(() => PayoutRecipientInput)
  recipient: PayoutRecipientInput;
}

@InputType('PayoutIntentFilter')
export class PayoutIntentFilter {
  @Field(() => [PayoutIntentStatusEnum], { nullable: true })
  status?: PayoutIntentStatusEnum[];

  @Field(() => String, { nullable: true })
  country?: string;

  @Field(() => String, { nullable: true })
  currency?: string;

  @Field(() => String, { nullable: true })
  merchantReference?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
