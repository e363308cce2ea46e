import { Field, InputType, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { TopupIntentStatusEnum } from '../../graphql/enums';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { NodeInterface } from '../../graphql/node';
import { NextActionType } from '../methods/next-action.types';

@ObjectType('TopupIntent', { implements: NodeInterface, description: 'Money the merchant adds to its balance by bank transfer.' })
export class TopupIntentType extends IntentFields {
  @Field(() => TopupIntentStatusEnum, { simple: true })
  status: TopupIntentStatusEnum;

  @Field(() => NextActionType, { name: 'nextAction', nullable: true })
  next_action: NextActionType | null;
}

export const TopupIntentConnection = Connection('TopupIntent', TopupIntentType);

@InputType('CreateTopupIntentInput')
export class CreateTopupIntentInput extends CreateIntentFields {}

@InputType('TopupIntentFilter')
export class TopupIntentFilter extends IntentFilterFields {
  @Field(() => [TopupIntentStatusEnum], { nullable: true })
  status?: TopupIntentStatusEnum[];
}
