/** The state tables are the single description of each transition: checked here without a database. */
import { ApiError } from '../../src/domain/errors';
import { MOVES } from '../../src/domain/moves';
import { paymentStates } from '../../src/modules/payments/payment.states';
import { payoutStates } from '../../src/modules/payouts/payout.states';
import { topupStates } from '../../src/modules/topups/topup.states';
import { refundStates } from '../../src/modules/refunds/refund.states';

const TABLES = [payoutStates, paymentStates, topupStates, refundStates];

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

test.each(TABLES.map((t) => [t.name, t] as const))('%s: every transition names known states, a refusal and a known ledger movement', (_name, table) => {
  for (const t of Object.values(table.transitions)) {
    for (const s of [...t.from, t.to]) expect(table.states).toContain(s);
    expect(t.from.length).toBeGreaterThan(0);
    expect(t.refusal.message).toContain('{status}');
    if (t.ledger) expect(Object.keys(MOVES)).toContain(t.ledger.move);
  }
  expect(table.states).toContain(table.entry.to);
});

test('payout: approve and cancel only from requires_approval; cancel refuses with approval_required', () => {
  expect(payoutStates.check('approve', 'requires_approval').to).toBe('processing');
  const approved = refusal(() => payoutStates.check('approve', 'processing'));
  expect(approved.code).toBe('invalid_state');
  expect(approved.message).toBe('This payout intent is processing; only a payout intent in requires_approval can be approved.');
  const cancelled = refusal(() => payoutStates.check('cancel', 'succeeded'));
  expect(cancelled.code).toBe('approval_required');
  expect(cancelled.status).toBe(422);
});

test('payout: creating holds the amount and its fee; cancel and failure give both back; success pays both out', () => {
  expect(payoutStates.entry.ledger).toEqual({ entryType: 'payout_reserved', move: 'reserve', fees: 'hold' });
  expect(payoutStates.transitions.cancel.ledger).toMatchObject({ move: 'release', fees: 'release' });
  expect(payoutStates.transitions.fail.ledger).toMatchObject({ move: 'release', fees: 'release' });
  expect(payoutStates.transitions.succeed.ledger).toMatchObject({ move: 'payOut', fees: 'pay' });
  expect(payoutStates.transitions.approve.ledger).toBeUndefined();
});

test('payment: success credits available at once, or clears pending after processing', () => {
  expect(paymentStates.transitions.succeedAtOnce.ledger?.move).toBe('credit');
  expect(paymentStates.transitions.process.ledger?.move).toBe('pend');
  expect(paymentStates.transitions.succeed.ledger?.move).toBe('clearPending');
  expect(paymentStates.transitions.fail.ledger?.move).toBe('dropPending');
  expect(paymentStates.transitions.cancel.ledger).toBeUndefined();
  expect(refusal(() => paymentStates.check('succeed', 'requires_action')).code).toBe('invalid_state');
});

test('refund: creating holds the amount; success pays it out, failure gives it back; settling only from pending', () => {
  expect(refundStates.entry).toEqual({ to: 'pending', ledger: { entryType: 'refund_reserved', move: 'reserve' } });
  expect(refundStates.check('succeed', 'pending').to).toBe('succeeded');
  expect(refundStates.transitions.succeed.ledger?.move).toBe('payOut');
  expect(refundStates.check('fail', 'pending').to).toBe('failed');
  expect(refundStates.transitions.fail.ledger?.move).toBe('release');
  const settled = refusal(() => refundStates.check('fail', 'succeeded'));
  expect(settled.code).toBe('invalid_state');
  expect(settled.message).toBe('This refund is succeeded; only a pending refund can be settled.');
  expect(refundStates.isTerminal('pending')).toBe(false);
});

test('terminal states have no way out; can() follows the table', () => {
  for (const table of TABLES as { states: readonly string[]; isTerminal(s: string): boolean; targets(s: string): string[] }[]) {
    for (const s of table.states) {
      expect(table.isTerminal(s)).toBe(table.targets(s).length === 0);
    }
  }
  expect(payoutStates.isTerminal('succeeded')).toBe(true);
  expect(payoutStates.can('requires_approval', 'cancelled')).toBe(true);
  expect(payoutStates.can('processing', 'cancelled')).toBe(false);
  expect(topupStates.can('requires_action', 'expired')).toBe(true);
});

test('a movement never changes the total except by what enters or leaves', () => {
  const sum = (ms: { amount: bigint }[]) => ms.reduce((a, m) => a + m.amount, 0n);
  expect(sum(MOVES.reserve(700n))).toBe(0n);
  expect(sum(MOVES.release(700n))).toBe(0n);
  expect(sum(MOVES.clearPending(700n))).toBe(0n);
  expect(sum(MOVES.credit(700n))).toBe(700n);
  expect(sum(MOVES.payOut(700n))).toBe(-700n);
});
