/**
 * Money on the GraphQL surface: every amount keeps its contract field (a String of minor
 * units beside a String currency) and gains a `Money` object beside it, `amountMoney` and
 * friends, which says how to read it: the minor units, the currency, its exponent and the
 * amount as a decimal string in major units. A type adds one with a getter (docs/graphql.md):
 *
 *     @Field(() => MoneyType, { description: 'The amount, as Money.' })
 *     get amountMoney(): Money { return money(this.amount, this.currency); }
 *
 * (type-graphql calls a getter of the type's class on the wire record.) Amounts never pass
 * through a JavaScript number.
 */
import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { exponentOf, toMajorString } from '../domain/currency';

const CURRENCY_SHAPE = /^[A-Z][A-Z0-9]{2,5}$/;

function currencyCode(value: unknown): string {
  if (typeof value !== 'string' || !CURRENCY_SHAPE.test(value)) throw new GraphQLError('CurrencyCode must be an upper-case currency code, e.g. THB');
  return value;
}

/** A currency code: ISO 4217 alphabetic (THB, JPY) or one of the few token symbols the service accepts (docs/api.md). */
export const CurrencyCodeScalar = new GraphQLScalarType({
  name: 'CurrencyCode',
  description:
    'An upper-case currency code: ISO 4217 alphabetic (THB, JPY, KWD) or a token symbol the service accepts (docs/api.md, "Currencies and countries").',
  serialize: currencyCode,
  parseValue: currencyCode,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('CurrencyCode must be a string');
    return currencyCode(ast.value);
  },
});

@ObjectType('Money', { description: 'An amount of money: minor units of a currency, with what a person reads.' })
export class MoneyType {
  @Field(() => String, { description: 'The amount in minor units, as a string of digits (a leading minus for a negative amount).', simple: true })
  minorUnits: string;

  @Field(() => CurrencyCodeScalar, { description: 'The currency.', simple: true })
  currency: string;

  @Field(() => Int, { description: 'Digits after the decimal point in major units: 2 for THB, 0 for JPY, 3 for KWD.', simple: true })
  exponent: number;

  @Field(() => String, {
    description: 'The amount in major units as a decimal string with exactly `exponent` fraction digits and no grouping, e.g. "150.50" for 15050 THB.',
    simple: true,
  })
  decimal: string;
}

export type Money = MoneyType;

/** The Money of a minor-unit amount string and its currency. */
export function money(minorUnits: string, currency: string): Money {
  const negative = minorUnits.startsWith('-');
  const digits = negative ? minorUnits.slice(1) : minorUnits;
  const decimal = toMajorString(BigInt(digits), currency);
  return { minorUnits, currency, exponent: exponentOf(currency), decimal: negative ? `-${decimal}` : decimal };
}

/** The Money of an amount that may be absent (a limit, an optional amount): null when absent. */
export function moneyOrNull(minorUnits: string | null | undefined, currency: string | null | undefined): Money | null {
  return minorUnits === null || minorUnits === undefined || !currency ? null : money(minorUnits, currency);
}

@InputType('MoneyInput', { description: 'An amount going in: minor units of a currency (the input form of Money).' })
export class MoneyInput {
  @Field(() => String, { description: 'The amount in minor units, as a string of digits ("15050" is 150.50 THB).' })
  minorUnits: string;

  @Field(() => CurrencyCodeScalar, { description: 'The currency of the amount.' })
  currency: string;
}
