/**
 * The lists behind the GraphQL enums EventType and FailureCode (src/modules/events/event-types.ts, src/domain/failure-codes.ts)
 * cover what the state tables record and the codes the simulated providers and test helpers set.
 */
import { EVENT_TYPES } from '../../src/modules/events/event-types';
import { FAILURE_CODES } from '../../src/domain/failure-codes';
import { paymentStates } from '../../src/modules/payments/payment.states';
import { payoutStates } from '../../src/modules/payouts/payout.states';
import { topupStates } from '../../src/modules/topups/topup.states';
import { refundStates } from '../../src/modules/refunds/refund.states';
import { batchStates } from '../../src/modules/batches/batch.states';
import { PAYOUT_FAILURES } from '../../src/modules/payouts/simulated-payout.provider';
import { REFUND_FAILURES } from '../../src/modules/refunds/simulated-refund.provider';
import { DEFAULT_TEST_FAILURE } from '../../src/modules/payments/payment.wire';
import { TOPUP_TEST_FAILURE } from '../../src/modules/topups/topup.service';

test('every event a state table records is an EventType', () => {
  const recorded = [paymentStates, payoutStates, topupStates, refundStates, batchStates].flatMap((machine) => [
    `${machine.name}.created`,
    ...Object.values(machine.transitions).map((t) => `${machine.name}.${t.event ?? t.to}`),
  ]);
  const missing = recorded.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  expect(missing).toEqual([]);
});

test('every failure code the providers and test helpers set is a FailureCode', () => {
  const set = [
    ...Object.values(PAYOUT_FAILURES).map((f) => f.failureCode),
    ...Object.values(REFUND_FAILURES).map((f) => f.failureCode),
    DEFAULT_TEST_FAILURE.failure_code,
    TOPUP_TEST_FAILURE.failure_code,
  ];
  expect(set.filter((code) => !(code in FAILURE_CODES))).toEqual([]);
});
