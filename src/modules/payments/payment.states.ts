import { StateMachine } from '../../domain/state-machine';

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * requires_action -> processing -> succeeded | failed; requires_action -> cancelled | expired.
 * requires_action -> succeeded only for a method that settles at once (CONTRACT.md).
 */
export const paymentStates = new StateMachine<PaymentStatus>('payment_intent', {
  requires_action: ['processing', 'succeeded', 'cancelled', 'expired'],
  processing: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  cancelled: [],
  expired: [],
});
