import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum, TopupIntentStatusEnum } from '../../graphql/enums';
import { NextActionType } from '../methods/next-action.types';

@ObjectType('TopupIntent')
export class TopupIntentType {
  @Field(() => ID)
  id: string;

  @Field(() => String, { description: 'Minor units, as a decimal string.' })
  amount: string;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  country: string;

  @Field(() => EnvironmentEnum)
  environment: EnvironmentEnum;

  @Field(() => TopupIntentStatusEnum)
  status: TopupIntentStatusEnum;

  @Field(() => String, { name: 'merchantReference' })
  merchant_reference: string;

  @Field(() => NextActionType, { name: 'nextAction', nullable: true })
  next_action: NextActionType | null;

  @Field(() => String, { name: 'failureCode', nullable: true })
  failure_code: string | null;

  @Field(() => String, { name: 'failureMessage', nullable: true })
  failure_message: string | null;

  @Field(() => DateTimeScalar, { name: 'createdAt' })
  created_at: string;

  @Field(() => DateTimeScalar, { name: 'updatedAt' })
  updated_at: string;
}

export const TopupIntentConnection = Connection('TopupIntent', TopupIntentType);

@InputType('CreateTopupIntentInput')
export class CreateTopupIntentInput {
  @Field(() => String, { description: 'Minor units, as a string of digits.' })
  amount: string;

  @Field(() => String)
  currency: string;

  @Field(() => String)
  country: string;

  @Field(() => String)
  merchantReference: string;
}

@InputType('TopupIntentFilter')
export class TopupIntentFilter {
  @Field(() => [TopupIntentStatusEnum], { nullable: true })
  status?: TopupIntentStatusEnum[];

  @Field(() => String, { nullable: true })
  country?: string;

  @Field(() => String, { nullable: true })
  currency?: string;

  @Field(() => String, { nullable: true })
  merchantReference?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
