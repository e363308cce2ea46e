/**
 * A batch's rows, checked with the payout create rules (the same schema and normaliser as
 * POST /v1/payout_intents): the first error of each row, and the normalised payouts of the
 * rows that pass. A merchant_reference repeated inside the batch is an error of the later row.
 */
import { ApiError } from '../../domain/errors';
import { check } from '../../domain/schema';
import { CreatePayoutIntentBody } from '../payouts/payout.schemas';
import { parseCreatePayout, type CreatePayoutInput } from '../payouts/payout.service';
import type { BatchTotal, RowError } from './batch.entity';

export interface CheckedRows {
  /** The normalised payouts, in row order (only meaningful when `errors` is empty). */
  rows: CreatePayoutInput[];
  errors: RowError[];
}

/** `rename`: how a row's field is named in the errors (the CSV names its columns, not `recipient.bank_code`). */
export function checkRows(items: readonly unknown[], rename: (param: string) => string = (p) => p): CheckedRows {
  const rows: CreatePayoutInput[] = [];
  const errors: RowError[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const row = i + 1;
    try {
      const input = parseCreatePayout(check(CreatePayoutIntentBody, item, 'body'));
      const first = seen.get(input.merchant_reference);
      if (first !== undefined) {
        errors.push({ row, param: 'merchant_reference', message: `merchant_reference repeats row ${first}.` });
        return;
      }
      seen.set(input.merchant_reference, row);
      rows.push(input);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const param = err.param === undefined || err.param === 'body' ? 'row' : err.param;
      errors.push({
        row,
        param: rename(param),
        message: param === 'row' ? `Row ${row} is not a payout: ${err.message}` : renameIn(err.message, param, rename(param)),
      });
    }
  });
  return { rows, errors };
}

/** The sum of the rows per currency, currencies in alphabetical order. */
export function totalsOf(rows: readonly { currency: string; amount: bigint }[]): BatchTotal[] {
  const sums = new Map<string, bigint>();
  for (const r of rows) sums.set(r.currency, (sums.get(r.currency) ?? 0n) + r.amount);
  return [...sums.keys()].sort().map((currency) => ({ currency, amount: sums.get(currency)!.toString() }));
}

/** `items` cut into runs of at most `size` (bulk statements stay a bounded size). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function renameIn(message: string, from: string, to: string): string {
  return from === to ? message : message.split(from).join(to);
}
