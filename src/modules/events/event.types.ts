/**
 * GraphQL types for events: views over the REST event object (`data.object` is the
 * record exactly as its REST route returns it, snake_case keys included).
 */
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { NodeInterface } from '../../graphql/node';
import { ActorType } from '../../graphql/actor.types';
import { EnvironmentEnum, wireEnum } from '../../graphql/enums';
import { EVENT_TYPES, type EventTypeName } from './event-types';

export const EventTypeEnum = wireEnum(
  EVENT_TYPES,
  'EventType',
  'The type of an event (the String `Event.type` upper-cased with `.` as `_`): PAYOUT_INTENT_CANCELLED is payout_intent.cancelled.',
  (wire) => {
    const [resource, what] = wire.split('.');
    return what === 'created'
      ? `A ${resource.replace(/_/g, ' ')} was created.`
      : `\`${wire}\`: a ${resource.replace(/_/g, ' ')} became or was ${what.replace(/_/g, ' ')}.`;
  },
);
export type EventTypeEnum = EventTypeName;

@ObjectType('EventData', { description: 'What the event carries.' })
export class EventDataType {
  @Field(() => GraphQLJSONObject, { description: 'The record as its REST route returns it, at the moment of the event.', simple: true })
  object: Record<string, unknown>;
}

@ObjectType('Event', { implements: NodeInterface, description: 'Something that happened to a record: a creation or a status change.' })
export class EventType {
  @Field(() => ID, { description: 'evt_ id: the `after` of the events subscription and the REST cursor.', simple: true })
  id: string;

  @Field(() => String, { description: '`<resource>.created` or `<resource>.<new status>`, e.g. payout_intent.cancelled.', simple: true })
  type: string;

  @Field(() => EventTypeEnum, { description: '`type` as an EventType (PAYOUT_INTENT_CANCELLED).' })
  get typeEnum(): EventTypeEnum {
    return this.type as EventTypeEnum;
  }

  @Field(() => EnvironmentEnum, { description: 'The environment of the event.', simple: true })
  environment: EnvironmentEnum;

  @Field(() => DateTimeScalar, { description: 'When it was committed.', name: 'createdAt' })
  created_at: string;

  @Field(() => ActorType, {
    nullable: true,
    simple: true,
    description:
      "Who caused it: the API key or the signed-in member of the request; null when no API caller did (the scheduler, a provider's settlement, the payer's page) and on events recorded before actors were.",
  })
  actor: ActorType | null;

  @Field(() => EventDataType, { description: 'The record, as its REST route returned it at the event.', simple: true })
  data: EventDataType;
}

export const EventConnection = Connection('Event', EventType);

@InputType('EventFilter', { description: 'Filters of the event list.' })
export class EventFilter {
  @Field(() => [String], { nullable: true, description: 'Exact types or `resource.*` wildcards.' })
  type?: string[];

  @Field(() => [EventTypeEnum], { nullable: true, description: 'Exact types, as EventType values; together with `type`, an event of either list matches.' })
  typeEnum?: EventTypeEnum[];

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
