/** GraphQL types for webhook endpoints and attempts: views over the REST wire objects. */
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from '../../graphql/scalars';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';
import { NodeInterface } from '../../graphql/node';

@ObjectType('WebhookEndpoint', { implements: NodeInterface, description: 'Where events are delivered: a URL and the event types it takes.' })
export class WebhookEndpointType {
  @Field(() => ID, { description: 'we_ id.', simple: true }) id: string;
  @Field(() => String, { description: 'The https URL events are POSTed to.', simple: true }) url: string;
  @Field(() => EnvironmentEnum, { description: 'The environment whose events it receives.', simple: true }) environment: EnvironmentEnum;
  @Field(() => [String], { name: 'enabledEvents', description: 'Types, `resource.*` wildcards, or ["*"] for all.' })
  enabled_events: string[];
  @Field(() => String, {
    description: 'enabled or disabled (after the receiver answered 410 Gone, or by updateWebhookEndpoint).',
    simple: true,
  })
  status: string;
  @Field(() => String, { description: 'Why the service disabled it (too many failures); null otherwise.', name: 'disabledReason', nullable: true })
  disabled_reason: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'whsec_...: only in the createWebhookEndpoint and rotateWebhookEndpointSecret responses; null elsewhere.',
    simple: true,
  })
  secret?: string;
  @Field(() => DateTimeScalar, { description: 'When it was created.', name: 'createdAt' }) created_at: string;
  @Field(() => DateTimeScalar, { description: 'When it last changed.', name: 'updatedAt' }) updated_at: string;
}

export const WebhookEndpointConnection = Connection('WebhookEndpoint', WebhookEndpointType);

@ObjectType('WebhookAttempt', { implements: NodeInterface, description: 'One delivery attempt of an event to an endpoint.' })
export class WebhookAttemptType {
  @Field(() => ID, { description: "The attempt's id.", simple: true }) id: string;
  @Field(() => ID, { description: 'The endpoint delivered to.', name: 'webhookEndpointId' }) webhook_endpoint: string;
  @Field(() => ID, { description: 'The event delivered.', name: 'eventId' }) event: string;
  @Field(() => Int, { description: '1 for the first attempt, then 2, 3, ...', name: 'attemptNumber' }) attempt_number: number;
  @Field(() => Int, { description: "The receiver's HTTP status; null when no answer came.", name: 'statusCode', nullable: true }) status_code: number | null;
  @Field(() => String, { description: 'What went wrong (timeout, connection refused); null on success.', nullable: true, simple: true }) error: string | null;
  @Field(() => Int, { description: 'How long the attempt took, in milliseconds.', name: 'durationMs' }) duration_ms: number;
  @Field(() => DateTimeScalar, { description: 'When the attempt was made.', name: 'createdAt' }) created_at: string;
}

export const WebhookAttemptConnection = Connection('WebhookAttempt', WebhookAttemptType);

@ObjectType('DeletedWebhookEndpoint', { description: 'The answer of deleteWebhookEndpoint.' })
export class DeletedWebhookEndpointType {
  @Field(() => ID, { description: "The deleted endpoint's id.", simple: true }) id: string;
  @Field(() => Boolean, { description: 'Always true.', simple: true }) deleted: boolean;
}

@InputType('CreateWebhookEndpointInput', { description: 'A new webhook endpoint.' })
export class CreateWebhookEndpointInput {
  @Field(() => String, { description: 'The https URL to POST events to.' }) url: string;
  @Field(() => [String], { nullable: true, description: 'Omitted = all types.' }) enabledEvents?: string[];
}

@InputType('UpdateWebhookEndpointInput', { description: 'What to change on a webhook endpoint; omitted fields stay.' })
export class UpdateWebhookEndpointInput {
  @Field(() => String, { description: 'A new https URL.', nullable: true }) url?: string;
  @Field(() => [String], { nullable: true, description: 'Omitted = unchanged.' }) enabledEvents?: string[];
  @Field(() => String, {
    nullable: true,
    description: '"enabled" (resumes a disabled endpoint, within the cap) or "disabled" (pauses it).',
  })
  status?: string;
}

@ObjectType('WebhookDelivery', {
  implements: NodeInterface,
  description: 'A delivery queued by resendEvent: one attempt, listed by webhookAttempts once made.',
})
export class WebhookDeliveryType {
  @Field(() => ID, { description: "The delivery's id.", simple: true }) id: string;
  @Field(() => ID, { description: 'The endpoint it is delivered to.', name: 'webhookEndpointId' }) webhook_endpoint: string;
  @Field(() => ID, { description: 'The event delivered.', name: 'eventId' }) event: string;
  @Field(() => String, { description: 'pending until the attempt is made.', simple: true }) status: string;
  @Field(() => DateTimeScalar, { description: 'When it was queued.', name: 'createdAt' }) created_at: string;
}
