/**
 * Amounts arrive as minor-unit decimal strings. They are formatted with the server's own
 * currency table (src/modules/methods/currency.ts, bundled as is): string arithmetic on
 * the digits, never a JavaScript number.
 */
import { formatForDisplay } from '../../src/modules/methods/currency';

export function money(amount: string, currency: string): string {
  if (!/^-?\d+$/.test(amount)) return `${amount} ${currency}`;
  const negative = amount.startsWith('-');
  const text = formatForDisplay(BigInt(negative ? amount.slice(1) : amount), currency);
  return negative ? `-${text}` : text;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}

/** The server counts a reason in code points (src/domain/validation.ts CANCEL_REASON_MAX); so does this. */
export const REASON_MAX = 512;
export const codePoints = (s: string): number => [...s].length;

export const label = (status: string): string => status.toLowerCase().replace(/_/g, ' ');

/** The id of the object an event is about ('' when it has none); ids are strings on the wire. */
export function objectIdOf(e: { data: { object: Record<string, unknown> } }): string {
  const id = e.data.object.id;
  return typeof id === 'string' ? id : '';
}
