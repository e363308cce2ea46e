/** GraphQL for report runs: translate GraphQL <-> ReportService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, ID, Info, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { Needs } from '../../graphql/access';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { mutate, withListArgs, withArgs } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import type { reportOperations } from './report.operations';
import type { ReportService } from './report.service';
import { CreateReportRunInput, ReportRunConnection, ReportRunType } from './report.types';

@Resolver(() => ReportRunType)
export class ReportRunResolver {
  constructor(private readonly services: { reports: ReportService; reportOps: ReturnType<typeof reportOperations> }) {}

  @Needs('report_runs:read')
  @Query(() => ReportRunType, { nullable: true, description: 'A report run; null, with a not_found error, when unknown.' })
  reportRun(@Arg('id', () => ID, { description: 'frr_ id.' }) id: string, @Ctx() { ctx }: GqlContext) {
    return withArgs(() => this.services.reports.get(ctx, id));
  }

  @Needs('report_runs:read')
  @Query(() => ReportRunConnection, { nullable: true, description: 'Report runs, newest first.' })
  reportRuns(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size (1-100).' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
  ) {
    const r = this.services.reports;
    return withListArgs(async () => toConnection(await r.list(ctx, r.parseList(ctx, connectionQuery(info, { first, after, ...page })))));
  }

  @Needs('report_runs:write')
  @Mutation(() => ReportRunType, {
    nullable: true,
    description: 'Requests a report; it is generated in the background (events report_run.succeeded / report_run.failed). Honors the Idempotency-Key header.',
  })
  createReportRun(@Arg('input', () => CreateReportRunInput, { description: 'The report.' }) input: CreateReportRunInput, @Ctx() gql: GqlContext) {
    return mutate(gql, this.services.reportOps.create, snakeKeys(input), {});
  }
}
