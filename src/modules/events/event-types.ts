/**
 * Every event type the service records: `<resource>.created` and `<resource>.<event>` of each
 * transition (the state tables' `event ?? to`), plus the few recorded outside a state table
 * (a payment link's `updated`, `deactivated` and `completed`, a report run's outcome, a payment
 * whose payer chose its method: `payment_intent.requires_action`). The GraphQL enum
 * `EventType` is this list; test/events/event-types.spec.ts checks the state tables against it.
 */
export const EVENT_TYPES = [
  'payment_intent.created',
  'payment_intent.requires_action',
  'payment_intent.processing',
  'payment_intent.succeeded',
  'payment_intent.failed',
  'payment_intent.cancelled',
  'payment_intent.expired',
  'payout_intent.created',
  'payout_intent.processing',
  'payout_intent.succeeded',
  'payout_intent.failed',
  'payout_intent.cancelled',
  'topup_intent.created',
  'topup_intent.succeeded',
  'topup_intent.failed',
  'topup_intent.expired',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'payment_link.created',
  'payment_link.updated',
  'payment_link.deactivated',
  'payment_link.completed',
  'payout_batch.created',
  'payout_batch.approved',
  'payout_batch.cancelled',
  'payout_batch.completed',
  'report_run.succeeded',
  'report_run.failed',
] as const;
export type EventTypeName = (typeof EVENT_TYPES)[number];
