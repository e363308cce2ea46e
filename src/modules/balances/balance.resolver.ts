import { Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import type { BalanceWire, LedgerService } from './ledger.service';

@ObjectType('Balance', { description: 'Minor-unit amounts per currency: available to pay out, pending settlement, reserved by payouts.' })
export class BalanceType {
  @Field(() => String, { simple: true })
  currency: string;

  @Field(() => EnvironmentEnum, { simple: true })
  environment: EnvironmentEnum;

  @Field(() => String, { simple: true })
  available: string;

  @Field(() => String, { simple: true })
  pending: string;

  @Field(() => String, { simple: true })
  reserved: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt' })
  updated_at: string;
}

@Resolver(() => BalanceType)
export class BalanceResolver {
  constructor(private readonly services: { ledger: LedgerService }) {}

  @Query(() => [BalanceType], { description: 'One balance per currency, for the calling merchant and environment.' })
  balances(@Ctx() { ctx }: GqlContext): Promise<BalanceWire[]> {
    return this.services.ledger.list(ctx);
  }
}
