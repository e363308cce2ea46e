/** The payout batch CSV, read in the browser: the rows and every error the browser can see before anything is sent. */
import { parse } from 'csv-parse/browser/esm';
import type { CreatePayoutIntentInput } from '../gql/graphql';

/** The server's header (src/modules/batches CSV_COLUMNS), in this order. */
export const COLUMNS = ['amount', 'currency', 'country', 'merchant_reference', 'bank_code', 'account_number', 'holder_name'] as const;

export const TEMPLATE = `${COLUMNS.join(',')}\r\n150000,THB,TH,salary-2026-001,KBANK,1234567890,สมชาย ใจดี\r\n`;
export const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(`\ufeff${TEMPLATE}`)}`;

export interface RowError {
  row: number;
  column: string;
  message: string;
}

export interface ParsedCsv {
  rows: string[][];
  items: CreatePayoutIntentInput[];
  errors: RowError[];
}

const CHECKS: [string, RegExp, string][] = [
  ['amount', /^[1-9]\d*$/, 'must be a positive whole number of minor units (15000 = 150.00 THB)'],
  ['currency', /^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code'],
  ['country', /^[A-Z]{2}$/, 'must be a two-letter ISO 3166-1 code'],
  ['merchant_reference', /^\S.{0,254}$/u, 'is required'],
  ['bank_code', /^[A-Za-z0-9._-]{1,64}$/, 'must be letters, digits, ".", "_" or "-"'],
  ['account_number', /^(?:[\s-]*[A-Za-z0-9]){4,34}[\s-]*$/, 'must be 4 to 34 letters or digits'],
  ['holder_name', /\S/, 'is required'],
];

function records(text: string): Promise<string[][]> {
  return new Promise((resolve, reject) =>
    parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }, (err, out: string[][]) => (err ? reject(err) : resolve(out))),
  );
}

/** Rows are numbered from 1 after the header, as the server numbers them. */
export async function readCsv(text: string): Promise<ParsedCsv> {
  let all: string[][];
  try {
    all = await records(text);
  } catch (e) {
    return { rows: [], items: [], errors: [{ row: 0, column: 'file', message: `not readable as CSV: ${(e as Error).message}` }] };
  }
  const [header, ...rows] = all;
  const errors: RowError[] = [];
  if (!header || header.map((h) => h.trim()).join(',') !== COLUMNS.join(',')) {
    errors.push({ row: 0, column: 'header', message: `the first line must be ${COLUMNS.join(',')}` });
    return { rows, items: [], errors };
  }
  if (rows.length === 0) errors.push({ row: 0, column: 'file', message: 'has no rows after the header' });
  const seen = new Map<string, number>();
  const items = rows.map((cells, i) => {
    const row = i + 1;
    if (cells.length !== COLUMNS.length) errors.push({ row, column: 'row', message: `has ${cells.length} cells, expected ${COLUMNS.length}` });
    const v = (c: string) => (cells[COLUMNS.indexOf(c as (typeof COLUMNS)[number])] ?? '').trim();
    for (const [column, re, message] of CHECKS) if (!re.test(v(column))) errors.push({ row, column, message });
    const first = seen.get(v('merchant_reference'));
    if (first !== undefined && v('merchant_reference')) errors.push({ row, column: 'merchant_reference', message: `repeats row ${first}` });
    else seen.set(v('merchant_reference'), row);
    return {
      amountMoney: { minorUnits: v('amount'), currency: v('currency') },
      country: v('country'),
      merchantReference: v('merchant_reference'),
      recipient: { type: 'BANK_ACCOUNT', bankCode: v('bank_code'), accountNumber: v('account_number'), holderName: v('holder_name') },
    } satisfies CreatePayoutIntentInput;
  });
  return { rows, items, errors };
}

/** A server error's field (REST names: recipient.bank_code) as the CSV's column. */
export const columnOf = (param: string): string => param.replace(/^recipient\./, '');
