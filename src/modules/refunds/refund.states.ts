import { StateMachine } from '../../domain/state-machine';

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

const settleRefusal = { code: 'invalid_state', message: 'This refund is {status}; only a pending refund can be settled.' } as const;

/**
 * pending -> succeeded | failed. Creating a refund holds its amount (available -> reserved,
 * as a payout does); success sends it to the payer (out of reserved); failure gives it back
 * to available. The conditional update of the engine makes the give-back happen once, whoever
 * (provider or test helper) fails the refund first.
 */
export const refundStates = new StateMachine(
  'refund',
  REFUND_STATUSES,
  {
    to: 'pending',
    ledger: { entryType: 'refund_reserved', move: 'reserve' },
  },
  {
    succeed: { from: ['pending'], to: 'succeeded', ledger: { entryType: 'refund_paid', move: 'payOut' }, refusal: settleRefusal },
    fail: { from: ['pending'], to: 'failed', ledger: { entryType: 'refund_released', move: 'release' }, refusal: settleRefusal },
  },
);
