/** GraphQL types for the audit log: views over the REST wire object. */
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';
import { ActorType } from '../../graphql/actor.types';
import { NodeInterface } from '../../graphql/node';

@ObjectType('AuditEntry', { implements: NodeInterface, description: 'One committed state-changing API call (REST or GraphQL).' })
export class AuditEntryType {
  @Field(() => ID, { description: "The entry's id.", simple: true }) id: string;
  @Field(() => EnvironmentEnum, { description: 'The environment of the call.', simple: true }) environment: EnvironmentEnum;
  @Field(() => ID, { name: 'apiKeyId', description: 'The API key that made the call; for a signed-in member, the id of their session.' }) api_key_id: string;
  @Field(() => ActorType, {
    nullable: true,
    simple: true,
    description: 'Who made the call: the API key or the signed-in member; null only on entries recorded before actors were.',
  })
  actor: ActorType | null;
  @Field(() => String, {
    description:
      'The operation, named as its REST route, e.g. `POST /v1/payout_intents/:id/cancel` (GraphQL mutations share the names); team changes, which have no REST route, by their mutation: `inviteMember`, `issueSetupLink`, `changeMemberRole`, `removeMember`.',
    simple: true,
  })
  operation: string;
  @Field(() => String, { name: 'resourceType', nullable: true, description: 'The record type, e.g. payout_intent.' }) resource_type: string | null;
  @Field(() => ID, { description: 'The record the call changed; null when none.', name: 'resourceId', nullable: true }) resource_id: string | null;
  @Field(() => String, { nullable: true, description: 'The reason given (cancel), if any.', simple: true }) reason: string | null;
  @Field(() => String, { name: 'requestId', nullable: true, description: 'The Request-Id response header of the call.' }) request_id: string | null;
  @Field(() => Int, {
    name: 'statusCode',
    nullable: true,
    description: 'HTTP status of the answer (201 created, 200 existing record returned, ...).',
  })
  status_code: number | null;
  @Field(() => DateTimeScalar, { description: 'When the call committed.', name: 'createdAt' }) created_at: string;
}

export const AuditEntryConnection = Connection('AuditEntry', AuditEntryType);

@InputType('AuditLogFilter', { description: 'Filters of the audit log.' })
export class AuditLogFilter {
  @Field(() => ID, { nullable: true, description: 'Only entries about this record.' })
  resourceId?: string;

  @Field(() => String, {
    nullable: true,
    description: 'Only this operation, e.g. "POST /v1/payout_intents/:id/cancel", or a team change such as "changeMemberRole".',
  })
  operation?: string;

  @Field(() => ID, { nullable: true, description: "Only entries made by this API key (key_...) or member (usr_...): the entries' actor.id." })
  actor?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created at or after (inclusive).' })
  createdGte?: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Created before (exclusive).' })
  createdLt?: string;
}
