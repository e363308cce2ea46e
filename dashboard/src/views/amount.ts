/** Amount entry: a decimal in major units to minor units, by the exponent a Money field gave (string math, never a JS number). */
export function toMinor(input: string, exponent: number): string | null {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(input.trim().replace(/,/g, ''));
  if (!m || (m[2] ?? '').length > exponent) return null;
  const digits = (m[1] + (m[2] ?? '').padEnd(exponent, '0')).replace(/^0+(?=\d)/, '');
  return /^0+$/.test(digits) ? null : digits;
}

/** The exponents the merchant's balances name, per currency (the dashboard carries no currency table). */
export function exponentsOf(balances: { currency: string; availableMoney: { exponent: number } }[]): Map<string, number> {
  return new Map(balances.map((b) => [b.currency, b.availableMoney.exponent]));
}

/** A datetime-local value (the browser's local time) as ISO 8601, or null when empty or invalid. */
export function isoOf(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
