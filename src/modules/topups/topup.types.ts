import { Field, InputType, ObjectType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { CreateIntentFields, IntentFields, IntentFilterFields } from '../../graphql/intent.types';
import { NodeInterface } from '../../graphql/node';
import { NextActionType } from '../methods/next-action.types';
import { NextStepUnion } from '../methods/next-step.types';
import type { NextAction } from '../methods/next-action';
import { stateEnum } from '../../graphql/enums';
import { TOPUP_STATUSES, type TopupStatus } from './topup.states';

export const TopupIntentStatusEnum = stateEnum(TOPUP_STATUSES, 'TopupIntentStatus', 'topup intent', {
  requires_action: 'Waiting for the bank transfer of nextStep.',
  succeeded: 'The transfer arrived; the balance grew.',
  failed: 'The transfer failed.',
  expired: 'No transfer arrived in time.',
});
export type TopupIntentStatusEnum = TopupStatus;

@ObjectType('TopupIntent', { implements: NodeInterface, description: 'Money the merchant adds to its balance by bank transfer.' })
export class TopupIntentType extends IntentFields {
  @Field(() => TopupIntentStatusEnum, { description: 'Where the topup is in its lifecycle.', simple: true })
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

@InputType('CreateTopupIntentInput', { description: 'A new topup intent: the transfer instructions come back in nextStep.' })
export class CreateTopupIntentInput extends CreateIntentFields {}

@InputType('TopupIntentFilter', { description: 'Filters of the topup intent list.' })
export class TopupIntentFilter extends IntentFilterFields {
  @Field(() => [TopupIntentStatusEnum], { description: 'Only topups in these states.', nullable: true })
  status?: TopupIntentStatusEnum[];
}
