import { StateMachine } from '../../domain/state-machine';

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const waiting = (verb: string) =>
  ({
    code: 'invalid_state',
    message: `This payment intent is {status}; only a payment intent in requires_action can ${verb}.`,
  }) as const;
const settleRefusal = {
  code: 'invalid_state',
  message: 'This payment intent is {status}; only a payment intent in requires_action or processing can be settled.',
} as const;
const succeeded = { entryType: 'payment_succeeded', fees: 'charge' } as const;

/**
 * requires_action -> processing -> succeeded | failed; requires_action -> cancelled | expired.
 * requires_action -> succeeded only for a method that settles at once (docs/contract.md).
 * Processing holds the amount in `pending`; success moves it to `available`.
 */
export const paymentStates = new StateMachine(
  'payment_intent',
  PAYMENT_STATUSES,
  { to: 'requires_action' },
  {
    /** The payer paid (or the provider holds the payment for review); the provider confirms the funds. */
    process: {
      from: ['requires_action'],
      to: 'processing',
      ledger: { entryType: 'payment_pending', move: 'pend' },
      refusal: waiting('start processing'),
    },
    /** A method that settles at once. */
    succeedAtOnce: {
      from: ['requires_action'],
      to: 'succeeded',
      ledger: { ...succeeded, move: 'credit' },
      refusal: waiting('succeed at once'),
    },
    succeed: { from: ['processing'], to: 'succeeded', ledger: { ...succeeded, move: 'clearPending' }, refusal: settleRefusal },
    fail: { from: ['processing'], to: 'failed', ledger: { entryType: 'payment_failed', move: 'dropPending' }, refusal: settleRefusal },
    cancel: { from: ['requires_action'], to: 'cancelled', refusal: waiting('be cancelled') },
    expire: { from: ['requires_action'], to: 'expired', refusal: waiting('expire') },
  },
);
