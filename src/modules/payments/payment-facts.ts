/** What a payment intent row says about itself: its scope, its receipt, its planned test outcome, and its provider offer. */
import { formatAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import { PROVIDERS } from '../methods/providers';
import type { PaymentConnector, SettleOutcome } from '../methods/connector';
import { CONNECTORS } from '../methods/simulated.connector';
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

/** The connector and offer a routed payment was sent to (stored on the row by `beginStart`). */
export function offerOf(p: PaymentIntent): { connector: PaymentConnector; offer: (typeof PROVIDERS)[number]['offers'][number] } {
  const connector = p.provider ? CONNECTORS.get(p.provider) : undefined;
  const offer = PROVIDERS.find((d) => d.code === p.provider)?.offers.find((o) => o.method === p.paymentMethod);
  if (!connector || !offer) throw new Error(`payment ${p.id}: provider ${p.provider} has no ${p.paymentMethod} offer`);
  return { connector, offer };
}
