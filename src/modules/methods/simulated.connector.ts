/**
 * The simulated providers: one generic connector driven entirely by a catalogue entry
 * (src/modules/methods/providers.ts). What a method shows the payer is chosen by table
 * lookup on the method's next_action type, never by provider-specific branches.
 */
import { createHash } from 'node:crypto';
import { BANKS, BankRoute, METHODS, Offer, ProviderDefinition } from './catalogue';
import { PROVIDERS } from './providers';
import type { PaymentAttempt, PaymentConnector, StartResult } from './connector';
import { toMajorString } from '../../domain/currency';
import { promptPayPayload } from './emvco';
import type { NextAction, NextActionType } from './next-action';
import { qrSvgDataUrl } from './qr';

interface BuildContext {
  provider: ProviderDefinition;
  route: BankRoute | undefined;
  attempt: PaymentAttempt;
  reference: string;
  expiresAt: string;
}

/** Letters and digits a QR merchant-name field can carry. */
export function qrMerchantName(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9 .-]/g, '')
    .trim()
    .toUpperCase();
  return ascii || 'MERCHANT';
}

/** Digits derived from the intent id: a stable virtual account number per intent. */
function virtualAccount(prefix: string, intentId: string, length = 16): string {
  const digest = BigInt(`0x${createHash('sha256').update(intentId).digest('hex')}`);
  const width = length - prefix.length;
  return prefix + (digest % 10n ** BigInt(width)).toString(10).padStart(width, '0');
}

const BUILDERS: Readonly<Record<NextActionType, (c: BuildContext) => NextAction>> = {
  display_qr_code: ({ provider, attempt, reference, expiresAt }) => {
    if (!provider.promptPayBillerId || attempt.currency !== 'THB') throw new Error(`catalogue: ${provider.code} cannot issue a PromptPay QR`);
    const data = promptPayPayload({
      billerId: provider.promptPayBillerId,
      reference1: reference,
      amount: toMajorString(attempt.amount, attempt.currency),
      merchantName: qrMerchantName(attempt.merchantName),
    });
    return { type: 'display_qr_code', expires_at: expiresAt, display_qr_code: { data, image_url_svg: qrSvgDataUrl(data) } };
  },
  display_bank_transfer_instructions: ({ provider, route, attempt, reference, expiresAt }) => {
    if (!route || !attempt.bank) throw new Error(`catalogue: ${provider.code} bank_transfer needs a bank route`);
    const account = route.virtualAccountPrefix
      ? { number: virtualAccount(route.virtualAccountPrefix, attempt.intentId), name: attempt.merchantName }
      : route.account;
    if (!account) throw new Error(`catalogue: ${provider.code} has no collection account at ${attempt.bank}`);
    return {
      type: 'display_bank_transfer_instructions',
      expires_at: expiresAt,
      display_bank_transfer_instructions: {
        bank: attempt.bank,
        bank_name: BANKS[attempt.bank]?.name ?? attempt.bank,
        account_number: account.number,
        account_name: account.name,
        reference,
        amount: attempt.amount.toString(10),
        currency: attempt.currency,
      },
    };
  },
  // The simulated bank's authorisation page lives under the intent's checkout address.
  redirect_to_url: ({ attempt, expiresAt }) => ({
    type: 'redirect_to_url',
    url: `${attempt.checkoutUrl}/authorize`,
    expires_at: expiresAt,
  }),
};

export class SimulatedConnector implements PaymentConnector {
  constructor(readonly definition: ProviderDefinition) {}

  get code(): string {
    return this.definition.code;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- connectors start asynchronously; the simulator answers at once, and its throws reject like a real one's
  async start(offer: Offer, attempt: PaymentAttempt): Promise<StartResult> {
    const method = METHODS[offer.method];
    const reference = `PI${attempt.intentId.slice(-16).toUpperCase()}`;
    const expiresAt = new Date(attempt.now.getTime() + method.actionTtlMs);
    const magic = attempt.environment === 'test' && attempt.payer.account_number ? this.definition.testOutcomes?.[attempt.payer.account_number] : undefined;

    if (method.nextActionType === null) {
      // Settles at once, unless a test-mode magic account number holds it for review.
      return magic
        ? { nextAction: null, expiresAt, initial: { status: 'processing', reason: magic.holdReason }, settlement: magic.settle, reference }
        : { nextAction: null, expiresAt, initial: { status: 'succeeded' }, settlement: { status: 'succeeded' }, reference };
    }
    const route = attempt.bank ? offer.banks?.[attempt.bank] : undefined;
    const nextAction = BUILDERS[method.nextActionType]({
      provider: this.definition,
      route,
      attempt,
      reference,
      expiresAt: expiresAt.toISOString(),
    });
    return {
      nextAction,
      expiresAt,
      initial: { status: 'requires_action' },
      settlement: magic?.settle ?? { status: 'succeeded' },
      reference,
    };
  }
}

/** Every provider of the catalogue, by code. */
export const CONNECTORS: ReadonlyMap<string, PaymentConnector> = new Map(PROVIDERS.map((p) => [p.code, new SimulatedConnector(p)]));
