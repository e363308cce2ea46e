/**
 * The one interface every payment provider implements. The payment service never knows
 * which provider it talks to: routing hands it a connector and an offer, and the
 * connector answers with what the payer must do and how the payment proceeds.
 */
import type { Connector, SettleOutcome } from '../../domain/connector';
import type { Environment } from '../../domain/scope';
import type { Offer, PaymentMethodName, ProviderDefinition } from './catalogue';
import type { NextAction } from './next-action';

/** Payer data collected on create (or on the hosted page), under the discovery names. */
export interface PayerData {
  customer_name?: string;
  customer_phone?: string;
  customer_email?: string;
  account_name?: string;
  account_number?: string;
  bank?: string;
  name_th?: string;
}

export interface PaymentAttempt {
  intentId: string;
  environment: Environment;
  amount: bigint;
  currency: string;
  country: string;
  method: PaymentMethodName;
  /** Neutral bank code, or null for methods without a bank choice. */
  bank: string | null;
  payer: PayerData;
  merchantName: string;
  /** The intent's checkout address (`<base>/checkout/<token>`); redirect methods send the payer below it. */
  checkoutUrl: string;
  now: Date;
}

export type { SettleOutcome } from '../../domain/connector';

export interface StartResult {
  /** What the payer must do now; null when nothing. */
  nextAction: NextAction | null;
  /** Until when the payer may act (the intent expires afterwards). */
  expiresAt: Date;
  /**
   * Where the payment goes at once: stays in requires_action waiting for the payer,
   * succeeds at once (methods that settle immediately), or is held in processing.
   */
  initial: { status: 'requires_action' } | { status: 'succeeded' } | { status: 'processing'; reason: string };
  /** How the provider will settle the payment once it is processing. */
  settlement: SettleOutcome;
  /** The payer-facing reference (quoted on transfers, shown on the receipt). */
  reference: string;
  /**
   * A real provider's own id of the payment, when the connector is one: the outcome then
   * arrives from the provider (webhook or reconciliation), never from `settlement` or a timer.
   */
  providerReference?: string;
  /**
   * A real provider's page the payer must be sent on to (a bank's authorisation page). Never
   * shown: `nextAction.url` is the service's own `/checkout/<token>/authorize`, which redirects here.
   */
  providerRedirectUrl?: string;
  /** The connector that answered, when failover moved the payment to another account than the one routed. */
  provider?: string;
}

export interface PaymentConnector extends Connector {
  readonly definition: ProviderDefinition;
  /**
   * Starts a payment for `attempt` through `offer` (one of this provider's offers). Called
   * between atomic phases, outside any transaction; `attempt.intentId` makes a repeated
   * start (recovery after a crash) recognisable.
   */
  start(offer: Offer, attempt: PaymentAttempt): Promise<StartResult>;
}
