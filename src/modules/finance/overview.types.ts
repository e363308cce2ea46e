/** GraphQL types of the overview: per currency, the period's figures as Money, in total and per UTC day (each type has the same five Money getters over its bigint figures). */
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { CurrencyCodeScalar, money, MoneyType, type Money } from '../../graphql/money';
import { DateTimeScalar } from '../../graphql/scalars';
import type { OverviewPeriod } from './overview.service';

export enum OverviewPeriodEnum {
  THIS_MONTH = 'this_month',
  LAST_MONTH = 'last_month',
  LAST_7_DAYS = 'last_7_days',
}
registerEnumType(OverviewPeriodEnum, {
  name: 'OverviewPeriod',
  description: 'A span of whole UTC days the overview covers.',
  valuesConfig: {
    THIS_MONTH: { description: 'From the first of this month (UTC) to today.' },
    LAST_MONTH: { description: 'The whole of last month (UTC).' },
    LAST_7_DAYS: { description: 'Today and the 6 days before it (UTC).' },
  },
});

/** The five figures of a currency over a span, each with its Money form (the GraphQL fields of both types below). */
@ObjectType({ description: 'Not in the schema: the fields OverviewDay and OverviewCurrency share.' })
abstract class OverviewFigures {
  currency: string;
  gross: bigint;
  fees: bigint;
  refunds: bigint;
  payouts: bigint;
  net: bigint;

  @Field(() => MoneyType, { description: 'Gross volume: the amounts of payments that succeeded.' })
  get grossMoney(): Money {
    return money(this.gross.toString(), this.currency);
  }

  @Field(() => MoneyType, { description: 'Fees taken on payments and payouts, tax included (less fees given back by cancelled or failed payouts).' })
  get feesMoney(): Money {
    return money(this.fees.toString(), this.currency);
  }

  @Field(() => MoneyType, { description: 'Refunded (less refunds that failed and gave their amount back).' })
  get refundsMoney(): Money {
    return money(this.refunds.toString(), this.currency);
  }

  @Field(() => MoneyType, { description: 'Net: gross less fees and refunds.' })
  get netMoney(): Money {
    return money(this.net.toString(), this.currency);
  }

  @Field(() => MoneyType, { description: 'Paid out: payouts created, less those cancelled or failed.' })
  get payoutsMoney(): Money {
    return money(this.payouts.toString(), this.currency);
  }
}

@ObjectType('OverviewDay', { description: "One UTC day of a currency's overview." })
export class OverviewDayType extends OverviewFigures {
  @Field(() => String, { description: 'The UTC day, YYYY-MM-DD.', simple: true })
  date: string;

  @Field(() => DateTimeScalar, { description: "The day's first instant (00:00 UTC).", simple: true })
  start: Date;
}

@ObjectType('OverviewCurrency', { description: "One currency's figures over the overview's period." })
export class OverviewCurrencyType extends OverviewFigures {
  @Field(() => CurrencyCodeScalar, { description: 'The currency of every amount here.', simple: true })
  declare currency: string;

  @Field(() => [OverviewDayType], { description: 'Every day of the period up to today, oldest first (days without movements are zero).' })
  days: OverviewDayType[];
}

@ObjectType('Overview', { description: "The merchant's money over a period: per currency, gross, fees, refunds, net and payouts, in total and per day." })
export class OverviewType {
  @Field(() => OverviewPeriodEnum, { description: 'The period asked for.', simple: true })
  period: OverviewPeriod;

  @Field(() => DateTimeScalar, { description: 'Start of the period (inclusive, 00:00 UTC).', simple: true })
  from: Date;

  @Field(() => DateTimeScalar, { description: 'End of the period (exclusive, 00:00 UTC of the day after).', simple: true })
  to: Date;

  @Field(() => [OverviewCurrencyType], { description: 'One entry per currency with a movement in the period, by currency code.' })
  currencies: OverviewCurrencyType[];
}
