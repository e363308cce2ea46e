/**
 * A batch as a CSV file (multipart field `file`, the request's only part): UTF-8 (a BOM is
 * allowed), a CSV content type (CSV_TYPES), the header CSV_COLUMNS first, then one payout a
 * line, at most MAX_BATCH_ROWS lines and MAX_CSV_BYTES. Each line becomes a payout create
 * body, checked like a JSON item; the errors name the CSV's columns. What cannot be read as
 * such a file at all is refused (400, `param: "file"`).
 *
 * The file is parsed as it arrives, with csv-parse's streaming API, a small slice at a time
 * with a turn of the event loop between slices, and parsing stops at the first line past the
 * row limit (a blank line is a line): however the file is made, one upload costs the other
 * requests at most one slice's work at a time (docs/decisions/0150-csv-uploads-streamed.md).
 */
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse, type Parser } from 'csv-parse';
import { ApiError } from '../../domain/errors';
import { CSV_COLUMNS, MAX_BATCH_ROWS, MAX_CSV_BYTES } from './batch.schemas';

const fileError = (message: string) => ApiError.validation('file', message);

/** Bytes handed to the parser between two turns of the event loop (a blank line is one byte, one record). */
const SLICE_BYTES = 256;

/**
 * The content types a CSV file arrives with: `text/csv` and what spreadsheets and browsers
 * send for a `.csv` file (Excel on Windows: `application/vnd.ms-excel`; plain text editors:
 * `text/plain`). Parameters (`; charset=utf-8`) are ignored.
 */
export const CSV_TYPES: readonly string[] = [
  'text/csv',
  'application/csv',
  'text/x-csv',
  'application/x-csv',
  'text/comma-separated-values',
  'text/x-comma-separated-values',
  'application/vnd.ms-excel',
  'text/plain',
];

/** `recipient.bank_code` -> `bank_code`: errors name the CSV's columns. */
export const csvColumnOf = (param: string): string => param.replace(/^recipient\./, '');

const TOO_MANY = `The file has more than ${MAX_BATCH_ROWS} rows; a batch holds at most ${MAX_BATCH_ROWS}.`;

/** Reads CSV records from chunks, a slice at a time, and stops past the row limit (header + MAX_BATCH_ROWS). */
class CsvReader {
  readonly records: string[][] = [];

  private readonly parser: Parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: false, trim: false });

  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  private failure: ApiError | undefined;

  constructor() {
    this.parser.on('data', (record: string[]) => {
      this.records.push(record);
      if (this.records.length > MAX_BATCH_ROWS + 1) this.fail(fileError(TOO_MANY));
    });
    this.parser.on('error', (err: Error) => this.fail(fileError(`The file is not valid CSV: ${err.message.split('\n')[0]}`)));
  }

  /** The first reason the file is refused, once there is one: reading may stop there. */
  get error(): ApiError | undefined {
    return this.failure;
  }

  private fail(err: ApiError): void {
    this.failure ??= err;
  }

  async write(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length && !this.failure; at += SLICE_BYTES) {
      const slice = chunk.subarray(at, at + SLICE_BYTES);
      try {
        this.utf8.decode(slice, { stream: true });
      } catch {
        this.fail(fileError('The file is not valid UTF-8: save it as "CSV UTF-8".'));
        return;
      }
      await new Promise<void>((resolve) => this.parser.write(slice, () => resolve()));
      await nextTurn();
    }
  }

  async end(): Promise<void> {
    if (this.failure) return;
    try {
      this.utf8.decode();
    } catch {
      this.fail(fileError('The file is not valid UTF-8: save it as "CSV UTF-8".'));
      return;
    }
    await new Promise<void>((resolve) => {
      this.parser.once('end', resolve);
      this.parser.once('error', () => resolve());
      this.parser.end();
      this.parser.resume();
    });
  }

  /** Stops parsing; what was written and not yet parsed is dropped. */
  stop(): void {
    this.parser.destroy();
  }
}

/** The items of a CSV file's records (the header first), as payout create bodies. */
function itemsOf(records: string[][]): Record<string, unknown>[] {
  const header = records[0]?.map((h) => h.trim().toLowerCase());
  if (!header || header.join(',') !== CSV_COLUMNS.join(',')) {
    throw fileError(`The first line must be the header ${CSV_COLUMNS.join(',')}.`);
  }
  const rows = records.slice(1);
  if (rows.length === 0) throw fileError('The file has no rows after its header.');
  if (rows.length > MAX_BATCH_ROWS) throw fileError(TOO_MANY);
  return rows.map((cells) => {
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

/** Reads the file stream to its end: parsed while the file is acceptable, then only drained. */
async function readFile(file: Readable, reader: CsvReader): Promise<void> {
  for await (const chunk of file as AsyncIterable<Buffer>) {
    if (!reader.error) await reader.write(chunk);
  }
  if (!reader.error) await reader.end();
  reader.stop();
}

const isCsvType = (mimetype: string): boolean => CSV_TYPES.includes(mimetype.split(';')[0].trim().toLowerCase());

const ONE_FILE = 'Send exactly one multipart part: the field "file" with the CSV.';

/** The CSV of a multipart request (field `file`, its only part); undefined for any other request. */
export async function uploadedItems(req: FastifyRequest): Promise<{ items: Record<string, unknown>[] } | undefined> {
  if (!req.isMultipart()) return undefined;
  const reader = new CsvReader();
  let refusal: ApiError | undefined;
  let seen = 0;
  try {
    // Two parts are let through so a second one is seen (and refused), not silently dropped.
    for await (const part of req.parts({ limits: { fileSize: MAX_CSV_BYTES, files: 2, fields: 2, parts: 2 } })) {
      seen += 1;
      if (part.type !== 'file') {
        refusal ??= fileError(ONE_FILE);
        continue;
      }
      if (seen > 1 || part.fieldname !== 'file') refusal ??= fileError(ONE_FILE);
      else if (!isCsvType(part.mimetype)) {
        refusal ??= fileError(`The file's content type must be text/csv (or a spreadsheet's CSV type), not ${JSON.stringify(part.mimetype.slice(0, 100))}.`);
      }
      if (refusal) {
        for await (const _chunk of part.file) void _chunk; // drained: the answer waits for the whole request
        continue;
      }
      await readFile(part.file, reader);
      if (part.file.truncated) refusal ??= new ApiError('payload_too_large', `The file exceeds ${MAX_CSV_BYTES} bytes.`);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError('payload_too_large', `The file exceeds ${MAX_CSV_BYTES} bytes.`);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') throw fileError(ONE_FILE);
    throw refusal ?? fileError(`The multipart body could not be read: ${ONE_FILE.charAt(0).toLowerCase()}${ONE_FILE.slice(1)}`);
  } finally {
    reader.stop();
  }
  if (refusal) throw refusal;
  if (seen === 0) throw fileError(ONE_FILE);
  if (reader.error) throw reader.error;
  return { items: itemsOf(reader.records) };
}
