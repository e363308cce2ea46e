/**
 * The payment intent as both surfaces show it (its type is read off PaymentIntentSchema),
 * and the constants of its lifecycle.
 */
import { formatAmount } from '../../domain/money';
import { AMOUNT_AND_STATUS_SORTS, type ListSpec } from '../../domain/listing';
import type { CustomerData, PaymentIntent } from './payment.entity';
import type { PaymentMethodOptions } from './payment.input';
import type { PaymentIntentWire } from './payment.schemas';
import { PAYMENT_STATUSES } from './payment.states';
import { isoInstant } from '../../domain/instant';
import { wireRecord } from '../../domain/wire-record';

export type { PaymentIntentWire };

/** How long a hosted checkout page stays open before the payer picks a method. */
export const HOSTED_CHECKOUT_TTL_MS = 60 * 60 * 1000;
export const DEFAULT_CANCEL_MESSAGE = 'Cancelled by the merchant before the payer completed the payment.';
export const EXPIRED_MESSAGE = 'The payer did not complete the payment before it expired.';
export const DEFAULT_TEST_FAILURE = { failure_code: 'payment_declined', failure_message: "The payment was declined by the payer's bank." };

/** processing_reason values (docs/payments.md). */
export const PROCESSING_REASONS = {
  /** The payer has paid (QR scanned, transfer made, bank approval given); the provider is confirming the funds. */
  providerConfirmation: 'provider_confirmation',
} as const;

export const PAYMENT_LIST: ListSpec = { resource: 'payment_intent', statuses: PAYMENT_STATUSES, sorts: AMOUNT_AND_STATUS_SORTS };

/** The payer data stored (encrypted) with an intent. */
export interface StoredPayer {
  customer: CustomerData;
  payment_method_options: PaymentMethodOptions;
}

export function paymentToWire(p: PaymentIntent): PaymentIntentWire {
  return wireRecord({
    object: 'payment_intent',
    id: p.id,
    amount: formatAmount(p.amount),
    currency: p.currency,
    country: p.country,
    environment: p.environment,
    checkout_mode: p.checkoutMode,
    status: p.status,
    merchant_reference: p.merchantReference,
    payment_method: p.paymentMethod,
    next_action: p.status === 'requires_action' ? p.nextAction : null,
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    processing_reason: p.status === 'processing' ? p.processingReason : null,
    receipt: p.status === 'succeeded' ? p.receipt : null,
    amount_refunded: formatAmount(p.amountRefunded),
    payment_link: p.paymentLinkId ?? null,
    created_at: isoInstant(p.createdAt),
    updated_at: isoInstant(p.updatedAt),
  });
}
