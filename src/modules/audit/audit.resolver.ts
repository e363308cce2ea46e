/** GraphQL for the audit log: translate GraphQL <-> AuditService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Info, Int, Query, Resolver } from 'type-graphql';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import type { AuditService } from './audit.service';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withListArgs } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import { AuditEntryConnection, AuditEntryType, AuditLogFilter } from './audit.types';

@Resolver(() => AuditEntryType)
export class AuditResolver {
  constructor(private readonly services: { audit: AuditService }) {}

  @Needs('events:read')
  @Query(() => AuditEntryConnection, { nullable: true, description: 'State-changing calls of this merchant and environment, newest first.' })
  auditLog(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => AuditLogFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: AuditLogFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.audit.list(
          ctx,
          this.services.audit.parseList(ctx, connectionQuery(info, { first, after, ...page }, snakeKeys(filter) as Record<string, unknown>)),
        ),
      ),
    );
  }
}
