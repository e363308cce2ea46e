/**
 * Minor units -> a human amount, for QR payloads and the checkout page. String arithmetic
 * on the bigint's digits: an amount never passes through a JavaScript number.
 */

/** ISO 4217 exponents that are not 2. Anything else (including token symbols) uses 2. */
const EXPONENTS: Readonly<Record<string, number>> = {
  JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, UGX: 0, XAF: 0, XOF: 0, PYG: 0,
  BHD: 3, JOD: 3, KWD: 3, OMR: 3, TND: 3,
};

export function exponentOf(currency: string): number {
  return EXPONENTS[currency] ?? 2;
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
