/**
 * GraphQL fields that every intent resource shares (payouts, topups, payments). Output
 * fields read the snake_case REST wire record under camelCase names; each resource adds its
 * own `status` enum and fields. These bases are not reachable from the schema, so
 * type-graphql does not emit them as types of their own.
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars';
import { EnvironmentEnum } from './enums';
import { money, MoneyType, type Money } from './money';

@ObjectType()
export abstract class IntentFields {
  @Field(() => ID, { simple: true })
  id: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.', simple: true })
  amount: string;

  @Field(() => String, { simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money: minor units, currency, exponent and the decimal major-unit string.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => String, { simple: true })
  country: string;

  @Field(() => EnvironmentEnum, { simple: true })
  environment: EnvironmentEnum;

  @Field(() => String, { name: 'merchantReference' })
  merchant_reference: string;

  @Field(() => String, { name: 'failureCode', nullable: true })
  failure_code: string | null;

  @Field(() => String, { name: 'failureMessage', nullable: true })
  failure_message: string | null;

  @Field(() => DateTimeScalar, { name: 'createdAt' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt' })
  updated_at: string;
}

/** The create fields every intent requires; the REST body names are their snake_case forms. */
@InputType()
export abstract class CreateIntentFields {
  @Field(() => String, { description: 'Minor units, as a string of digits.' })
  amount: string;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  country: string;

  @Field(() => String)
  merchantReference: string;
}

/** The listing filters of docs/contract.md other than `status` (whose enum is per resource). */
@InputType()
export abstract class IntentFilterFields {
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
