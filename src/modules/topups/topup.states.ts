import { StateMachine } from '../../domain/state-machine';

export const TOPUP_STATUSES = ['requires_action', 'succeeded', 'failed', 'expired'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];

/** requires_action (with bank-transfer instructions) -> succeeded | failed | expired. */
export const topupStates = new StateMachine<TopupStatus>('topup_intent', {
  requires_action: ['succeeded', 'failed', 'expired'],
  succeeded: [],
  failed: [],
  expired: [],
});
