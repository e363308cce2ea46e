/** The report-run operation: what a create parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { CreateReportRunBody } from './report.schemas';
import { parseCreateReport, type ReportService } from './report.service';

export function reportOperations(reports: ReportService) {
  return {
    create: defineOperation({
      name: 'reportRun.create',
      label: 'POST /v1/report_runs',
      ...withBody(CreateReportRunBody, (body) => parseCreateReport(body)),
      execute: (tx, ctx, input) => reports.create(tx, ctx, input),
    }),
  };
}
