/** GraphQL types of report runs: views over the REST wire record. */
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection } from '../../graphql/connection';
import { EnvironmentEnum } from '../../graphql/enums';
import { DateTimeScalar } from '../../graphql/scalars';
import { NodeInterface } from '../../graphql/node';
import { REPORT_STATUSES, REPORT_TYPES, type ReportStatus, type ReportType } from './report.entity';

const TYPE_DESCRIPTIONS: Record<ReportType, string> = {
  'balance.summary': 'Per currency: opening balance, totals per balance-transaction type, closing balance.',
  'balance_transactions.itemized': 'Every balance transaction of the interval.',
  'payments.itemized': 'Every payment intent created in the interval, with its fee, tax and net.',
  'payouts.itemized': 'Every payout intent created in the interval, with its fee and tax.',
  'refunds.itemized': 'Every refund created in the interval.',
};
/** GraphQL names cannot hold dots: BALANCE_SUMMARY stands for balance.summary. */
export const ReportTypeEnum = Object.fromEntries(REPORT_TYPES.map((t) => [t.replace('.', '_').toUpperCase(), t])) as Record<string, ReportType>;
registerEnumType(ReportTypeEnum, {
  name: 'ReportType',
  description: 'What a report holds (REST report_type: the lower-case name with a dot).',
  valuesConfig: Object.fromEntries(REPORT_TYPES.map((t) => [t.replace('.', '_').toUpperCase(), { description: TYPE_DESCRIPTIONS[t] }])),
});
export const ReportStatusEnum = Object.fromEntries(REPORT_STATUSES.map((s) => [s.toUpperCase(), s])) as Record<string, ReportStatus>;
registerEnumType(ReportStatusEnum, {
  name: 'ReportRunStatus',
  description: 'pending, then succeeded or failed.',
  valuesConfig: {
    PENDING: { description: 'Waiting or being generated.' },
    SUCCEEDED: { description: 'The file is ready.' },
    FAILED: { description: 'Not generated; see error.' },
  },
});

@ObjectType('ReportParameters', { description: 'What a report run was asked for.' })
export class ReportParametersType {
  @Field(() => DateTimeScalar, { name: 'intervalStart', description: 'Start (inclusive).' }) interval_start: string;
  @Field(() => DateTimeScalar, { name: 'intervalEnd', description: 'End (exclusive).' }) interval_end: string;
  @Field(() => String, { nullable: true, description: 'Only this currency.', simple: true }) currency: string | null;
}

@ObjectType('ReportResult', { description: "A succeeded run's file." })
export class ReportResultType {
  @Field(() => Int, { description: 'Data rows (header not counted).', simple: true }) rows: number;
  @Field(() => Int, { description: 'Bytes of the CSV file.', simple: true }) size: number;
  @Field(() => String, { nullable: true, description: 'Download URL (GET with the same credentials); null once deleted.', simple: true }) url: string | null;
}

@ObjectType('ReportRun', { implements: NodeInterface, description: 'A CSV report, generated in the background (REST report_run).' })
export class ReportRunType {
  @Field(() => ID, { description: 'frr_ id.', simple: true }) id: string;
  @Field(() => ReportTypeEnum, { name: 'reportType', description: 'What the report holds.' }) report_type: ReportType;
  @Field(() => EnvironmentEnum, { description: 'test or live.', simple: true }) environment: EnvironmentEnum;
  @Field(() => ReportParametersType, { description: 'What was asked for.', simple: true }) parameters: ReportParametersType;
  @Field(() => ReportStatusEnum, { description: 'pending, succeeded or failed.', simple: true }) status: ReportStatus;
  @Field(() => ReportResultType, { nullable: true, description: 'The file, once succeeded.', simple: true }) result: ReportResultType | null;
  @Field(() => String, { nullable: true, description: 'Why the run failed.', simple: true }) error: string | null;
  @Field(() => DateTimeScalar, { name: 'createdAt', description: 'When it was requested.' }) created_at: string;
  @Field(() => DateTimeScalar, { name: 'updatedAt', description: 'Last change.' }) updated_at: string;
}

export const ReportRunConnection = Connection('ReportRun', ReportRunType);

@InputType('CreateReportRunInput', { description: 'A report to generate.' })
export class CreateReportRunInput {
  @Field(() => ReportTypeEnum, { description: 'What the report holds.' }) reportType: ReportType;
  @Field(() => DateTimeScalar, { description: 'Start of the interval (inclusive).' }) intervalStart: string;
  @Field(() => DateTimeScalar, { description: 'End of the interval (exclusive).' }) intervalEnd: string;
  @Field(() => String, { nullable: true, description: 'Only this currency.' }) currency?: string;
}
