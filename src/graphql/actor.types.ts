/**
 * Who acted (`actor` of approvals, and of audit entries and events): an API key or a member,
 * the wire's `{ type, id, restricted }` / `{ type, id, email }` as one object type whose
 * fields of the other kind are null.
 */
import { Field, ID, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars';

@ObjectType('Actor', { description: 'An API key (restricted or not) or a member of the team.' })
export class ActorType {
  @Field(() => String, { simple: true, description: '`api_key` or `member`.' })
  type: string;

  @Field(() => ID, { simple: true, description: 'The key id (key_...) or the user id (usr_...).' })
  id: string;

  @Field(() => Boolean, { nullable: true, simple: true, description: 'API keys: whether the key is restricted; null for members.' })
  restricted?: boolean;

  @Field(() => String, { nullable: true, simple: true, description: "Members: the member's email; null for API keys." })
  email?: string;
}

@ObjectType('Approval', { description: 'One recorded approval of a payout intent.' })
export class ApprovalType {
  @Field(() => ActorType, { simple: true, description: 'Who approved.' })
  actor: ActorType;

  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When.' })
  created_at: string;
}
