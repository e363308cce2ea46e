/** GraphQL types of balance transactions: views over the REST wire record (camelCase names read its snake_case properties). */
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';
import { DateTimeScalar } from '../../graphql/scalars';
import { NodeInterface } from '../../graphql/node';
import { money, MoneyType, type Money } from '../../graphql/money';
import { BALANCE_TRANSACTION_TYPES, type BalanceTransactionType as TxnType } from '../balances/finance.entity';

const TYPE_DESCRIPTIONS: Record<TxnType, string> = {
  payment: 'A payment succeeded: its amount came in.',
  payment_fee: "A succeeded payment's fee and the tax on it.",
  refund: 'A refund took its amount (or, failed, gave it back).',
  payout: 'A payout was created: its amount left available.',
  payout_fee: "A payout's fee and the tax on it (positive when a cancelled or failed payout gives it back).",
  payout_reversal: 'A cancelled or failed payout gave its amount back.',
  topup: 'A topup succeeded.',
  adjustment: 'Any other movement of the available balance.',
};

export const BalanceTransactionTypeEnum = Object.fromEntries(BALANCE_TRANSACTION_TYPES.map((t) => [t.toUpperCase(), t])) as {
  [K in TxnType as Uppercase<K>]: K;
};
export type BalanceTransactionTypeEnum = TxnType;
registerEnumType(BalanceTransactionTypeEnum, {
  name: 'BalanceTransactionType',
  description: 'What moved the balance.',
  valuesConfig: Object.fromEntries(BALANCE_TRANSACTION_TYPES.map((t) => [t.toUpperCase(), { description: TYPE_DESCRIPTIONS[t] }])),
});

export enum BalanceTransactionStatusEnum {
  PENDING = 'pending',
  AVAILABLE = 'available',
}
registerEnumType(BalanceTransactionStatusEnum, {
  name: 'BalanceTransactionStatus',
  description: 'Whether the money is available yet.',
  valuesConfig: { PENDING: { description: 'Not available before availableOn.' }, AVAILABLE: { description: 'Available since availableOn.' } },
});

@ObjectType('BalanceTransactionSource', { description: 'The record whose transition moved the balance.' })
export class BalanceTransactionSourceType {
  @Field(() => String, { description: 'payment_intent, payout_intent, refund or topup_intent.', simple: true })
  type: string;

  @Field(() => ID, { description: 'The record id.', simple: true })
  id: string;
}

@ObjectType('BalanceTransaction', {
  implements: NodeInterface,
  description: 'One movement of the available balance (REST `balance_transaction`); amount - fee = net.',
})
export class BalanceTransactionObject {
  @Field(() => ID, { description: 'txn_ id.', simple: true })
  id: string;

  @Field(() => BalanceTransactionTypeEnum, { description: 'What moved the balance.', simple: true })
  type: TxnType;

  @Field(() => String, { description: 'Signed minor units: money in is positive.', simple: true })
  amount: string;

  @Field(() => String, { description: 'Fees taken inside this movement ("0": fees are their own records).', simple: true })
  fee: string;

  @Field(() => String, { description: 'amount - fee: the change of the available balance.', simple: true })
  net: string;

  @Field(() => String, { description: 'ISO 4217 currency code.', simple: true })
  currency: string;

  @Field(() => MoneyType, { description: '`amount` as Money.' })
  get amountMoney(): Money {
    return money(this.amount, this.currency);
  }

  @Field(() => MoneyType, { description: '`fee` as Money.' })
  get feeMoney(): Money {
    return money(this.fee, this.currency);
  }

  @Field(() => MoneyType, { description: '`net` as Money.' })
  get netMoney(): Money {
    return money(this.net, this.currency);
  }

  @Field(() => EnvironmentEnum, { description: 'test or live.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => BalanceTransactionStatusEnum, { description: 'pending or available.', simple: true })
  status: BalanceTransactionStatusEnum;

  @Field(() => DateTimeScalar, { name: 'availableOn', description: 'When the money became (or becomes) available.' })
  available_on: string;

  @Field(() => BalanceTransactionSourceType, { description: 'The record whose transition made the movement.', simple: true })
  source: BalanceTransactionSourceType;

  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When the movement was booked.' })
  created_at: string;
}

export const BalanceTransactionConnection = Connection('BalanceTransaction', BalanceTransactionObject);

@InputType('BalanceTransactionFilter', { description: 'Filters of balanceTransactions (the REST listing filters).' })
export class BalanceTransactionFilter {
  @Field(() => [BalanceTransactionTypeEnum], { nullable: true, description: 'Only these types.' })
  type?: TxnType[];

  @Field(() => ID, { nullable: true, description: 'Only the movements of this record (payment intent, payout intent, refund, topup intent).' })
  source?: string;

  @Field(() => String, { nullable: true, description: 'Only this currency.' })
  currency?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
