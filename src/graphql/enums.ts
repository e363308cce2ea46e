/** GraphQL enums: UPPER_CASE names whose internal values are the REST wire strings. */
import { registerEnumType } from 'type-graphql';
import { PAYMENT_STATUSES, PaymentStatus } from '../modules/payments/payment.states';
import { PAYOUT_STATUSES, PayoutStatus } from '../modules/payouts/payout.states';
import { REFUND_STATUSES, RefundStatus } from '../modules/refunds/refund.states';
import { TOPUP_STATUSES, TopupStatus } from '../modules/topups/topup.states';

type WireEnum<V extends string> = { [K in V as Uppercase<K>]: K };

/** The GraphQL enum of a state list (`REQUIRES_ACTION` -> `requires_action`): it cannot drift from the state machine. */
function stateEnum<V extends string>(states: readonly V[], name: string): WireEnum<V> {
  const values = Object.fromEntries(states.map((state) => [state.toUpperCase(), state])) as WireEnum<V>;
  registerEnumType(values, { name });
  return values;
}

export enum EnvironmentEnum {
  TEST = 'test',
  LIVE = 'live',
}
registerEnumType(EnvironmentEnum, { name: 'Environment', description: 'Set by the API key prefix; never by input.' });

export const PayoutIntentStatusEnum = stateEnum(PAYOUT_STATUSES, 'PayoutIntentStatus');
export type PayoutIntentStatusEnum = PayoutStatus;

export enum RecipientTypeEnum {
  BANK_ACCOUNT = 'bank_account',
}
registerEnumType(RecipientTypeEnum, { name: 'RecipientType' });

export const TopupIntentStatusEnum = stateEnum(TOPUP_STATUSES, 'TopupIntentStatus');
export type TopupIntentStatusEnum = TopupStatus;

export const PaymentIntentStatusEnum = stateEnum(PAYMENT_STATUSES, 'PaymentIntentStatus');
export type PaymentIntentStatusEnum = PaymentStatus;

export const RefundStatusEnum = stateEnum(REFUND_STATUSES, 'RefundStatus');
export type RefundStatusEnum = RefundStatus;

export enum CheckoutModeEnum {
  DIRECT = 'direct',
  HOSTED = 'hosted',
}
registerEnumType(CheckoutModeEnum, {
  name: 'CheckoutMode',
  description: 'DIRECT (default): the merchant names the method or the service picks one. HOSTED: the payer chooses on the hosted page.',
});
