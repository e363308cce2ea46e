import { Ctx, Field, FieldResolver, ID, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import { DateTimeScalar } from '../../graphql/scalars';
import { EnvironmentEnum } from '../../graphql/enums';
import { NodeInterface } from '../../graphql/node';
import type { Merchant } from './merchant.entity';

@ObjectType('Merchant', { implements: NodeInterface, description: 'The calling merchant.' })
export class MerchantType {
  @Field(() => ID, { description: 'mer_ id.', simple: true })
  id: string;

  @Field(() => String, { description: "The merchant's name.", simple: true })
  name: string;

  @Field(() => DateTimeScalar, { description: 'When the merchant was created.', simple: true })
  createdAt: Date;
}

@ObjectType('Viewer', { description: 'The caller: the API key, its merchant and its environment.' })
export class ViewerType {
  @Field(() => ID, { description: "The calling API key's id.", simple: true })
  apiKeyId: string;

  @Field(() => EnvironmentEnum, { description: "The calling key's environment.", simple: true })
  environment: EnvironmentEnum;

  merchantId: string;
}

@Resolver(() => ViewerType)
export class ViewerResolver {
  @Needs('authenticated')
  @Query(() => ViewerType, { description: 'The caller: its API key, merchant and environment.' })
  viewer(@Ctx() { ctx }: GqlContext): ViewerType {
    return { apiKeyId: ctx.apiKeyId, environment: ctx.environment as EnvironmentEnum, merchantId: ctx.merchantId };
  }

  @FieldResolver(() => MerchantType, { nullable: true, description: 'The calling merchant; null, with its error, when it cannot be read.' })
  async merchant(@Root() viewer: ViewerType, @Ctx() { loaders }: GqlContext): Promise<Merchant | null> {
    return loaders.merchant.load(viewer.merchantId);
  }
}
