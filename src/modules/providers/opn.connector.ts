/**
 * Opn Payments (formerly Omise), through a small typed client of its documented API
 * (opn.client.ts; decision 0167): PromptPay (a charge on a `promptpay` source; its Thai QR
 * bill-payment references are the QR payload, drawn here) and Thai internet and mobile
 * banking (a charge on an `internet_banking_*` or `mobile_banking_*` source; the payer is sent
 * from our `/checkout/<token>/authorize` on to the charge's `authorize_uri`). The banks offered
 * are the account's capability (GET /capability), read again at most every CAPABILITY_TTL_MS.
 * A webhook is believed only after its event is fetched back by id with the account's key.
 */
import { createHmac } from 'node:crypto';
import { METHODS, type BankRoute, type Offer, type ProviderDefinition } from '../methods/catalogue';
import type { PaymentAttempt, StartResult } from '../methods/connector';
import { toMajorString } from '../../domain/currency';
import { promptPayPayload } from '../methods/emvco';
import { qrSvgDataUrl } from '../methods/qr';
import { qrMerchantName } from '../methods/simulated.connector';
import {
  InvalidSignatureError,
  type LiveConnector,
  type PayoutRequest,
  type PayoutWebhookNews,
  type ProviderPaymentState,
  type ProviderPayoutState,
  type ProviderRefundState,
  ProviderUnavailableError,
  type RefundRequest,
  type WebhookNews,
} from './live-connector';
import { OpnClient, OpnError, type OpnCapability, type OpnCharge, type OpnRefund, type OpnTransfer } from './opn.client';
import type { ProviderAccount, ProviderSecrets } from './provider-account.entity';

/** Opn's own API, when the account names no --api-base. */
export const OPN_API_BASE = 'https://api.omise.co';
/** How long a capability read is trusted before routing asks again. */
export const CAPABILITY_TTL_MS = 5 * 60_000;
/** After a failed capability read, how long before the next try. */
const CAPABILITY_RETRY_MS = 60_000;

/** Opn's bank source types by neutral bank code: internet banking first, else the bank's mobile app. */
const BANK_SOURCES: Readonly<Record<string, readonly string[]>> = {
  BBL: ['internet_banking_bbl', 'mobile_banking_bbl'],
  BAY: ['internet_banking_bay', 'mobile_banking_bay'],
  KTB: ['internet_banking_ktb', 'mobile_banking_ktb'],
  SCB: ['internet_banking_scb', 'mobile_banking_scb'],
  KBANK: ['mobile_banking_kbank'],
};

/** Opn's bank brands for transfers, by neutral bank code (Thai banks only). */
export const OPN_TRANSFER_BRANDS: Readonly<Record<string, string>> = { KBANK: 'kbank', SCB: 'scb', BBL: 'bbl', KTB: 'ktb', BAY: 'bay' };

const PROMPTPAY: Offer = {
  method: 'promptpay',
  localCode: 'promptpay',
  countries: ['TH'],
  currencies: ['THB'],
  minAmount: 2_000n,
  maxAmount: 15_000_000n,
  checkoutModes: ['direct', 'hosted'],
  payer: [],
  priority: 10,
};

/** What the account offers, from its capability (null: not read yet, PromptPay only). */
export function opnDefinition(account: ProviderAccount, capability: OpnCapability | null): ProviderDefinition {
  const methods = new Set((capability?.payment_methods ?? []).filter((m) => m.currencies.map((c) => c.toUpperCase()).includes('THB')).map((m) => m.name));
  const banks: Record<string, BankRoute> = {};
  for (const [bank, types] of Object.entries(BANK_SOURCES)) {
    const type = types.find((t) => methods.has(t));
    if (type) banks[bank] = { localCode: type };
  }
  const offers: Offer[] = [];
  if (capability === null || methods.has('promptpay')) offers.push(PROMPTPAY);
  if (Object.keys(banks).length > 0) {
    offers.push({
      method: 'online_banking',
      localCode: 'banking',
      countries: ['TH'],
      currencies: ['THB'],
      minAmount: 2_000n,
      maxAmount: 10_000_000n,
      checkoutModes: ['direct', 'hosted'],
      banks,
      payer: ['bank'],
      priority: 10,
    });
  }
  return { code: account.id, name: 'opn', pin: 'opn', environments: [account.environment], offers };
}

/** A charge's status in the gateway's words (Opn's failure code and message for the logs only). */
export function opnStateOf(charge: OpnCharge): ProviderPaymentState {
  switch (charge.status) {
    case 'successful':
      return { status: 'succeeded' };
    case 'failed':
      return { status: 'failed', providerCode: charge.failure_code ?? 'failed', providerMessage: charge.failure_message ?? undefined };
    case 'expired':
    case 'reversed':
      return { status: 'cancelled', providerCode: charge.status };
    default:
      return { status: 'pending' };
  }
}

/**
 * A transfer's state in the gateway's words: a failure code means it failed (Opn's code and
 * message for the logs only), `paid` that the bank paid it; anything else is still pending.
 * Opn's transfer has no state after paid (no reversal field or status): a transfer Opn reports
 * with a failure code after it was paid is `failed` here, and the payout service decides what
 * that means for a payout it already saw paid.
 */
export function opnTransferStateOf(transfer: OpnTransfer): ProviderPayoutState {
  if (transfer.failure_code)
    return { status: 'failed', providerReference: transfer.id, providerCode: transfer.failure_code, providerMessage: transfer.failure_message ?? undefined };
  return { status: transfer.paid ? 'succeeded' : 'pending', providerReference: transfer.id };
}

export class OpnConnector implements LiveConnector {
  definition: ProviderDefinition;
  readonly client: OpnClient;
  private capabilityReadAt = 0;
  private readonly recipientSecret: string;
  private reading: Promise<void> | null = null;
  /** Bumped whenever the definition changes (routing's cache key carries it). */
  definitionVersion = 0;

  constructor(
    readonly account: ProviderAccount,
    secrets: ProviderSecrets,
    timeoutMs: number,
  ) {
    this.definition = opnDefinition(account, null);
    this.recipientSecret = secrets.secretKey;
    this.client = new OpnClient({ secretKey: secrets.secretKey, publicKey: secrets.publicKey, apiBase: account.apiBase ?? OPN_API_BASE, timeoutMs });
  }

  get code(): string {
    return this.account.id;
  }

  /** Reads the account's capability again when the last read is older than CAPABILITY_TTL_MS; a failed read keeps what was known. Never rejects. */
  async refresh(now = Date.now()): Promise<void> {
    if (now - this.capabilityReadAt < CAPABILITY_TTL_MS) return;
    this.reading ??= (async () => {
      try {
        const next = opnDefinition(this.account, await this.client.capability());
        if (
          JSON.stringify(next, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) !==
          JSON.stringify(this.definition, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
        ) {
          this.definition = next;
          this.definitionVersion++;
        }
        this.capabilityReadAt = Date.now();
      } catch {
        // Unreachable or refused: routing keeps the last known offers; asked again in a minute.
        this.capabilityReadAt = Date.now() - CAPABILITY_TTL_MS + CAPABILITY_RETRY_MS;
      } finally {
        this.reading = null;
      }
    })();
    await this.reading;
  }

  async start(offer: Offer, attempt: PaymentAttempt): Promise<StartResult> {
    if (attempt.currency !== 'THB') throw new Error('opn connector: THB only');
    if (attempt.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('opn connector: amount out of range');
    const amount = Number(attempt.amount);
    const sourceType = offer.method === 'promptpay' ? 'promptpay' : attempt.bank ? offer.banks?.[attempt.bank]?.localCode : undefined;
    if (!sourceType) throw new Error(`opn connector: no source for ${offer.method} ${attempt.bank ?? ''}`);
    // Keys derived from our record: a repeated start (crash recovery) is the same source and charge at Opn.
    const source = await this.client.createSource({ type: sourceType, amount, currency: 'THB' }, `pgw-${attempt.intentId}-source`);
    const charge = await this.client.createCharge(
      { amount, currency: 'THB', source: source.id, return_uri: attempt.checkoutUrl, metadata: { gateway_payment_intent: attempt.intentId } },
      `pgw-${attempt.intentId}`,
    );
    const method = METHODS[offer.method];
    const expiresAt = new Date(attempt.now.getTime() + method.actionTtlMs);
    const base = {
      expiresAt,
      initial: { status: 'requires_action' } as const,
      settlement: { status: 'succeeded' } as const,
      reference: `PI${attempt.intentId.slice(-16).toUpperCase()}`,
      providerReference: charge.id,
    };
    if (offer.method === 'promptpay') {
      const refs = charge.source?.references;
      if (!refs?.omise_tax_id || !refs.reference_number_1) throw new ProviderUnavailableError('the charge carries no PromptPay references');
      const data = promptPayPayload({
        // The Thai QR bill-payment biller id: the collector's 13-digit tax id and a 2-digit suffix.
        billerId: refs.omise_tax_id.length === 13 ? `${refs.omise_tax_id}00` : refs.omise_tax_id,
        reference1: refs.reference_number_1,
        reference2: refs.reference_number_2 || undefined,
        amount: toMajorString(attempt.amount, attempt.currency),
        merchantName: qrMerchantName(attempt.merchantName),
      });
      return {
        ...base,
        nextAction: { type: 'display_qr_code', expires_at: expiresAt.toISOString(), display_qr_code: { data, image_url_svg: qrSvgDataUrl(data) } },
      };
    }
    if (!charge.authorize_uri) throw new ProviderUnavailableError('the charge carries no authorize_uri');
    return {
      ...base,
      // The payer sees only our address; it redirects to the bank's page (checkout.routes.ts).
      nextAction: { type: 'redirect_to_url', url: `${attempt.checkoutUrl}/authorize`, expires_at: expiresAt.toISOString() },
      providerRedirectUrl: charge.authorize_uri,
    };
  }

  async fetchPayment(providerReference: string): Promise<ProviderPaymentState> {
    return opnStateOf(await this.client.retrieveCharge(providerReference));
  }

  async refund(request: RefundRequest): Promise<ProviderRefundState> {
    if (request.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('opn connector: amount out of range');
    let refund: OpnRefund;
    try {
      refund = request.providerReference
        ? await this.client.retrieveRefund(request.paymentReference, request.providerReference)
        : await this.client.createRefund(
            request.paymentReference,
            { amount: Number(request.amount), metadata: { gateway_refund: request.refundId } },
            `pgw-${request.refundId}`,
          );
    } catch (err) {
      // Opn refused the refund itself (4xx): it failed, with Opn's code for the operator's log.
      if (err instanceof OpnError) return { status: 'failed', providerReference: request.providerReference ?? '', providerCode: err.code };
      throw err;
    }
    const status = refund.status === 'failed' ? 'failed' : refund.status === 'pending' ? 'pending' : 'succeeded';
    return { status, providerReference: refund.id };
  }

  paysOutTo(bankCode: string, currency: string): boolean {
    return currency === 'THB' && Object.hasOwn(OPN_TRANSFER_BRANDS, bankCode);
  }

  /** A transfer to the bank account's recipient (made once per bank account and reused); read back by id once sent. */
  async payout(request: PayoutRequest): Promise<ProviderPayoutState> {
    let transfer;
    try {
      if (request.providerReference) {
        transfer = await this.client.retrieveTransfer(request.providerReference);
      } else {
        const brand = OPN_TRANSFER_BRANDS[request.bankCode];
        if (!brand || request.currency !== 'THB') return { status: 'failed', providerReference: null, providerCode: 'unsupported_bank' };
        if (request.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('opn connector: amount out of range');
        // No account number in clear at rest: the recipient is found again by an HMAC under the account's key.
        const key = createHmac('sha256', this.recipientSecret).update(`${request.bankCode}\n${request.accountNumber}\n${request.holderName}`).digest('hex');
        let recipient = await request.recipients.get(key);
        if (!recipient) {
          recipient = (
            await this.client.createRecipient(
              { name: request.holderName, type: 'individual', bank_account: { brand, number: request.accountNumber, name: request.holderName } },
              `pgw-recipient-${key.slice(0, 32)}`,
            )
          ).id;
          await request.recipients.put(key, recipient);
        }
        // fail_fast: a failed transfer stays failed at Opn (not retried later), as the payout it
        // fails gives its amount back at once; a retry that paid would pay it out twice.
        transfer = await this.client.createTransfer(
          { amount: Number(request.amount), recipient, fail_fast: true, metadata: { gateway_payout_intent: request.payoutId } },
          `pgw-${request.payoutId}`,
        );
      }
    } catch (err) {
      // Opn refused the transfer or the recipient itself (4xx): the payout fails, Opn's code in the log.
      if (err instanceof OpnError)
        return { status: 'failed', providerReference: request.providerReference, providerCode: err.code, providerMessage: err.message };
      throw err;
    }
    return opnTransferStateOf(transfer);
  }

  /** Opn signs nothing by default: only the event id in the body is read, and the event is fetched back from Opn with the account's key. */
  async receiveWebhook(
    raw: Buffer,
    _headers: unknown,
    ours: (providerReference: string, kind: 'payment' | 'payout') => Promise<boolean>,
  ): Promise<WebhookNews | PayoutWebhookNews | null> {
    let claimed: unknown;
    try {
      claimed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new InvalidSignatureError('the body is not JSON');
    }
    const id = (claimed as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !/^evnt_[A-Za-z0-9_]{1,64}$/.test(id)) throw new InvalidSignatureError('no Opn event id');
    // Only charge and transfer events are acted on, and only about our charges and transfers:
    // anything else is answered without a call to Opn (a flood of posted event ids cannot spend
    // the account's API quota).
    const data = (claimed as { data?: { object?: unknown; id?: unknown } }).data;
    const kind = data?.object === 'charge' ? 'payment' : data?.object === 'transfer' ? 'payout' : null;
    if (kind === null || typeof data?.id !== 'string' || !(await ours(data.id, kind))) return null;
    let event;
    try {
      event = await this.client.retrieveEvent(id);
    } catch (err) {
      if (err instanceof OpnError && err.status === 404) throw new InvalidSignatureError('Opn does not know the event');
      throw err;
    }
    if (event.object !== 'event' || event.id !== id) throw new InvalidSignatureError('Opn answered another record');
    // What Opn answered is believed, not what was posted (the claimed id only chose the lookup).
    if (event.data?.object === 'transfer') {
      const transfer = event.data as unknown as OpnTransfer;
      return { eventId: event.id, eventType: event.key, providerReference: transfer.id, payout: opnTransferStateOf(transfer) };
    }
    if (event.data?.object !== 'charge') return null;
    const charge = event.data as unknown as OpnCharge;
    return { eventId: event.id, eventType: event.key, providerReference: charge.id, state: opnStateOf(charge) };
  }
}
