/**
 * The payer fields the hosted checkout page collects: labels and input attributes, the
 * browser-side check of each (restating the create request's schemas) and the payer-facing
 * wording of its errors, shared with the server's check of the submitted form.
 */
import type { PayerField } from '../methods/catalogue';
import { esc } from './checkout.layout';
import {
  AccountName,
  ACCOUNT_NUMBER_DIGITS,
  ACCOUNT_NUMBER_SEPARATORS,
  CustomerName,
  CustomerPhone,
  E164,
  NameTh,
  PHONE_SEPARATORS,
  THAI_NAME,
} from './payment-request.schemas';

/** Payer fields the page can collect (bank comes with the method choice). */
export const FORM_FIELDS: Readonly<
  Record<Exclude<PayerField, 'bank'>, { label: string; type: string; autocomplete: string; placeholder: string; hint?: string; inputmode?: string }>
> = {
  customer_name: { label: 'Full name', type: 'text', autocomplete: 'name', placeholder: 'Somchai Jaidee' },
  customer_phone: {
    label: 'Mobile number',
    type: 'tel',
    autocomplete: 'tel',
    placeholder: '+66812345678',
    hint: 'International format: + and country code.',
  },
  account_name: { label: 'Account holder name', type: 'text', autocomplete: 'name', placeholder: 'As shown on your bank account' },
  account_number: {
    label: 'Your bank account number',
    type: 'text',
    autocomplete: 'off',
    placeholder: '1234567890',
    inputmode: 'numeric',
    hint: 'The account you pay from.',
  },
  name_th: {
    label: 'Name in Thai',
    type: 'text',
    autocomplete: 'off',
    placeholder: 'สมชาย ใจดี',
    hint: 'As registered with your bank, in Thai script.',
  },
};

type FormField = keyof typeof FORM_FIELDS;

/**
 * The server's rule for each form field (the create request's schemas, payment-request.schemas.ts),
 * restated for the browser check: characters stripped before matching, the pattern, the
 * maximum length. The server re-checks everything; the browser check only saves a round trip.
 */
const CLIENT_RULES: Readonly<Record<FormField, { strip?: string; pattern?: RegExp; max: number }>> = {
  customer_name: { max: CustomerName.maxLength as number },
  customer_phone: { strip: PHONE_SEPARATORS, pattern: new RegExp(E164), max: CustomerPhone.maxLength as number },
  account_name: { max: AccountName.maxLength as number },
  account_number: {
    strip: ACCOUNT_NUMBER_SEPARATORS,
    pattern: new RegExp(`^[0-9]{${ACCOUNT_NUMBER_DIGITS.min},${ACCOUNT_NUMBER_DIGITS.max}}$`),
    max: ACCOUNT_NUMBER_DIGITS.max,
  },
  name_th: { pattern: new RegExp(THAI_NAME), max: NameTh.maxLength as number },
};

/** Payer-facing wording for each field's format error (browser and server say the same). */
export const FIELD_MESSAGES: Readonly<Record<FormField, { missing: string; invalid: string }>> = {
  customer_name: { missing: 'Enter your full name.', invalid: 'Enter your full name (at most 256 characters).' },
  customer_phone: {
    missing: 'Enter your mobile number.',
    invalid: 'Enter your mobile number in international format, for example +66812345678.',
  },
  account_name: { missing: 'Enter the account holder name.', invalid: 'Enter the account holder name (at most 256 characters).' },
  account_number: { missing: 'Enter your bank account number.', invalid: 'Enter your account number: 6 to 20 digits.' },
  name_th: { missing: 'Enter your name in Thai.', invalid: 'Enter your name in Thai script, for example สมชาย ใจดี.' },
};

export function clientRule(f: FormField): string {
  const r = CLIENT_RULES[f];
  const m = FIELD_MESSAGES[f];
  return (
    ` data-max="${r.max}"${r.strip ? ` data-strip="${esc(r.strip)}"` : ''}${r.pattern ? ` data-pattern="${esc(r.pattern.source)}"` : ''}` +
    ` data-missing="${esc(m.missing)}" data-invalid="${esc(m.invalid)}"`
  );
}
