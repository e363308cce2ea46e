import { Field, InputType, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { TopupIntentStatusEnum } from '../../graphql/enums';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { NodeInterface } from '../../graphql/node';
import { NextActionType } from '../methods/next-action.types';
import { NextStepUnion } from '../methods/next-step.types';
import type { NextAction } from '../methods/next-action';

@ObjectType('TopupIntent', { implements: NodeInterface, description: 'Money the merchant adds to its balance by bank transfer.' })
export class TopupIntentType extends IntentFields {
  @Field(() => TopupIntentStatusEnum, { simple: true })
  status: TopupIntentStatusEnum;

  @Field(() => NextActionType, {
    name: 'nextAction',
    nullable: true,
    description: 'What the payer must do next; null once nothing is.',
    deprecationReason: 'Use nextStep: one type per kind, selected with inline fragments.',
  })
  next_action: NextActionType | null;

  @Field(() => NextStepUnion, { nullable: true, description: 'What the payer must do next, one type per kind; null once nothing is.' })
  get nextStep(): NextAction | null {
    return this.next_action as NextAction | null;
  }
}

export const TopupIntentConnection = Connection('TopupIntent', TopupIntentType);

@InputType('CreateTopupIntentInput')
export class CreateTopupIntentInput extends CreateIntentFields {}

@InputType('TopupIntentFilter')
export class TopupIntentFilter extends IntentFilterFields {
  @Field(() => [TopupIntentStatusEnum], { nullable: true })
  status?: TopupIntentStatusEnum[];
}
