import { Ctx, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { FeeScheduleView, FeeService } from './fee.service';
import { FeeScheduleType } from './fee.types';

@Resolver(() => FeeScheduleType)
export class FeeScheduleResolver {
  constructor(private readonly services: { fees: FeeService }) {}

  @Needs('balances:read')
  @Query(() => FeeScheduleType, {
    nullable: true,
    description: 'The fee schedule the operator set for the calling merchant in this environment; null when it has none (no fees).',
  })
  feeSchedule(@Ctx() { ctx }: GqlContext): Promise<FeeScheduleView | null> {
    return this.services.fees.show(ctx);
  }
}
