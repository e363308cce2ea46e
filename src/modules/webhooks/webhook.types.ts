/** GraphQL types for webhook endpoints and attempts: views over the REST wire objects. */
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';

@ObjectType('WebhookEndpoint')
export class WebhookEndpointType {
  @Field(() => ID, { simple: true }) id: string;
  @Field(() => String, { simple: true }) url: string;
  @Field(() => EnvironmentEnum, { simple: true }) environment: EnvironmentEnum;
  @Field(() => [String], { name: 'enabledEvents', description: 'Types, `resource.*` wildcards, or ["*"] for all.' })
  enabled_events: string[];
  @Field(() => String, {
    description: 'enabled or disabled (after the receiver answered 410 Gone, or by updateWebhookEndpoint).',
    simple: true,
  })
  status: string;
  @Field(() => String, { name: 'disabledReason', nullable: true }) disabled_reason: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'whsec_...: only in the createWebhookEndpoint and rotateWebhookEndpointSecret responses; null elsewhere.',
    simple: true,
  })
  secret?: string;
  @Field(() => DateTimeScalar, { name: 'createdAt' }) created_at: string;
  @Field(() => DateTimeScalar, { name: 'updatedAt' }) updated_at: string;
}

export const WebhookEndpointConnection = Connection('WebhookEndpoint', WebhookEndpointType);

@ObjectType('WebhookAttempt')
export class WebhookAttemptType {
  @Field(() => ID, { simple: true }) id: string;
  @Field(() => ID, { name: 'webhookEndpointId' }) webhook_endpoint: string;
  @Field(() => ID, { name: 'eventId' }) event: string;
  @Field(() => Int, { name: 'attemptNumber' }) attempt_number: number;
  @Field(() => Int, { name: 'statusCode', nullable: true }) status_code: number | null;
  @Field(() => String, { nullable: true, simple: true }) error: string | null;
  @Field(() => Int, { name: 'durationMs' }) duration_ms: number;
  @Field(() => DateTimeScalar, { name: 'createdAt' }) created_at: string;
}

export const WebhookAttemptConnection = Connection('WebhookAttempt', WebhookAttemptType);

@ObjectType('DeletedWebhookEndpoint')
export class DeletedWebhookEndpointType {
  @Field(() => ID, { simple: true }) id: string;
  @Field(() => Boolean, { simple: true }) deleted: boolean;
}

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field(() => String) url: string;
  @Field(() => [String], { nullable: true, description: 'Omitted = all types.' }) enabledEvents?: string[];
}

@InputType('UpdateWebhookEndpointInput')
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true }) url?: string;
  @Field(() => [String], { nullable: true, description: 'Omitted = unchanged.' }) enabledEvents?: string[];
  @Field(() => String, {
    nullable: true,
    description: '"enabled" (resumes a disabled endpoint, within the cap) or "disabled" (pauses it).',
  })
  status?: string;
}

@ObjectType('WebhookDelivery', { description: 'A delivery queued by resendEvent: one attempt, listed by webhookAttempts once made.' })
export class WebhookDeliveryType {
  @Field(() => ID, { simple: true }) id: string;
  @Field(() => ID, { name: 'webhookEndpointId' }) webhook_endpoint: string;
  @Field(() => ID, { name: 'eventId' }) event: string;
  @Field(() => String, { simple: true }) status: string;
  @Field(() => DateTimeScalar, { name: 'createdAt' }) created_at: string;
}
