import { StateMachine } from '../../domain/state-machine';

export const PAYOUT_STATUSES = ['requires_approval', 'processing', 'succeeded', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

const released = { entryType: 'payout_released', move: 'release', fees: 'release' } as const;
const settleRefusal = {
  code: 'invalid_state',
  message: 'This payout intent is {status}; only a processing payout intent can be settled.',
} as const;

/**
 * requires_approval -> processing (approve) | cancelled (cancel); processing -> succeeded | failed.
 * Creating a payout holds its amount (available -> reserved); cancel and failure give it back.
 */
export const payoutStates = new StateMachine(
  'payout_intent',
  PAYOUT_STATUSES,
  {
    to: 'requires_approval',
    ledger: { entryType: 'payout_reserved', move: 'reserve', fees: 'hold' },
  },
  {
    approve: {
      from: ['requires_approval'],
      to: 'processing',
      refusal: {
        code: 'invalid_state',
        message: 'This payout intent is {status}; only a payout intent in requires_approval can be approved.',
      },
    },
    cancel: {
      from: ['requires_approval'],
      to: 'cancelled',
      ledger: released,
      refusal: {
        code: 'approval_required',
        message: 'This payout intent is {status}; only a payout intent in requires_approval can be cancelled.',
      },
    },
    succeed: { from: ['processing'], to: 'succeeded', ledger: { entryType: 'payout_paid', move: 'payOut', fees: 'pay' }, refusal: settleRefusal },
    fail: { from: ['processing'], to: 'failed', ledger: released, refusal: settleRefusal },
  },
);
