import { Column, Entity } from 'typeorm';
import { IntentRecord } from '../shared/intent.entity';
import { jsonTransformer, moneyTransformer, timeTransformer } from '../../db/columns';
import { nextActionTransformer } from '../methods/next-action.column';
import type { NextAction } from '../methods/next-action';
import type { PaymentReceiptWire } from './payment.schemas';
import type { PaymentStatus } from './payment.states';

/** The payer's identity and contact details as sent on create (or completed on the hosted page). */
export interface CustomerData {
  name?: string;
  email?: string;
  phone?: string;
  reference?: string;
}

/** The receipt is stored as the wire shows it. */
export type ReceiptData = PaymentReceiptWire;

@Entity('payment_intents')
export class PaymentIntent extends IntentRecord<PaymentStatus> {
  @Column({ name: 'checkout_mode', type: 'varchar', length: 16 })
  checkoutMode: 'direct' | 'hosted';

  /** SHA-256 of the canonical create fingerprint (payments-api.md idempotency rule 10). */
  @Column({ name: 'request_fingerprint', type: 'varchar', length: 64 })
  requestFingerprint: string;

  @Column({ name: 'payment_method', type: 'varchar', length: 40, nullable: true })
  paymentMethod: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  bank: string | null;

  /** Routing fact: the provider serving the payment. Never returned. */
  @Column({ type: 'varchar', length: 40, nullable: true })
  provider: string | null;

  /** The provider's own id of the payment (a real provider's; null for the simulated ones). Never returned. */
  @Column({ name: 'provider_reference', type: 'varchar', length: 255, nullable: true })
  providerReference: string | null;

  /** The provider's page a payer is sent on to from `/checkout/<token>/authorize` (never returned). */
  @Column({ name: 'provider_redirect_url', type: 'text', nullable: true })
  providerRedirectUrl: string | null;

  /** Payer-facing reference issued by the provider. */
  @Column({ name: 'payment_reference', type: 'varchar', length: 64, nullable: true })
  paymentReference: string | null;

  /** AES-256-GCM ciphertext of the payer data (customer and payment_method_options); never returned. */
  @Column({ name: 'payer_encrypted', type: 'text' })
  payerEncrypted: string;

  @Column({ name: 'return_url', type: 'varchar', length: 2048, nullable: true })
  returnUrl: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  metadata: Record<string, string> | null;

  @Column({ name: 'external_reference', type: 'varchar', length: 256, nullable: true })
  externalReference: string | null;

  @Column({ name: 'device_fingerprint', type: 'varchar', length: 512, nullable: true })
  deviceFingerprint: string | null;

  /** The QR image is not stored but drawn from the stored modules (next-action.column.ts). */
  @Column({ name: 'next_action', type: 'text', nullable: true, transformer: nextActionTransformer })
  nextAction: NextAction | null;

  @Column({ name: 'processing_reason', type: 'varchar', length: 64, nullable: true })
  processingReason: string | null;

  @Column({ type: 'text', nullable: true, transformer: jsonTransformer })
  receipt: ReceiptData | null;

  /** How the simulated provider settles a processing payment (null = succeeds). */
  @Column({ name: 'planned_failure_code', type: 'varchar', length: 64, nullable: true })
  plannedFailureCode: string | null;

  @Column({ name: 'planned_failure_message', type: 'varchar', length: 1024, nullable: true })
  plannedFailureMessage: string | null;

  /** 256-bit random token of the hosted checkout address; grants access to this intent only. */
  @Column({ name: 'checkout_token', type: 'varchar', length: 64 })
  checkoutToken: string;

  /** When a requires_action intent expires. */
  @Column({ name: 'expires_at', type: 'bigint', transformer: timeTransformer })
  expiresAt: Date;

  /** When the simulated provider takes its next step on its own (null = never). */
  @Column({ name: 'settle_at', type: 'bigint', nullable: true, transformer: timeTransformer })
  settleAt: Date | null;

  /**
   * Recovery point of a provider call in flight: `start` from the commit that began the
   * provider's start until the commit that records its answer; null otherwise.
   */
  @Column({ name: 'provider_call', type: 'varchar', length: 16, nullable: true })
  providerCall: 'start' | null;

  /** The sum of the payment's refunds that have not failed; never above `amount` (see PaymentLifecycle.addRefunded). */
  @Column({ name: 'amount_refunded', type: 'varchar', length: 40, transformer: moneyTransformer })
  amountRefunded: bigint;

  /** The payment link the payer started from (plink_...), or null. */
  @Column({ name: 'payment_link_id', type: 'varchar', length: 40, nullable: true })
  paymentLinkId: string | null;
}
