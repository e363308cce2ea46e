/** GraphQL enums: UPPER_CASE names whose internal values are the REST wire strings. */
import { registerEnumType } from 'type-graphql';
import { PAYMENT_STATUSES, PaymentStatus } from '../modules/payments/payment.states';
import { PAYOUT_STATUSES, PayoutStatus } from '../modules/payouts/payout.states';
import { REFUND_STATUSES, RefundStatus } from '../modules/refunds/refund.states';
import { TOPUP_STATUSES, TopupStatus } from '../modules/topups/topup.states';
import { EVENT_TYPES, FAILURE_CODES, type EventTypeName, type FailureCodeName } from '../modules/events/event-types';
import { PAYMENT_METHODS, type PaymentMethodName } from '../modules/methods/catalogue';

type WireEnum<V extends string> = { [K in V as Uppercase<K>]: K };

/** The GraphQL enum of a state list (`REQUIRES_ACTION` -> `requires_action`): it cannot drift from the state machine. */
function stateEnum<V extends string>(states: readonly V[], name: string, what: string, meaning: Record<V, string>): WireEnum<V> {
  const values = Object.fromEntries(states.map((state) => [state.toUpperCase(), state])) as WireEnum<V>;
  const valuesConfig = Object.fromEntries(states.map((state) => [state.toUpperCase(), { description: meaning[state] }])) as Partial<
    Record<keyof WireEnum<V>, { description: string }>
  >;
  registerEnumType(values, { name, description: `Where a ${what} is in its lifecycle (REST: the lower-case status).`, valuesConfig });
  return values;
}

export enum EnvironmentEnum {
  TEST = 'test',
  LIVE = 'live',
}
registerEnumType(EnvironmentEnum, {
  name: 'Environment',
  description: 'Set by the API key prefix; never by input.',
  valuesConfig: { TEST: { description: 'Test mode: simulated providers, test keys.' }, LIVE: { description: 'Live mode: real money.' } },
});

export const PayoutIntentStatusEnum = stateEnum(PAYOUT_STATUSES, 'PayoutIntentStatus', 'payout intent', {
  requires_approval: 'Created, its amount reserved; waits for approval (or cancel).',
  processing: 'Approved and sent to the provider.',
  succeeded: 'The recipient was paid.',
  failed: 'The provider refused it; the amount went back to the balance.',
  cancelled: 'Cancelled before approval; the reservation was released.',
});
export type PayoutIntentStatusEnum = PayoutStatus;

export enum RecipientTypeEnum {
  BANK_ACCOUNT = 'bank_account',
}
registerEnumType(RecipientTypeEnum, {
  name: 'RecipientType',
  description: 'What a payout is sent to.',
  valuesConfig: { BANK_ACCOUNT: { description: 'A bank account: bank code, account number and holder name.' } },
});

export const TopupIntentStatusEnum = stateEnum(TOPUP_STATUSES, 'TopupIntentStatus', 'topup intent', {
  requires_action: 'Waiting for the bank transfer of nextStep.',
  succeeded: 'The transfer arrived; the balance grew.',
  failed: 'The transfer failed.',
  expired: 'No transfer arrived in time.',
});
export type TopupIntentStatusEnum = TopupStatus;

export const PaymentIntentStatusEnum = stateEnum(PAYMENT_STATUSES, 'PaymentIntentStatus', 'payment intent', {
  requires_action: 'Waiting for the payer (nextStep says what to do).',
  processing: 'The payer acted; the provider is confirming (processingReason says why).',
  succeeded: 'Paid: receipt is present.',
  failed: 'Not paid: failureCode and failureMessage say why.',
  cancelled: 'Cancelled by the merchant before the payer paid.',
  expired: 'The payer did not pay in time.',
});
export type PaymentIntentStatusEnum = PaymentStatus;

export const RefundStatusEnum = stateEnum(REFUND_STATUSES, 'RefundStatus', 'refund', {
  pending: 'Sent to the provider; its amount already counts in amountRefunded.',
  succeeded: 'The payer got the money back.',
  failed: 'The provider refused it; its amount was given back.',
});
export type RefundStatusEnum = RefundStatus;

export enum CheckoutModeEnum {
  DIRECT = 'direct',
  HOSTED = 'hosted',
}
registerEnumType(CheckoutModeEnum, {
  name: 'CheckoutMode',
  description: 'DIRECT (default): the merchant names the method or the service picks one. HOSTED: the payer chooses on the hosted page.',
  valuesConfig: {
    DIRECT: { description: 'The merchant names the method, or the service picks one.' },
    HOSTED: { description: 'The payer chooses the method on the hosted checkout page.' },
  },
});

/** The enum value name of a wire string: `payout_intent.cancelled` -> `PAYOUT_INTENT_CANCELLED`. */
export const enumName = (wire: string): string => wire.replace(/\./g, '_').toUpperCase();

/**
 * A GraphQL enum over wire strings (value name `enumName(wire)`, internal value the wire string).
 * These enums sit beside the contract's String fields (`type`, `failureCode`, `paymentMethod`),
 * as `<field>Enum` fields and arguments, as `amountMoney` sits beside `amount` (docs/graphql.md).
 */
function wireEnum<V extends string>(wires: readonly V[], name: string, description: string, meaning: (wire: V) => string): Record<string, V> {
  const values = Object.fromEntries(wires.map((w) => [enumName(w), w])) as Record<string, V>;
  const valuesConfig = Object.fromEntries(wires.map((w) => [enumName(w), { description: meaning(w) }]));
  registerEnumType(values, { name, description, valuesConfig });
  return values;
}

export const EventTypeEnum = wireEnum(
  EVENT_TYPES,
  'EventType',
  'The type of an event (the String `Event.type` upper-cased with `.` as `_`): PAYOUT_INTENT_CANCELLED is payout_intent.cancelled.',
  (wire) => {
    const [resource, what] = wire.split('.');
    return what === 'created'
      ? `A ${resource.replace(/_/g, ' ')} was created.`
      : `\`${wire}\`: a ${resource.replace(/_/g, ' ')} became or was ${what.replace(/_/g, ' ')}.`;
  },
);
export type EventTypeEnum = EventTypeName;

/** The failure codes the service sets, and OTHER for a test helper's own code. */
const FAILURE_CODE_VALUES = [...(Object.keys(FAILURE_CODES) as FailureCodeName[]), 'other' as const];
export const FailureCodeEnum = wireEnum(
  FAILURE_CODE_VALUES,
  'FailureCode',
  'Why a payment, payout, topup or refund failed or was cancelled (the String `failureCode` upper-cased). OTHER: a code a test helper named; `failureCode` has it.',
  (code) => (code === 'other' ? 'A code not in this list (a test helper may name any snake_case code); read failureCode.' : FAILURE_CODES[code]),
);
export type FailureCodeEnum = FailureCodeName | 'other';

/** The FailureCode of a wire failure code: null stays null, a code outside the list is OTHER. */
export function failureCodeEnum(code: string | null): FailureCodeEnum | null {
  if (code === null) return null;
  return code in FAILURE_CODES ? (code as FailureCodeName) : 'other';
}

export const PaymentMethodEnum = wireEnum(
  PAYMENT_METHODS,
  'PaymentMethod',
  'A payment method of this service (the String `paymentMethod` upper-cased): PROMPTPAY is promptpay.',
  (m) =>
    ({
      promptpay: 'PromptPay: the payer scans a QR code in their banking app.',
      bank_transfer: 'A bank transfer to the account the next step names.',
      online_banking: "Internet or mobile banking: the payer approves on their bank's page.",
      direct_debit: "A debit from the payer's bank account.",
    })[m],
);
export type PaymentMethodEnum = PaymentMethodName;

/** The PaymentMethod of a wire method name; null for none (hosted checkout before the payer chose). */
export function paymentMethodEnum(method: string | null): PaymentMethodEnum | null {
  return method !== null && (PAYMENT_METHODS as readonly string[]).includes(method) ? (method as PaymentMethodName) : null;
}
