/**
 * Money is a minor-unit decimal string at the edges and a bigint in arithmetic.
 * No amount ever passes through a JavaScript number.
 */
/** The most significant digits an amount may have (the `Amount` schema in fields.ts). */
export const MAX_AMOUNT_DIGITS = 30;

export function formatAmount(value: bigint): string {
  return value.toString(10);
}
