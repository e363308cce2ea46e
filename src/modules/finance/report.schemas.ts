/** Report runs' schemas: the create body, the wire record, the listing and the routes' documents. */
import { Type, type Static } from '@sinclair/typebox';
import { EnvironmentName, Instant, Nullable } from '../../domain/fields';
import type { ListSpec } from '../../domain/listing';
import { CURRENCY } from '../../domain/validation';
import { answer, commonFailures, invalidWhen, pageOf, readFailures, writeFailures, type RouteDoc } from '../../http/route-docs';
import { REPORT_STATUSES, REPORT_TYPES } from './report.entity';

/** A wrong type is told every accepted one (each branch's refusal would name only its own). */
const wrongType = { const: `report_type must be one of: ${REPORT_TYPES.join(', ')}.` };
const ReportTypeSchema = Type.Union(
  REPORT_TYPES.map((t) => Type.Literal(t, { 'x-messages': wrongType })),
  { description: 'balance.summary, balance_transactions.itemized, payments.itemized, payouts.itemized or refunds.itemized.' },
);
const IsoInstant = (description: string, example: string) =>
  Type.String({
    format: 'date-time',
    examples: [example],
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:\\d{2})$',
    'x-expected': 'an ISO 8601 date-time with an offset, e.g. 2026-01-31T00:00:00Z',
    description,
  });

export const CreateReportRunBody = Type.Object(
  {
    report_type: ReportTypeSchema,
    interval_start: IsoInstant('Start of the interval (inclusive).', '2026-01-01T00:00:00Z'),
    interval_end: IsoInstant(
      'End of the interval (exclusive); after interval_start (otherwise 400 validation_error naming interval_end).',
      '2026-02-01T00:00:00Z',
    ),
    currency: Type.Optional(
      Type.String({ pattern: CURRENCY.source, 'x-expected': 'an upper-case code of 3 to 6 letters such as THB', description: 'Only this currency.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateReportRunBody = Static<typeof CreateReportRunBody>;

export const ReportRunSchema = Type.Object(
  {
    object: Type.Literal('report_run'),
    id: Type.String(),
    report_type: ReportTypeSchema,
    environment: EnvironmentName,
    parameters: Type.Object(
      { interval_start: Instant, interval_end: Instant, currency: Nullable(Type.String()) },
      { additionalProperties: false, description: 'What was asked for.' },
    ),
    status: Type.Union(
      REPORT_STATUSES.map((s) => Type.Literal(s)),
      { description: 'pending, then succeeded or failed.' },
    ),
    result: Nullable(
      Type.Object(
        {
          rows: Type.Integer({ description: 'Data rows (the header row not counted).' }),
          size: Type.Integer({ description: 'Bytes of the CSV file.' }),
          url: Nullable(Type.String({ description: 'Where to download the file (GET, the same credentials); null once deleted (7 days).' })),
        },
        { additionalProperties: false },
      ),
    ),
    error: Nullable(Type.String({ description: 'Why the run failed.' })),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'ReportRun', additionalProperties: false, description: 'A CSV report, generated in the background.' },
);
export type ReportRunWire = Static<typeof ReportRunSchema>;

export const REPORT_RUN_LIST: ListSpec = { resource: 'report_run', statuses: REPORT_STATUSES, noCountryCurrency: true, noMerchantReference: true };

export const REPORT_RUN_ROUTES = {
  create: {
    operationId: 'createReportRun',
    permission: 'report_runs:write',
    summary: 'Requests a report; it is generated in the background (events report_run.succeeded / report_run.failed).',
    responses: {
      201: answer('The new run, pending.', 'ReportRun'),
      ...writeFailures,
      400: invalidWhen({ interval_end: 'not after interval_start' }),
    },
  },
  list: {
    operationId: 'listReportRuns',
    permission: 'report_runs:read',
    summary: 'Report runs, newest first.',
    responses: { 200: pageOf('ReportRun'), ...readFailures },
  },
  get: {
    operationId: 'getReportRun',
    permission: 'report_runs:read',
    summary: 'One report run.',
    responses: { 200: answer('The run.', 'ReportRun'), ...readFailures },
  },
  file: {
    operationId: 'getReportRunFile',
    permission: 'report_runs:read',
    summary: "The run's CSV (RFC 4180, UTF-8, header row first).",
    responses: {
      // The file is CSV; every error answer is the contract's JSON error body, as the other routes send it.
      200: Type.Unsafe({
        description: 'The file: text/csv; charset=utf-8, with Content-Disposition attachment.',
        content: { 'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV, UTF-8, header row first.' }) } },
      }),
      ...commonFailures,
      404: readFailures[404],
      422: Type.Ref('Error', { description: 'invalid_state: the run is not succeeded, or its file was deleted.' }),
    },
  },
} satisfies Record<string, RouteDoc>;
