import { StateMachine } from '../../domain/state-machine';

export const BATCH_STATUSES = ['invalid', 'requires_approval', 'processing', 'cancelled', 'completed', 'partially_completed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

const gate = (verb: string) =>
  ({ code: 'invalid_state', message: `This payout batch is {status}; only a payout batch in requires_approval can be ${verb}.` }) as const;

/**
 * invalid (terminal: nothing was created) | requires_approval -> processing (approve) |
 * cancelled (cancel); processing -> completed | partially_completed once every item settled.
 * The ledger effects are the batch service's (one per currency, or moved to the items).
 */
export const batchStates = new StateMachine(
  'payout_batch',
  BATCH_STATUSES,
  { to: 'requires_approval' },
  {
    approve: { from: ['requires_approval'], to: 'processing', refusal: gate('approved'), event: 'approved' },
    cancel: { from: ['requires_approval'], to: 'cancelled', refusal: gate('cancelled'), event: 'cancelled' },
    complete: {
      from: ['processing'],
      to: 'completed',
      refusal: { code: 'invalid_state', message: 'This payout batch is {status}.' },
      event: 'completed',
    },
    completePartially: {
      from: ['processing'],
      to: 'partially_completed',
      refusal: { code: 'invalid_state', message: 'This payout batch is {status}.' },
      event: 'completed',
    },
  },
);
