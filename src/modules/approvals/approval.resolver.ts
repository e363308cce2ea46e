/** GraphQL for approval policies: translate GraphQL <-> ApprovalPolicyService, nothing more. */
import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import { mutate } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import type { approvalOperations } from './approval.operations';
import type { ApprovalPolicyService } from './approval-policy.service';
import type { ApprovalPolicyWire } from './approval.schemas';
import { NodeInterface } from '../../graphql/node';
import { money, MoneyInput, MoneyType, type Money } from '../../graphql/money';
import { oneAmountForm } from '../../graphql/intent.types';

@ObjectType('ApprovalPolicy', { implements: NodeInterface, description: 'Four eyes: payouts of a currency at or above minAmount need `approvals` approvals.' })
export class ApprovalPolicyType {
  @Field(() => ID, { simple: true, description: 'The policy id.' })
  id: string;

  @Field(() => EnvironmentEnum, { simple: true, description: 'The environment it applies in.' })
  environment: EnvironmentEnum;

  @Field(() => String, { simple: true, description: 'The currency it applies to.' })
  currency: string;

  @Field(() => String, {
    name: 'minAmount',
    description: 'Payouts at or above this amount (minor units) need the approvals.',
    deprecationReason: 'Use minAmountMoney: the same amount with its currency, exponent and decimal form.',
  })
  min_amount: string;

  @Field(() => MoneyType, { description: 'Payouts at or above this amount need the approvals (`minAmount` as Money).' })
  get minAmountMoney(): Money {
    return money(this.min_amount, this.currency);
  }

  @Field(() => Int, { simple: true, description: 'Approvals needed, 1 to 3.' })
  approvals: number;

  @Field(() => Boolean, { name: 'keysCount', description: "Whether an API key's approve counts as one." })
  keys_count: boolean;

  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When it was first set.' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'When it was last set.' })
  updated_at: string;
}

@InputType('SetApprovalPolicyInput', { description: 'A currency’s approval policy.' })
export class SetApprovalPolicyInput {
  @Field(() => MoneyInput, {
    nullable: true,
    description: 'Payouts of its currency at or above this amount need the approvals. Give this, or the deprecated currency and minAmount.',
  })
  minAmountMoney?: MoneyInput;

  @Field(() => String, {
    nullable: true,
    description: 'ISO 4217 currency code.',
    deprecationReason: 'Use minAmountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  currency?: string;

  @Field(() => String, {
    nullable: true,
    description: 'Minor units: payouts at or above it need the approvals.',
    deprecationReason: 'Use minAmountMoney { minorUnits currency }: the amount with its currency, as Money reads it.',
  })
  minAmount?: string;

  @Field(() => Int, { description: 'Approvals needed, 1 to 3.' })
  approvals: number;

  @Field(() => Boolean, { nullable: true, description: "Whether an API key's approve counts as one (default false)." })
  keysCount?: boolean;
}

@Resolver(() => ApprovalPolicyType)
export class ApprovalPolicyResolver {
  constructor(private readonly services: { approvalPolicies: ApprovalPolicyService; ops: ReturnType<typeof approvalOperations> }) {}

  @Needs('payout_intents:read')
  @Query(() => [ApprovalPolicyType], { nullable: true, description: 'The approval policies of this merchant and environment, by currency.' })
  approvalPolicies(@Ctx() { ctx }: GqlContext): Promise<ApprovalPolicyWire[]> {
    return this.services.approvalPolicies.list(ctx);
  }

  @Needs('approval_policies')
  @Mutation(() => ApprovalPolicyType, { nullable: true, description: "Sets a currency's policy (owners only); payouts created from now on follow it." })
  async setApprovalPolicy(@Arg('input', () => SetApprovalPolicyInput, { description: 'The policy.' }) input: SetApprovalPolicyInput, @Ctx() gql: GqlContext) {
    const { minAmountMoney, ...rest } = input;
    const given = oneAmountForm('minAmountMoney', minAmountMoney, { currency: rest.currency, minAmount: rest.minAmount });
    return mutate(gql, this.services.ops.set, snakeKeys(given ? { ...rest, currency: given.currency, minAmount: given.minorUnits } : rest), {});
  }

  @Needs('approval_policies')
  @Mutation(() => ApprovalPolicyType, { nullable: true, description: 'Deletes a policy (owners only), by id or currency.' })
  async deleteApprovalPolicy(@Arg('id', () => ID, { description: 'The policy id, or its currency.' }) id: string, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.ops.remove, {}, { id }, '');
  }
}
