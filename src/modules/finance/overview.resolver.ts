/** GraphQL for the overview: translate GraphQL <-> OverviewService, nothing more. */
import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import { CurrencyCodeScalar } from '../../graphql/money';
import type { Overview, OverviewService } from './overview.service';
import { OverviewPeriodEnum, OverviewType } from './overview.types';
import { OverviewCurrencyType, OverviewDayType } from './overview.types';

/** Gives the plain figures the class whose getters make their Money fields. */
function typed(overview: Overview): OverviewType {
  return Object.assign(new OverviewType(), {
    ...overview,
    currencies: overview.currencies.map((c) =>
      Object.assign(new OverviewCurrencyType(), {
        ...c,
        days: c.days.map((d) => Object.assign(new OverviewDayType(), { ...d, currency: c.currency })),
      }),
    ),
  });
}

@Resolver(() => OverviewType)
export class OverviewResolver {
  constructor(private readonly services: { overview: OverviewService }) {}

  @Needs('balance_transactions:read')
  @Query(() => OverviewType, {
    nullable: true,
    description:
      'Gross volume, fees, refunds, net and payouts per currency over a period of UTC days, in total and per day, summed from the balance transactions of the calling merchant and environment.',
  })
  async overview(
    @Ctx() { ctx }: GqlContext,
    @Arg('period', () => OverviewPeriodEnum, { nullable: true, defaultValue: OverviewPeriodEnum.THIS_MONTH, description: 'The period; this month by default.' })
    period: OverviewPeriodEnum,
    @Arg('currency', () => CurrencyCodeScalar, { nullable: true, description: 'Only this currency.' }) currency?: string | null,
  ): Promise<OverviewType> {
    return typed(await this.services.overview.overview(ctx, period ?? OverviewPeriodEnum.THIS_MONTH, currency));
  }
}
