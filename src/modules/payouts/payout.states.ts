import { StateMachine } from '../../domain/state-machine';

export const PAYOUT_STATUSES = ['requires_approval', 'processing', 'succeeded', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** requires_approval -> processing (approve) | cancelled (cancel); processing -> succeeded | failed. */
export const payoutStates = new StateMachine<PayoutStatus>('payout_intent', {
  requires_approval: ['processing', 'cancelled'],
  processing: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  cancelled: [],
});
