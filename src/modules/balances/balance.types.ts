/** The GraphQL view of a balance: the REST record, with a derived id (a Node) and its amounts as Money. */
import { Field, ID, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import { money, MoneyType, type Money } from '../../graphql/money';
import { NodeInterface } from '../../graphql/node';
import type { Scope } from '../../domain/scope';
import type { BalanceWire } from './ledger.service';

/** A balance as GraphQL shows it: the wire record and its derived id. */
export type BalanceNode = BalanceWire & { id: string };

const BALANCE_ID = /^bal_(test|live)_([A-Z][A-Z0-9]{2,5})$/;

/** A balance's id, derived from its environment and currency (`bal_test_THB`): stable, never stored. */
export function withBalanceId(balance: BalanceWire): BalanceNode {
  return { ...balance, id: `bal_${balance.environment}_${balance.currency}` };
}

/** The currency a balance id names, when it is a balance id of this scope's environment. */
export function balanceCurrencyOf(scope: Scope, id: string): string | undefined {
  const m = BALANCE_ID.exec(id);
  return m && m[1] === scope.environment ? m[2] : undefined;
}

@ObjectType('Balance', {
  implements: NodeInterface,
  description: 'Minor-unit amounts per currency: available to pay out, pending settlement, reserved by payouts.',
})
export class BalanceType {
  @Field(() => ID, { description: 'Derived from the environment and currency (bal_test_THB): stable, the same for every read.', simple: true })
  id: string;

  @Field(() => String, { description: 'The currency of every amount of this balance.', simple: true })
  currency: string;

  @Field(() => EnvironmentEnum, { description: 'The environment of the calling key.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => String, { description: 'Minor units that can be paid out now.', simple: true })
  available: string;

  @Field(() => String, { description: 'Minor units waiting for settlement.', simple: true })
  pending: string;

  @Field(() => String, { description: 'Minor units held by payouts in flight.', simple: true })
  reserved: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'When an amount last changed.' })
  updated_at: string;

  @Field(() => MoneyType, { description: '`available` as Money.' })
  get availableMoney(): Money {
    return money(this.available, this.currency);
  }

  @Field(() => MoneyType, { description: '`pending` as Money.' })
  get pendingMoney(): Money {
    return money(this.pending, this.currency);
  }

  @Field(() => MoneyType, { description: '`reserved` as Money.' })
  get reservedMoney(): Money {
    return money(this.reserved, this.currency);
  }
}
