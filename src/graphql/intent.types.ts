/**
 * GraphQL fields that every intent resource shares (payouts, topups, payments). Output
 * fields read the snake_case REST wire record under camelCase names, as plain property reads
 * (`simple: true`): the record answers those names itself (src/domain/wire-record.ts).
 * Each resource adds its own `status` enum and fields. These bases are not reachable from the
 * schema, so type-graphql does not emit them as types of their own.
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars';
import { EnvironmentEnum, failureCodeEnum, FailureCodeEnum } from './enums';
import { money, MoneyInput, MoneyType, type Money } from './money';
import { GraphQLError } from 'graphql';

@ObjectType()
export abstract class IntentFields {
  @Field(() => ID, { description: 'The global id (pi_, po_, tu_ by resource).', simple: true })
  id: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.', simple: true })
  amount: string;

  @Field(() => String, { description: 'ISO 4217 currency code (or an accepted token symbol).', simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money: minor units, currency, exponent and the decimal major-unit string.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => String, { description: 'ISO 3166-1 alpha-2 country code.', simple: true })
  country: string;

  @Field(() => EnvironmentEnum, { description: 'The environment of the key that created it.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => String, { name: 'merchantReference', simple: true, description: "The merchant's own reference, unique per resource, merchant and environment." })
  merchant_reference: string;

  @Field(() => String, { name: 'failureCode', simple: true, nullable: true, description: 'Why it failed or was cancelled, as a code; null otherwise.' })
  failure_code: string | null;

  @Field(() => FailureCodeEnum, { nullable: true, description: '`failureCode` as a FailureCode (OTHER for a code outside the list); null otherwise.' })
  get failureCodeEnum(): FailureCodeEnum | null {
    return failureCodeEnum(this.failure_code);
  }

  @Field(() => String, { name: 'failureMessage', simple: true, nullable: true, description: 'Why it failed or was cancelled, for people; null otherwise.' })
  failure_message: string | null;

  @Field(() => DateTimeScalar, { name: 'createdAt', simple: true, description: 'When it was created.' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt', simple: true, description: 'When it last changed.' })
  updated_at: string;
}

/** The create fields every intent requires; the REST body names are their snake_case forms. */
@InputType()
export abstract class CreateIntentFields {
  @Field(() => MoneyInput, { nullable: true, description: 'The amount and its currency. Give this, or the deprecated amount and currency.' })
  amountMoney?: MoneyInput;

  @Field(() => String, {
    nullable: true,
    description: 'Minor units, as a string of digits.',
    deprecationReason: 'Use amountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  amount?: string;

  @Field(() => String, {
    nullable: true,
    description: 'ISO 4217 currency code (or an accepted token symbol).',
    deprecationReason: 'Use amountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  currency?: string;

  @Field(() => String, { description: 'ISO 3166-1 alpha-2 country code.' })
  country: string;

  @Field(() => String, { description: 'Your own reference: a repeat with the same details returns the original record.' })
  merchantReference: string;
}

/** The listing filters of docs/contract.md other than `status` (whose enum is per resource). */
@InputType()
export abstract class IntentFilterFields {
  @Field(() => String, { nullable: true, description: 'Only this country.' })
  country?: string;

  @Field(() => String, { nullable: true, description: 'Only this currency.' })
  currency?: string;

  @Field(() => String, { nullable: true, description: 'Only the record with this merchant reference.' })
  merchantReference?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}

/**
 * Exactly one form of an amount going in: its Money form (`field`, a MoneyInput) or the
 * deprecated strings it replaces. Both at once is a validation_error whose param is the
 * Money field's GraphQL path (`input.amountMoney`, `amountMoney` for an argument); every
 * input that takes money goes through here, so each refuses the same way. Returns the
 * Money form when given.
 */
export function oneAmountForm<M extends object>(
  field: string,
  moneyForm: M | null | undefined,
  strings: Record<string, unknown>,
  paramPrefix = 'input',
): M | undefined {
  if (moneyForm === undefined || moneyForm === null) return undefined;
  const given = Object.keys(strings).filter((k) => strings[k] !== undefined && strings[k] !== null);
  if (given.length > 0) {
    const param = paramPrefix ? `${paramPrefix}.${field}` : field;
    throw new GraphQLError(`Give either ${field} or ${Object.keys(strings).join(' and ')}, not both.`, { extensions: { code: 'validation_error', param } });
  }
  return moneyForm;
}

/**
 * A create input with `amountMoney` as the REST body's `amount` and `currency` (so a request
 * fingerprints the same in either form). Both forms at once is a validation_error on `input.amountMoney`.
 */
export function withAmountFields<T extends CreateIntentFields>(input: T, paramPrefix = 'input'): Omit<T, 'amountMoney'> {
  const { amountMoney, ...rest } = input;
  const given = oneAmountForm('amountMoney', amountMoney, { amount: rest.amount, currency: rest.currency }, paramPrefix);
  return given ? { ...rest, amount: given.minorUnits, currency: given.currency } : rest;
}
