import { StateMachine } from '../../domain/state-machine';

export const TOPUP_STATUSES = ['requires_action', 'succeeded', 'failed', 'expired'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];

const settleRefusal = {
  code: 'invalid_state',
  message: 'This topup intent is {status}; only a topup intent in requires_action can be settled.',
} as const;

/** requires_action (with bank-transfer instructions) -> succeeded (credits available) | failed | expired. */
export const topupStates = new StateMachine(
  'topup_intent',
  TOPUP_STATUSES,
  { to: 'requires_action' },
  {
    succeed: {
      from: ['requires_action'],
      to: 'succeeded',
      ledger: { entryType: 'topup_succeeded', move: 'credit' },
      refusal: settleRefusal,
    },
    fail: { from: ['requires_action'], to: 'failed', refusal: settleRefusal },
    expire: {
      from: ['requires_action'],
      to: 'expired',
      refusal: { code: 'invalid_state', message: 'This topup intent is {status}; only a topup intent in requires_action can expire.' },
    },
  },
);
