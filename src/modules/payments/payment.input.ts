/**
 * Payment intent create input: normalisation of a body the schema accepted
 * (payment-request.schemas.ts) and the merchant_reference fingerprint (payments-api.md
 * idempotency rule 10). Everything is normalised before it is fingerprinted, so equivalent
 * requests (keys reordered, defaults written out, `thb` for `THB`) have the same
 * fingerprint and replay.
 */
import type { TSchema } from '@sinclair/typebox';
import { canonicalJson, sha256Hex } from '../../domain/canonical';
import { ApiError } from '../../domain/errors';
import { amountOf, Obj, upper } from '../../domain/fields';
import { check } from '../../domain/schema';
import type { CheckoutMode } from '../methods/catalogue';
import type { PayerData } from '../methods/connector';
import type { CustomerData } from './payment.entity';
import {
  AccountName,
  AccountNumber,
  ACCOUNT_NUMBER_SEPARATORS,
  Bank,
  CreatePaymentIntentBody,
  CustomerName,
  CustomerPhone,
  NameTh,
  PaymentMethodName,
  PHONE_SEPARATORS,
} from './payment-request.schemas';

export interface PaymentMethodOptions {
  account_name?: string;
  account_number?: string;
  bank?: string;
  name_th?: string;
}

export interface CreatePaymentInput {
  amount: bigint;
  currency: string;
  country: string;
  merchant_reference: string;
  checkout_mode: CheckoutMode;
  customer: CustomerData;
  payment_method: string | null;
  payment_method_options: PaymentMethodOptions;
  return_url: string | null;
  metadata: Record<string, string>;
  device_fingerprint: string | null;
  external_reference: string | null;
  /** The payment link the payer started from (not part of the API's create body, nor of the fingerprint). */
  payment_link?: string | null;
}

const collapse = (v: string) => v.trim().replace(/\s+/g, ' ');
const phoneSeparators = new RegExp(PHONE_SEPARATORS, 'g');
const accountSeparators = new RegExp(ACCOUNT_NUMBER_SEPARATORS, 'g');

/** What each payer field's valid input becomes (the schemas in payment-request.schemas.ts say what is valid). */
export const NORMALISE = {
  name: collapse,
  email: (v: string): string => {
    const t = v.trim();
    const at = t.lastIndexOf('@');
    return t.slice(0, at) + t.slice(at).toLowerCase();
  },
  phone: (v: string): string => v.replace(phoneSeparators, ''),
  reference: (v: string): string => v.trim(),
  account_name: collapse,
  account_number: (v: string): string => v.replace(accountSeparators, ''),
  bank: upper,
  name_th: collapse,
  payment_method: (v: string): string => v.trim().toLowerCase(),
};

/** Copies the fields that have a value (null and absent mean omitted), normalised. */
function present<K extends string>(from: Partial<Record<K, string | null>>, normalise: Record<K, (v: string) => string>): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of Object.keys(normalise) as K[]) {
    const v = from[key];
    if (v !== undefined && v !== null) out[key] = normalise[key](v);
  }
  return out;
}

/** Normalises a create body the schema accepted. */
export function parseCreatePayment(body: CreatePaymentIntentBody): CreatePaymentInput {
  const { name, email, phone, reference, account_name, account_number, bank, name_th } = NORMALISE;
  return {
    amount: amountOf(body.amount),
    currency: upper(body.currency),
    country: upper(body.country),
    merchant_reference: body.merchant_reference,
    checkout_mode: (body.checkout_mode?.trim().toLowerCase() ?? 'direct') as CheckoutMode,
    customer: present(body.customer, { name, email, phone, reference }),
    payment_method: body.payment_method == null ? null : NORMALISE.payment_method(body.payment_method),
    payment_method_options: present(body.payment_method_options ?? {}, { account_name, account_number, bank, name_th }),
    return_url: body.return_url ?? null,
    metadata: body.metadata ?? {},
    device_fingerprint: body.device_fingerprint ?? null,
    external_reference: body.external_reference ?? null,
  };
}

/** The eleven fingerprinted fields of payments-api.md rule 10, normalised and with defaults filled. */
export function paymentFingerprint(input: CreatePaymentInput): string {
  return sha256Hex(
    canonicalJson({
      amount: input.amount.toString(10),
      currency: input.currency,
      country: input.country,
      customer: input.customer,
      checkout_mode: input.checkout_mode,
      payment_method: input.payment_method,
      payment_method_options: input.payment_method_options,
      return_url: input.return_url,
      device_fingerprint: input.device_fingerprint,
      metadata: input.metadata,
      external_reference: input.external_reference,
    }),
  );
}

/** The payer data of a create request, under the discovery names. */
export function payerOf(customer: CustomerData, options: PaymentMethodOptions): PayerData {
  return {
    customer_name: customer.name,
    customer_phone: customer.phone,
    customer_email: customer.email,
    account_name: options.account_name,
    account_number: options.account_number,
    bank: options.bank,
    name_th: options.name_th,
  };
}

/** What the hosted page's form sends: the chosen method and bank, and payer data under the discovery names. */
export interface CheckoutSelection {
  method: string;
  bank?: string;
  payer: PayerData;
}

type FormField = 'customer_name' | 'customer_phone' | 'account_name' | 'account_number' | 'name_th';

/** One form field: the create request's schema for it, and its normalisation. */
interface FormRule {
  schema: TSchema;
  normalise: (v: string) => string;
}

const rule = (schema: TSchema, normalise: (v: string) => string): FormRule => ({ schema: Obj({ value: schema }), normalise });

const FORM_RULES: Readonly<Record<FormField | 'payment_method' | 'bank', FormRule>> = {
  payment_method: rule(PaymentMethodName, NORMALISE.payment_method),
  bank: rule(Bank, NORMALISE.bank),
  customer_name: rule(CustomerName, NORMALISE.name),
  customer_phone: rule(CustomerPhone, NORMALISE.phone),
  account_name: rule(AccountName, NORMALISE.account_name),
  account_number: rule(AccountNumber, NORMALISE.account_number),
  name_th: rule(NameTh, NORMALISE.name_th),
};
const PAYER_FORM_FIELDS: readonly FormField[] = ['customer_name', 'customer_phone', 'account_name', 'account_number', 'name_th'];

/**
 * Validates the hosted page's form with the create request's schemas. Returns every field
 * error at once (keyed by discovery name) so the page can show them together.
 */
export function parseCheckoutForm(raw: unknown): { selection?: CheckoutSelection; errors: Record<string, string> } {
  const form = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const read = (name: keyof typeof FORM_RULES): string | undefined => {
    const value = form[name];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
    try {
      return FORM_RULES[name].normalise((check(FORM_RULES[name].schema, { value }, 'body') as { value: string }).value);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors[name] = err.message.replace(/^value\b/, name);
      return undefined;
    }
  };
  const method = read('payment_method');
  if (!method && !errors.payment_method) errors.payment_method = 'payment_method is required.';
  const bank = read('bank');
  const payer: PayerData = {};
  for (const name of PAYER_FORM_FIELDS) {
    const value = read(name);
    if (value !== undefined) payer[name] = value;
  }
  if (bank) payer.bank = bank;
  if (Object.keys(errors).length > 0 || !method) return { errors };
  return { selection: { method, bank, payer }, errors };
}
