/**
 * Money is a minor-unit decimal string at the edges and a bigint in arithmetic.
 * No amount ever passes through a JavaScript number.
 */
import { ApiError } from './errors';

export const MAX_AMOUNT_DIGITS = 30;

/** Parses a wire amount: ASCII digits only, > 0, at most 30 significant digits; leading zeros dropped. */
export function parseAmount(value: unknown, param = 'amount'): bigint {
  if (typeof value !== 'string') {
    throw ApiError.validation(param, `${param} must be a string of digits in minor units, for example "1000".`);
  }
  if (!/^[0-9]+$/.test(value)) {
    throw ApiError.validation(param, `${param} must contain only the digits 0-9 (no sign, decimal point or spaces).`);
  }
  const normalised = value.replace(/^0+/, '');
  if (normalised === '') throw ApiError.validation(param, `${param} must be greater than zero.`);
  if (normalised.length > MAX_AMOUNT_DIGITS) {
    throw ApiError.validation(param, `${param} must have at most ${MAX_AMOUNT_DIGITS} digits.`);
  }
  return BigInt(normalised);
}

export function formatAmount(value: bigint): string {
  return value.toString(10);
}
