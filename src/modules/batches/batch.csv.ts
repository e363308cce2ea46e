/**
 * A batch as a CSV file (multipart field `file`): UTF-8 (a BOM is allowed), the header
 * CSV_COLUMNS first, then one payout a line, at most MAX_BATCH_ROWS lines and MAX_CSV_BYTES.
 * Each line becomes a payout create body, checked like a JSON item; the errors name the
 * CSV's columns. What cannot be read as such a file at all is refused (400, `param: "file"`).
 */
import type { FastifyRequest } from 'fastify';
import { parse } from 'csv-parse/sync';
import { ApiError } from '../../domain/errors';
import { CSV_COLUMNS, MAX_BATCH_ROWS, MAX_CSV_BYTES } from './batch.schemas';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const fileError = (message: string) => ApiError.validation('file', message);

/** `recipient.bank_code` -> `bank_code`: errors name the CSV's columns. */
export const csvColumnOf = (param: string): string => param.replace(/^recipient\./, '');

/** The items of a CSV file, as payout create bodies. */
export function csvItems(file: Buffer): Record<string, unknown>[] {
  let text: string;
  try {
    text = UTF8.decode(file);
  } catch {
    throw fileError('The file is not valid UTF-8: save it as "CSV UTF-8".');
  }
  let records: string[][];
  try {
    const parsed: string[][] = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false, trim: false });
    records = parsed;
  } catch (err) {
    throw fileError(`The file is not valid CSV: ${(err as Error).message.split('\n')[0]}`);
  }
  const header = records.shift()?.map((h) => h.trim().toLowerCase());
  if (!header || header.join(',') !== CSV_COLUMNS.join(',')) {
    throw fileError(`The first line must be the header ${CSV_COLUMNS.join(',')}.`);
  }
  if (records.length === 0) throw fileError('The file has no rows after its header.');
  if (records.length > MAX_BATCH_ROWS) throw fileError(`The file has ${records.length} rows; a batch holds at most ${MAX_BATCH_ROWS}.`);
  return records.map((cells) => {
    const [amount, currency, country, merchant_reference, bank_code, account_number, holder_name] = cells;
    const item: Record<string, unknown> = {
      amount,
      currency,
      country,
      merchant_reference,
      recipient: { type: 'bank_account', bank_code, account_number, holder_name },
    };
    if (cells.length > CSV_COLUMNS.length) item.extra_columns = cells.slice(CSV_COLUMNS.length);
    return JSON.parse(JSON.stringify(item)) as Record<string, unknown>; // drops the columns a short line lacks
  });
}

/** The CSV of a multipart request (field `file`); undefined for any other request. */
export async function uploadedItems(req: FastifyRequest): Promise<{ items: Record<string, unknown>[] } | undefined> {
  if (!req.isMultipart()) return undefined;
  let buffer: Buffer;
  try {
    const part = await req.file({ limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: 4, parts: 5 } });
    if (!part || part.fieldname !== 'file') throw fileError('Send the CSV as the multipart field "file".');
    buffer = await part.toBuffer();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError('payload_too_large', `The file exceeds ${MAX_CSV_BYTES} bytes.`);
    throw fileError('The multipart body could not be read: send one field "file" with the CSV.');
  }
  return { items: csvItems(buffer) };
}
