/**
 * Stripe, through its Node SDK: PromptPay as a confirmed PaymentIntent whose
 * next_action.promptpay_display_qr_code.data is the payer's QR payload. The QR image is drawn
 * here from that payload (no Stripe-hosted image or page reaches the payer). Webhooks are
 * verified with stripe.webhooks.constructEvent against the account's webhook secret.
 */
import Stripe from 'stripe';
import { METHODS, type Offer, type ProviderDefinition } from '../methods/catalogue';
import type { PaymentAttempt, StartResult } from '../methods/connector';
import { qrSvgDataUrl } from '../methods/qr';
import {
  InvalidSignatureError,
  LiveConnector,
  ProviderPaymentState,
  ProviderRefundState,
  ProviderUnavailableError,
  RefundRequest,
  WebhookNews,
} from './live-connector';
import type { ProviderAccount, ProviderSecrets } from './provider-account.entity';

/** What a Stripe account offers (THB PromptPay: Stripe's own limits, in satang). */
function stripeDefinition(account: ProviderAccount): ProviderDefinition {
  return {
    code: account.id,
    name: 'stripe',
    pin: 'stripe',
    environments: [account.environment],
    offers: [
      {
        method: 'promptpay',
        localCode: 'stripe:promptpay',
        countries: ['TH'],
        currencies: ['THB'],
        minAmount: 1_000n,
        maxAmount: 15_000_000n,
        checkoutModes: ['direct', 'hosted'],
        payer: [],
        priority: 10,
      },
    ],
  };
}

/** The SDK's options for an account: Stripe itself, or the account's --api-base (a sandbox or a local fake). */
export function stripeOptions(account: ProviderAccount, timeoutMs: number): Stripe.StripeConfig {
  // No SDK retries: a retry is the router's decision (failover), and every create carries an idempotency key anyway.
  const options: Stripe.StripeConfig = { maxNetworkRetries: 0, timeout: timeoutMs, telemetry: false };
  if (account.apiBase) {
    const url = new URL(account.apiBase);
    options.host = url.hostname.replace(/^\[|\]$/g, '');
    options.protocol = url.protocol === 'http:' ? 'http' : 'https';
    if (url.port) options.port = Number(url.port);
  }
  return options;
}

function stateOf(pi: Stripe.PaymentIntent): ProviderPaymentState {
  switch (pi.status) {
    case 'succeeded':
      return { status: 'succeeded' };
    case 'processing':
      return { status: 'processing' };
    case 'canceled':
      return { status: 'cancelled', providerCode: pi.cancellation_reason ?? undefined };
    case 'requires_payment_method':
      // Back to requires_payment_method after an attempt: that attempt failed.
      return pi.last_payment_error
        ? { status: 'failed', providerCode: pi.last_payment_error.code ?? pi.last_payment_error.type, providerMessage: pi.last_payment_error.message }
        : { status: 'pending' };
    default:
      return { status: 'pending' };
  }
}

/** Whether a failed call may be retried on another account: the provider did not accept it (no answer, or 5xx). */
function unavailable(err: unknown): ProviderUnavailableError | null {
  if (err instanceof Stripe.errors.StripeConnectionError) return new ProviderUnavailableError('connection failed or timed out');
  if (err instanceof Stripe.errors.StripeError && (err.statusCode ?? 0) >= 500) return new ProviderUnavailableError(`HTTP ${err.statusCode}`);
  if (err instanceof Stripe.errors.StripeAuthenticationError || err instanceof Stripe.errors.StripePermissionError) {
    return new ProviderUnavailableError(`the account's key was refused (HTTP ${err.statusCode})`);
  }
  return null;
}

export class StripeConnector implements LiveConnector {
  readonly definition: ProviderDefinition;
  private readonly stripe: Stripe;

  constructor(
    readonly account: ProviderAccount,
    private readonly secrets: ProviderSecrets,
    timeoutMs: number,
  ) {
    this.definition = stripeDefinition(account);
    this.stripe = new Stripe(secrets.secretKey, stripeOptions(account, timeoutMs));
  }

  get code(): string {
    return this.account.id;
  }

  async start(offer: Offer, attempt: PaymentAttempt): Promise<StartResult> {
    if (offer.method !== 'promptpay') throw new Error(`stripe connector: no ${offer.method} offer`);
    // The SDK takes amounts as numbers: the offer's bounds keep them far below 2^53.
    if (attempt.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('stripe connector: amount out of range');
    let pi: Stripe.PaymentIntent;
    try {
      pi = await this.stripe.paymentIntents.create(
        {
          amount: Number(attempt.amount),
          currency: attempt.currency.toLowerCase(),
          allowed_payment_method_types: ['promptpay'],
          payment_method_data: {
            type: 'promptpay',
            billing_details: attempt.payer.customer_email ? { email: attempt.payer.customer_email } : {},
          },
          confirm: true,
          metadata: { gateway_payment_intent: attempt.intentId },
        },
        // Derived from our record: a repeated start (crash recovery, a retry) is the same PaymentIntent at Stripe.
        { idempotencyKey: `pgw-${attempt.intentId}` },
      );
    } catch (err) {
      throw unavailable(err) ?? err;
    }
    const data = pi.next_action?.promptpay_display_qr_code?.data;
    if (!data) throw new ProviderUnavailableError('the PaymentIntent carries no PromptPay QR code');
    const expiresAt = new Date(attempt.now.getTime() + METHODS.promptpay.actionTtlMs);
    return {
      nextAction: { type: 'display_qr_code', expires_at: expiresAt.toISOString(), display_qr_code: { data, image_url_svg: qrSvgDataUrl(data) } },
      expiresAt,
      initial: { status: 'requires_action' },
      settlement: { status: 'succeeded' },
      reference: `PI${attempt.intentId.slice(-16).toUpperCase()}`,
      providerReference: pi.id,
    };
  }

  async fetchPayment(providerReference: string): Promise<ProviderPaymentState> {
    try {
      return stateOf(await this.stripe.paymentIntents.retrieve(providerReference));
    } catch (err) {
      throw unavailable(err) ?? err;
    }
  }

  async refund(request: RefundRequest): Promise<ProviderRefundState> {
    if (request.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('stripe connector: amount out of range');
    let refund: Stripe.Refund;
    try {
      refund = request.providerReference
        ? await this.stripe.refunds.retrieve(request.providerReference)
        : await this.stripe.refunds.create(
            { payment_intent: request.paymentReference, amount: Number(request.amount), metadata: { gateway_refund: request.refundId } },
            // Derived from our record: a repeated send is the same refund at Stripe.
            { idempotencyKey: `pgw-${request.refundId}` },
          );
    } catch (err) {
      // Stripe refused the refund itself (4xx): it failed, with Stripe's code for the operator's log.
      if (err instanceof Stripe.errors.StripeInvalidRequestError)
        return { status: 'failed', providerReference: request.providerReference ?? '', providerCode: err.code ?? 'invalid_request' };
      throw unavailable(err) ?? err;
    }
    const status = refund.status === 'succeeded' ? 'succeeded' : refund.status === 'failed' || refund.status === 'canceled' ? 'failed' : 'pending';
    return { status, providerReference: refund.id, providerCode: refund.failure_reason ?? undefined };
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the contract is asynchronous (Opn fetches the event back)
  async receiveWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<WebhookNews | null> {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string' || !this.secrets.webhookSecret) throw new InvalidSignatureError('no Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(raw, signature, this.secrets.webhookSecret);
    } catch {
      throw new InvalidSignatureError('the Stripe-Signature does not verify');
    }
    if (!event.type.startsWith('payment_intent.')) return null;
    const pi = event.data.object as Stripe.PaymentIntent;
    let state: ProviderPaymentState;
    switch (event.type) {
      case 'payment_intent.succeeded':
        state = { status: 'succeeded' };
        break;
      case 'payment_intent.processing':
        state = { status: 'processing' };
        break;
      case 'payment_intent.payment_failed':
        state = { status: 'failed', providerCode: pi.last_payment_error?.code ?? 'payment_failed', providerMessage: pi.last_payment_error?.message };
        break;
      case 'payment_intent.canceled':
        state = { status: 'cancelled', providerCode: pi.cancellation_reason ?? undefined };
        break;
      default:
        return null;
    }
    return { eventId: event.id, eventType: event.type, providerReference: pi.id, state };
  }
}
