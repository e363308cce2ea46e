/**
 * Payment intent create input: validation, normalisation and the merchant_reference
 * fingerprint (payments-api.md idempotency rule 10). Everything is normalised before it
 * is fingerprinted, so equivalent requests (keys reordered, defaults written out,
 * `thb` for `THB`) have the same fingerprint and replay.
 */
import { canonicalJson, sha256Hex } from '../../domain/canonical';
import { ApiError } from '../../domain/errors';
import { FieldReader, readIntentBasics } from '../../domain/validation';
import { CheckoutMode } from '../methods/catalogue';
import type { PayerData } from '../methods/connector';
import { parseCheckoutMode } from '../methods/method-query';
import type { CustomerData } from './payment.entity';

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
}

type Rule = Parameters<FieldReader['string']>[1];

const collapse = (v: string) => v.trim().replace(/\s+/g, ' ');

/** Field rules shared by the create request and the hosted page's form. */
export const RULES = {
  name: { max: 256, normalise: collapse } satisfies Rule,
  email: {
    max: 254,
    normalise: (v: string) => {
      const t = v.trim();
      const at = t.lastIndexOf('@');
      return at < 0 ? t : t.slice(0, at) + t.slice(at).toLowerCase();
    },
    pattern: /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*\.[A-Za-z]{2,}$/,
    describe: 'an e-mail address such as somchai@example.com',
  } satisfies Rule,
  phone: {
    max: 32,
    normalise: (v: string) => v.replace(/[\s\-().]/g, ''),
    pattern: /^\+[1-9][0-9]{6,14}$/,
    describe: 'an international (E.164) number starting with + and the country code, such as +66812345678',
  } satisfies Rule,
  reference: { max: 256, normalise: (v: string) => v.trim() } satisfies Rule,
  account_name: { max: 256, normalise: collapse } satisfies Rule,
  account_number: {
    max: 20,
    normalise: (v: string) => v.replace(/[\s-]/g, ''),
    pattern: /^[0-9]{6,20}$/,
    describe: '6 to 20 digits (spaces and hyphens are ignored)',
  } satisfies Rule,
  bank: { max: 32, normalise: (v: string) => v.trim().toUpperCase(), pattern: /^[A-Z][A-Z0-9_]{1,31}$/, describe: 'a bank code such as KBANK' } satisfies Rule,
  name_th: {
    max: 256,
    normalise: collapse,
    pattern: /^[\u0E00-\u0E7F][\u0E00-\u0E7F .]*$/,
    describe: 'the name in Thai script, such as สมชาย ใจดี',
  } satisfies Rule,
  payment_method: { max: 40, normalise: (v: string) => v.trim().toLowerCase(), pattern: /^[a-z][a-z0-9_]*$/, describe: 'a method name such as promptpay' } satisfies Rule,
};

export const RETURN_URL_MAX = 2048;

export function checkReturnUrl(value: string, param = 'return_url'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw ApiError.validation(param, `${param} must be an absolute http or https URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw ApiError.validation(param, `${param} must be an absolute http or https URL.`);
  if (url.username || url.password) throw ApiError.validation(param, `${param} must not contain credentials.`);
  return value;
}

function parseCustomer(body: FieldReader): CustomerData {
  if (!body.has('customer')) throw ApiError.validation('customer', 'customer is required: send at least one of customer.name, customer.email, customer.phone, customer.reference.');
  const c = body.object('customer');
  const customer: CustomerData = {};
  const name = c.optionalString('name', RULES.name);
  const email = c.optionalString('email', RULES.email);
  const phone = c.optionalString('phone', RULES.phone);
  const reference = c.optionalString('reference', RULES.reference);
  c.end();
  if (name !== undefined) customer.name = name;
  if (email !== undefined) customer.email = email;
  if (phone !== undefined) customer.phone = phone;
  if (reference !== undefined) customer.reference = reference;
  if (Object.keys(customer).length === 0) {
    throw ApiError.validation('customer', 'customer must contain at least one of name, email, phone, reference.');
  }
  return customer;
}

function parseOptions(body: FieldReader): PaymentMethodOptions {
  const o = body.optionalObject('payment_method_options');
  if (!o) return {};
  if (o.has('payer')) {
    throw ApiError.validation(
      'payment_method_options.payer',
      'payment_method_options.payer is the discovery object, which must not be sent back. Map each options.payer field to its create-request path: '
        + 'customer_name -> customer.name, customer_phone -> customer.phone, account_name -> payment_method_options.account_name, '
        + 'account_number -> payment_method_options.account_number, bank -> payment_method_options.bank, name_th -> payment_method_options.name_th.',
    );
  }
  const options: PaymentMethodOptions = {};
  const accountName = o.optionalString('account_name', RULES.account_name);
  const accountNumber = o.optionalString('account_number', RULES.account_number);
  const bank = o.optionalString('bank', RULES.bank);
  const nameTh = o.optionalString('name_th', RULES.name_th);
  o.end();
  if (accountName !== undefined) options.account_name = accountName;
  if (accountNumber !== undefined) options.account_number = accountNumber;
  if (bank !== undefined) options.bank = bank;
  if (nameTh !== undefined) options.name_th = nameTh;
  return options;
}

export function parseCreatePayment(raw: unknown): CreatePaymentInput {
  const body = FieldReader.body(raw);
  if (body.has('options')) {
    throw ApiError.validation('options', 'options is the discovery record\'s field and must not be sent back; put payer data under customer and payment_method_options.');
  }
  const { amount, currency, country, merchantReference } = readIntentBasics(body);
  const modeRaw = body.optionalString('checkout_mode');
  const checkoutMode = modeRaw === undefined ? 'direct' : parseCheckoutMode(modeRaw, 'checkout_mode');
  const customer = parseCustomer(body);
  const paymentMethod = body.optionalString('payment_method', RULES.payment_method) ?? null;
  const options = parseOptions(body);
  const returnUrl = body.optionalString('return_url', { max: RETURN_URL_MAX });
  const metadata = body.optionalStringMap('metadata') ?? {};
  const deviceFingerprint = body.optionalString('device_fingerprint', { max: 512 }) ?? null;
  const externalReference = body.optionalString('external_reference', { max: 256 }) ?? null;
  body.end();

  if (checkoutMode === 'hosted') {
    if (paymentMethod !== null) {
      throw ApiError.validation('payment_method', 'Omit payment_method with checkout_mode hosted: the payer chooses the method on the hosted page.');
    }
    if (Object.keys(options).length > 0) {
      throw ApiError.validation('payment_method_options', 'Omit payment_method_options with checkout_mode hosted: the hosted page collects what the chosen method needs.');
    }
  }
  return {
    amount,
    currency,
    country,
    merchant_reference: merchantReference,
    checkout_mode: checkoutMode,
    customer,
    payment_method: paymentMethod,
    payment_method_options: options,
    return_url: returnUrl === undefined ? null : checkReturnUrl(returnUrl),
    metadata,
    device_fingerprint: deviceFingerprint,
    external_reference: externalReference,
  };
}

/** The eleven fingerprinted fields of payments-api.md rule 10, normalised and with defaults filled. */
export function paymentFingerprint(input: CreatePaymentInput): string {
  return sha256Hex(canonicalJson({
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
  }));
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

const FORM_RULES: Readonly<Record<'customer_name' | 'customer_phone' | 'account_name' | 'account_number' | 'name_th', Rule>> = {
  customer_name: RULES.name,
  customer_phone: RULES.phone,
  account_name: RULES.account_name,
  account_number: RULES.account_number,
  name_th: RULES.name_th,
};

/**
 * Validates the hosted page's form with the create request's rules. Returns every field
 * error at once (keyed by discovery name) so the page can show them together.
 */
export function parseCheckoutForm(raw: unknown): { selection?: CheckoutSelection; errors: Record<string, string> } {
  const form = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const errors: Record<string, string> = {};
  const read = (name: string, rule: Rule): string | undefined => {
    const value = form[name];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
    try {
      return FieldReader.body({ [name]: value }).string(name, rule);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      errors[name] = err.message;
      return undefined;
    }
  };
  const method = read('payment_method', RULES.payment_method);
  if (!method && !errors.payment_method) errors.payment_method = 'payment_method is required.';
  const bank = read('bank', RULES.bank);
  const payer: PayerData = {};
  for (const [name, rule] of Object.entries(FORM_RULES)) {
    const value = read(name, rule);
    if (value !== undefined) payer[name as keyof typeof FORM_RULES] = value;
  }
  if (bank) payer.bank = bank;
  if (Object.keys(errors).length > 0 || !method) return { errors };
  return { selection: { method, bank, payer }, errors };
}
