/**
 * Minor units -> a human amount, for QR payloads and the checkout page. String arithmetic
 * on the bigint's digits: an amount never passes through a JavaScript number.
 */
import { CURRENCY_MINOR_UNITS } from './iso-codes';

/** The currency's minor unit (ISO 4217; token symbols count hundredths): digits after the point. */
export function exponentOf(currency: string): number {
  return CURRENCY_MINOR_UNITS.get(currency) ?? 2;
}

/** `15050n, 'THB'` -> `"150.50"` (no grouping): the form EMVCo field 54 wants. */
export function toMajorString(amount: bigint, currency: string): string {
  const exp = exponentOf(currency);
  const digits = amount.toString(10).padStart(exp + 1, '0');
  if (exp === 0) return digits;
  return `${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
}

/** `1234550n, 'THB'` -> `"12,345.50 THB"`, for people. */
export function formatForDisplay(amount: bigint, currency: string): string {
  const [whole, fraction] = toMajorString(amount, currency).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${fraction === undefined ? grouped : `${grouped}.${fraction}`} ${currency}`;
}
