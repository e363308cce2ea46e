/** REST routes of report runs: each names its operation or read and its document, nothing more. */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { ctxOf } from '../../http/request';
import type { RouteKit } from '../module';
import type { reportOperations } from './report.operations';
import { REPORT_RUN_LIST, REPORT_RUN_ROUTES as doc } from './report.schemas';
import type { ReportService } from './report.service';

/** Permission resource of these routes (src/domain/permissions.ts): report_runs:read / report_runs:write. */
export const REPORT_RUNS_RESOURCE = 'report_runs';

export function registerReportRoutes(
  fastify: FastifyInstance,
  { reports, reportOps }: { reports: ReportService; reportOps: ReturnType<typeof reportOperations> },
  { pipeline }: RouteKit,
): void {
  operationRoute(fastify, pipeline, 'post', '/v1/report_runs', reportOps.create, { doc: doc.create });
  listRoute(fastify, '/v1/report_runs', doc.list, REPORT_RUN_LIST, async (ctx, query) => reports.list(ctx, reports.parseList(ctx, query)));
  readRoute(fastify, '/v1/report_runs/:id', doc.get, (ctx, _query, { id }) => reports.get(ctx, id));
  fastify.get<{ Params: { id: string } }>(
    '/v1/report_runs/:id/file',
    {
      config: { permission: doc.file.permission },
      schema: {
        operationId: doc.file.operationId,
        summary: doc.file.summary,
        params: { type: 'object', properties: { id: { type: 'string', minLength: 1 } } },
        response: doc.file.responses,
      },
    },
    async (req, reply) => {
      const chunks = reports.file(ctxOf(req), req.params.id);
      // The first chunk is read before answering: an unknown or unfinished run is an error answer, not a cut stream.
      const first = await chunks.next();
      const rest = async function* () {
        if (!first.done) yield first.value;
        yield* chunks;
      };
      return reply
        .code(200)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${req.params.id}.csv"`)
        .send(Readable.from(rest()));
    },
  );
}
