/**
 * The payment-method catalogue's vocabulary and types. Three layers:
 *
 *  - METHODS: the provider-neutral methods merchants and payers see (`promptpay`,
 *    `bank_transfer`, ...), with the kind of `next_action` each produces.
 *  - BANKS: provider-neutral bank codes (`KBANK`, `BCA`, ...) and their names.
 *  - PROVIDERS (providers.ts): the simulated payment providers. Each lists its offers:
 *    which method it serves, in which countries and currencies, for which amounts and
 *    checkout modes, through which banks, which payer data it requires, and its own local
 *    codes. Their shape (ProviderDefinition, Offer, ...) is declared here.
 *
 * Local codes, provider codes and priorities are routing facts: they never leave the
 * service (discovery and intents show only the neutral names). To add a provider, add an
 * entry to PROVIDERS; nothing else changes (see docs/payments.md).
 */
import type { Environment } from '../auth/api-key.entity';
import type { NextActionType } from './next-action';

export const PAYMENT_METHODS = ['promptpay', 'bank_transfer', 'online_banking', 'direct_debit'] as const;
export type PaymentMethodName = (typeof PAYMENT_METHODS)[number];

export const CHECKOUT_MODES = ['direct', 'hosted'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

/**
 * Payer data a provider may require, under the discovery names of payments-api.md, and
 * the create-request path each maps to. The order is the order errors report them in.
 */
export const PAYER_FIELDS = ['customer_name', 'customer_phone', 'account_name', 'account_number', 'bank', 'name_th'] as const;
export type PayerField = (typeof PAYER_FIELDS)[number];

export const PAYER_FIELD_PATHS: Readonly<Record<PayerField, string>> = {
  customer_name: 'customer.name',
  customer_phone: 'customer.phone',
  account_name: 'payment_method_options.account_name',
  account_number: 'payment_method_options.account_number',
  bank: 'payment_method_options.bank',
  name_th: 'payment_method_options.name_th',
};

export interface MethodDefinition {
  name: PaymentMethodName;
  displayName: string;
  /** What the payer is shown; null for a method that settles at once. */
  nextActionType: NextActionType | null;
  /** How long the payer has to complete the action. */
  actionTtlMs: number;
  /** True when the payer chooses a bank (one discovery record per bank). */
  bankChoice: boolean;
  /** Who moves requires_action -> processing: the provider when it sees the payment (and the simulator's timer), or the payer on the bank's page. */
  completedBy: 'provider' | 'payer_redirect' | 'none';
  /** Shown on the hosted page under the method name. */
  hint: string;
}

const MINUTE = 60_000;

export const METHODS: Readonly<Record<PaymentMethodName, MethodDefinition>> = {
  promptpay: {
    name: 'promptpay',
    displayName: 'PromptPay QR',
    nextActionType: 'display_qr_code',
    actionTtlMs: 15 * MINUTE,
    bankChoice: false,
    completedBy: 'provider',
    hint: 'Scan the QR code with any Thai banking app.',
  },
  bank_transfer: {
    name: 'bank_transfer',
    displayName: 'Bank transfer',
    nextActionType: 'display_bank_transfer_instructions',
    actionTtlMs: 24 * 60 * MINUTE,
    bankChoice: true,
    completedBy: 'provider',
    hint: 'Transfer the exact amount with the reference shown.',
  },
  online_banking: {
    name: 'online_banking',
    displayName: 'Online banking',
    nextActionType: 'redirect_to_url',
    actionTtlMs: 30 * MINUTE,
    bankChoice: true,
    completedBy: 'payer_redirect',
    hint: "Approve the payment on your bank's website.",
  },
  direct_debit: {
    name: 'direct_debit',
    displayName: 'Direct debit',
    nextActionType: null,
    actionTtlMs: 0,
    bankChoice: true,
    completedBy: 'none',
    hint: 'Debited from your registered bank account at once.',
  },
};

export { BANKS, type BankDefinition } from '../../domain/banks';

/** How a provider reaches one bank. */
export interface BankRoute {
  /** The provider's own code for the bank. Never shown. */
  localCode: string;
  /** bank_transfer: the provider's collection account at this bank. */
  account?: { number: string; name: string };
  /** bank_transfer: virtual accounts instead: prefix + digits derived from the intent. */
  virtualAccountPrefix?: string;
}

export interface Offer {
  method: PaymentMethodName;
  /** The provider's own code for the method. Never shown. */
  localCode: string;
  countries: readonly string[];
  currencies: readonly string[];
  /** Inclusive bounds, minor units. */
  minAmount: bigint;
  maxAmount: bigint;
  checkoutModes: readonly CheckoutMode[];
  /** Neutral bank code -> route; absent for methods without a bank choice. */
  banks?: Readonly<Record<string, BankRoute>>;
  /** Payer data this provider needs for this method (discovery names). */
  payer: readonly PayerField[];
  /** Lower is preferred when several providers serve the same method and bank. */
  priority: number;
}

/** What the simulated provider does with a payment in test mode, keyed by the payer's account number. */
export interface TestOutcome {
  /** The payment is held in processing with this processing_reason instead of settling at once. */
  holdReason: string;
  /** How the held payment settles (on the timer or the succeed/fail helpers' own choice). */
  settle: { status: 'succeeded' } | { status: 'failed'; failureCode: string; failureMessage: string };
}

export interface ProviderDefinition {
  /** The code a merchant pins discovery to (`provider=`). Never shown in responses. */
  code: string;
  /** For operators only. */
  name: string;
  /** What the `provider` pin of discovery names this provider by, when not its code (a real provider account: `stripe`, `opn`). */
  pin?: string;
  environments: readonly Environment[];
  /** PromptPay biller id of the provider's collection account (13-digit tax id + suffix). */
  promptPayBillerId?: string;
  offers: readonly Offer[];
  /** Test-mode magic values (account_number -> outcome). */
  testOutcomes?: Readonly<Record<string, TestOutcome>>;
}
