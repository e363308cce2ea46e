/**
 * Payout batches' schemas: the JSON create body (each item is checked row by row against
 * the payout create body, so a bad row makes the batch `invalid` instead of refusing the
 * request), the wire record, and what each route publishes in the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AmountText, IgnoredEnvironment, Instant, Obj } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { answer, failure, pageOf, readFailures, type RouteDoc, writeFailures } from '../../http/route-docs';
import { Literals } from '../shared/wire-schema';
import { BATCH_STATUSES } from './batch.states';
import { PAYOUT_STATUSES } from '../payouts/payout.states';
import { ApprovalSchema } from '../payouts/payout.schemas';

/** The most rows a batch holds (JSON items or CSV lines after the header). */
export const MAX_BATCH_ROWS = 5000;
/** The largest CSV file accepted, in bytes. */
export const MAX_CSV_BYTES = 2 * 1024 * 1024;
/** The largest JSON create body, in bytes (every other route takes 64 KiB). */
export const MAX_JSON_BATCH_BYTES = 4 * 1024 * 1024;
/** The CSV header, in this order. */
export const CSV_COLUMNS = ['amount', 'currency', 'country', 'merchant_reference', 'bank_code', 'account_number', 'holder_name'] as const;

export const CreatePayoutBatchBody = Obj(
  {
    items: Type.Array(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'A payout intent create body (CreatePayoutIntent). Each is checked on its own: errors are reported per row, not refused.',
        },
      ),
      { minItems: 1, maxItems: MAX_BATCH_ROWS, description: `1 to ${MAX_BATCH_ROWS} payouts.` },
    ),
    environment: IgnoredEnvironment,
  },
  { title: 'CreatePayoutBatch' },
);
export type CreatePayoutBatchBody = Static<typeof CreatePayoutBatchBody>;

/** What a row that fails does; stated on the documented items (`x-row-errors`) and in the 201 answer. */
const ROW_ERRORS =
  'A row that fails CreatePayoutIntent (or a rule of POST /v1/payout_intents) does not refuse the request: ' +
  'the batch is created with status invalid (201), its `errors` give each failing row (from 1) and the `param` inside the row, and nothing else is created. ' +
  'An item that is not a JSON object is 400 validation_error naming items.';

/**
 * The create body as the document shows it: each item is the payout create body, by
 * reference. The server checks the items row by row instead of refusing the request, as
 * `x-row-errors` and the 201 answer say.
 */
export const CreatePayoutBatchDocBody = Obj(
  {
    items: Type.Array(Type.Ref('CreatePayoutIntent'), {
      minItems: 1,
      maxItems: MAX_BATCH_ROWS,
      description: `1 to ${MAX_BATCH_ROWS} payouts, each a payout intent create body. ${ROW_ERRORS}`,
      'x-row-errors': ROW_ERRORS,
    }),
    environment: IgnoredEnvironment,
  },
  { title: 'CreatePayoutBatch' },
);

export const PayoutBatchSchema = Type.Object(
  {
    object: Type.Literal('payout_batch'),
    id: Type.String(),
    status: Literals(BATCH_STATUSES),
    item_count: Type.Integer({ description: 'Rows in the batch (for an invalid batch: rows sent).' }),
    totals: Type.Array(Type.Object({ currency: Type.String(), amount: AmountText }, { additionalProperties: false }), {
      description: 'Sum of the items per currency; empty for an invalid batch.',
    }),
    errors: Type.Array(
      Type.Object(
        {
          row: Type.Integer({ description: 'From 1: the first item, or the first line after the CSV header.' }),
          param: Type.String(),
          message: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: "Every invalid row's error (the first of each row); empty unless the batch is invalid." },
    ),
    approvals_required: Type.Integer({
      minimum: 1,
      maximum: 3,
      description: 'Approvals it needs to move to processing: the strictest approval policy of its totals at creation (1 without one).',
    }),
    approvals: Type.Array(ApprovalSchema, { description: 'The approvals recorded so far, oldest first.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'PayoutBatch', additionalProperties: false },
);
export type PayoutBatchWire = Static<typeof PayoutBatchSchema>;

/** A batch's payout intents: the payout listing without its `payout_batch` filter (the path names the batch). */
export const BATCH_ITEMS_LIST: ListSpec = { resource: 'payout_intent', statuses: PAYOUT_STATUSES };

export const BATCH_LIST: ListSpec = { resource: 'payout_batch', statuses: BATCH_STATUSES, noCountryCurrency: true, noMerchantReference: true };

const record = (description: string) => answer(description, 'PayoutBatch');

export const BATCH_ROUTES = {
  create: {
    operationId: 'createPayoutBatch',
    permission: 'payout_batches:write',
    summary: 'Create a payout batch from JSON items or a CSV file (multipart field `file`).',
    description:
      `Up to ${MAX_BATCH_ROWS} rows; a JSON body up to ${MAX_JSON_BATCH_BYTES} bytes, or a CSV file up to ${MAX_CSV_BYTES} bytes, UTF-8, header ${CSV_COLUMNS.join(',')} ` +
      "(multipart/form-data, the field `file` as its only part, content type text/csv or a spreadsheet's CSV type such as application/vnd.ms-excel; " +
      'errors then name the CSV columns; a file that cannot be read as such is 400 with param file). ' +
      'Every row is checked as POST /v1/payout_intents checks its body: any invalid row makes the batch invalid (201, nothing else created). ' +
      'A valid batch waits at requires_approval and reserves its totals from the available balances.',
    body: CreatePayoutBatchDocBody,
    upload: Type.Object(
      {
        file: Type.String({
          contentMediaType: 'text/csv',
          description:
            `The CSV file: UTF-8, header ${CSV_COLUMNS.join(',')}, up to ${MAX_BATCH_ROWS} rows and ${MAX_CSV_BYTES} bytes. ` +
            'Each line is a CreatePayoutIntent (recipient type bank_account); `x-csv-columns` names the field each column fills. ' +
            'Row errors name the column.',
          'x-csv-columns': Object.fromEntries(CSV_COLUMNS.map((c) => [c, ['bank_code', 'account_number', 'holder_name'].includes(c) ? `recipient.${c}` : c])),
        }),
      },
      { required: ['file'] },
    ),
    responses: {
      201: record(`Created: requires_approval when every row is valid. ${ROW_ERRORS}`),
      200: record('Every merchant_reference belongs to an earlier batch of the same rows: that batch.'),
      ...writeFailures,
      422: failure(
        'insufficient_balance: a total is above the available balance of its currency; nothing is created. no_provider_available: live mode without a provider account that makes payouts.',
      ),
    },
  },
  list: {
    operationId: 'listPayoutBatches',
    permission: 'payout_batches:read',
    summary: 'List payout batches, newest first.',
    responses: { 200: pageOf('PayoutBatch'), ...readFailures },
  },
  get: {
    operationId: 'getPayoutBatch',
    permission: 'payout_batches:read',
    summary: 'Retrieve a payout batch.',
    responses: { 200: record('The payout batch.'), ...readFailures },
  },
  items: {
    operationId: 'listPayoutBatchItems',
    permission: 'payout_batches:read',
    summary: "The batch's payout intents (from approval on), newest first.",
    responses: { 200: pageOf('PayoutIntent'), ...readFailures },
  },
  approve: {
    operationId: 'approvePayoutBatch',
    permission: 'payout_approvals:write',
    summary: 'Approve: every item becomes a payout intent in processing. The body may be absent.',
    responses: {
      202: record('Approved (processing).'),
      ...writeFailures,
      422: failure(
        'invalid_state: the batch is not in requires_approval. no_provider_available (live mode): a row goes to a bank no connected provider account pays out to any more; nothing changes.',
      ),
    },
  },
  cancel: {
    operationId: 'cancelPayoutBatch',
    permission: 'payout_batches:write',
    summary: 'Cancel a batch at the approval gate; its reservation is released. The body may be absent.',
    responses: { 202: record('Cancelled.'), ...writeFailures, 422: failure('invalid_state: the batch is not in requires_approval.') },
  },
} satisfies Record<string, RouteDoc>;
