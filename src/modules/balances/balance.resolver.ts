import { Ctx, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { LedgerService } from './ledger.service';
import { BalanceType, withBalanceId, type BalanceNode } from './balance.types';

@Resolver(() => BalanceType)
export class BalanceResolver {
  constructor(private readonly services: { ledger: LedgerService }) {}

  @Needs('balances:read')
  @Query(() => [BalanceType], { nullable: true, description: 'One balance per currency, for the calling merchant and environment.' })
  async balances(@Ctx() { ctx }: GqlContext): Promise<BalanceNode[]> {
    return (await this.services.ledger.list(ctx)).map(withBalanceId);
  }
}
