/**
 * The connector contract of a real provider account. A live connector starts a payment and
 * answers the provider's reference and the payer's next step (PaymentConnector.start, with
 * `providerReference` set); the outcome arrives later, by a webhook the connector verifies
 * (`receiveWebhook`) or by reading the payment back (`fetchPayment`, the reconciliation job).
 * Nothing a connector answers that merchants see carries the provider's name, host, ids or codes.
 */
import type { PaymentConnector } from '../methods/connector';
import type { ProviderAccount } from './provider-account.entity';

/** A payment as the provider sees it, in the gateway's words (the provider's own code only for the logs). */
export interface ProviderPaymentState {
  status: 'pending' | 'processing' | 'succeeded' | 'failed' | 'cancelled';
  /** The provider's failure code and message, for the operator's logs only. */
  providerCode?: string;
  providerMessage?: string;
}

/** A refund as the provider has it (its own failure code for the logs only). */
export interface ProviderRefundState {
  status: 'pending' | 'succeeded' | 'failed';
  /** The provider's id of the refund. */
  providerReference: string;
  providerCode?: string;
}

/** A refund to send (or, with `providerReference`, to read back). */
export interface RefundRequest {
  refundId: string;
  /** The provider's id of the refunded payment. */
  paymentReference: string;
  amount: bigint;
  currency: string;
  /** Set once the provider has the refund: read it back instead of creating it. */
  providerReference: string | null;
}

/** A transfer as the provider has it. */
export interface ProviderPayoutState {
  status: 'pending' | 'succeeded' | 'failed';
  providerReference: string | null;
  providerCode?: string;
  providerMessage?: string;
}

/** Where a connector keeps the recipients it made, to reuse them (provider_recipients). */
export interface RecipientStore {
  get(key: string): Promise<string | null>;
  put(key: string, recipientId: string): Promise<void>;
}

/** A payout to send (or, with `providerReference`, to read back). */
export interface PayoutRequest {
  payoutId: string;
  amount: bigint;
  currency: string;
  bankCode: string;
  accountNumber: string;
  holderName: string;
  providerReference: string | null;
  recipients: RecipientStore;
}

/** What a verified webhook says about one payment. */
export interface WebhookNews {
  eventId: string;
  eventType: string;
  providerReference: string;
  state: ProviderPaymentState;
}

/**
 * What a verified webhook says about one payout's transfer: the transfer as the event carried
 * it. The payout is then read back from the provider before it moves (an event may be late).
 */
export interface PayoutWebhookNews {
  eventId: string;
  eventType: string;
  providerReference: string;
  payout: ProviderPayoutState;
}

/** What a record of ours at the provider is: a payment (charge) or a payout (transfer). */
export type ProviderRecordKind = 'payment' | 'payout';

/** The provider timed out, could not be reached or answered 5xx before accepting: the next eligible account may be tried. */
export class ProviderUnavailableError extends Error {
  /** Why, for the operator's logs (no secret, no payer data); failover looks for this property. */
  constructor(readonly providerUnavailable: string) {
    super(`provider unavailable: ${providerUnavailable}`);
  }
}

/** A webhook whose signature does not verify (or that the provider does not confirm). */
export class InvalidSignatureError extends Error {}

export interface LiveConnector extends PaymentConnector {
  readonly account: ProviderAccount;
  /** The payment as the provider has it now. */
  fetchPayment(providerReference: string): Promise<ProviderPaymentState>;
  /**
   * Verifies a webhook; answers the payment (or payout) news it carries, or null for an event
   * about something else. Throws InvalidSignatureError. `ours` says whether a provider reference
   * is one of our payments (or payouts) at this account: a connector that must call the provider
   * to believe an event (Opn's fetch-back) asks it first, so a posted event about nothing of
   * ours costs no call.
   */
  receiveWebhook(
    raw: Buffer,
    headers: Record<string, string | string[] | undefined>,
    ours: (providerReference: string, kind: ProviderRecordKind) => Promise<boolean>,
  ): Promise<WebhookNews | PayoutWebhookNews | null>;
  /** Sends a refund of one of its payments (idempotency key derived from the refund id), or reads it back. */
  refund(request: RefundRequest): Promise<ProviderRefundState>;
  /** Whether the account pays out to bank accounts at `bankCode` in `currency` (absent: it makes no payouts). */
  paysOutTo?(bankCode: string, currency: string): boolean;
  /** Sends a payout as a transfer to a (reused) recipient, or reads the transfer back. */
  payout?(request: PayoutRequest): Promise<ProviderPayoutState>;
  /** Reads what the account offers again when due (Opn's capability); routing calls it before reading `definition`. */
  refresh?(): Promise<void>;
  /** Changes whenever `definition` does (routing's cache key carries it). */
  readonly definitionVersion?: number;
}

/** The connector codes of real provider accounts are their ids (pa_...); the simulated providers' are names. */
export function isAccountCode(code: string | null): code is string {
  return code !== null && code.startsWith('pa_');
}
