/** The methods module's GraphQL enums: PaymentMethod and CheckoutMode. */
import { registerEnumType } from 'type-graphql';
import { wireEnum } from '../../graphql/enums';
import { PAYMENT_METHODS, type PaymentMethodName } from './catalogue';

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
