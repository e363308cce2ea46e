/** What a payment intent row says about itself: its scope, its receipt, its planned test outcome, and its provider offer. */
import { formatAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import type { SettleOutcome } from '../methods/connector';
import type { PaymentIntent, ReceiptData } from './payment.entity';

/** The receipt of a payment paid at `now`. */
export function receiptOf(p: PaymentIntent, now: Date): ReceiptData {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  return {
    receipt_number: `RCPT-${day}-${p.id.slice(-10).toUpperCase()}`,
    amount: formatAmount(p.amount),
    currency: p.currency,
    payment_method: p.paymentMethod ?? 'unknown',
    bank: p.bank,
    reference: p.paymentReference ?? p.id,
    paid_at: now.toISOString(),
  };
}

export function scopeOf(p: PaymentIntent): Scope {
  return { merchantId: p.merchantId, environment: p.environment };
}

export function plannedOutcome(p: PaymentIntent): SettleOutcome {
  return p.plannedFailureCode
    ? {
        status: 'failed',
        failureCode: p.plannedFailureCode,
        failureMessage: p.plannedFailureMessage ?? `Payment failed: ${p.plannedFailureCode}.`,
      }
    : { status: 'succeeded' };
}
