/** The schema's own queries: `node(id:)` and `nodes(ids:)` (graphql/node.ts), and the error codes (graphql/error-codes.ts). */
import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { ErrorCodeInfoType, errorCodeInfos } from '../../graphql/error-codes';
import { foundOrNotFound, toGraphQLError } from '../../graphql/errors';
import { ApiError } from '../../domain/errors';
import { NodeInterface, nodeKindOf } from '../../graphql/node';
import { Needs } from '../../graphql/access';
import { authorize } from '../../domain/access';

/** A record of any Node type by id, or a not_found error (an unknown prefix included). */
async function loadNode({ loaders, ctx }: GqlContext, id: string): Promise<object> {
  const kind = nodeKindOf(id);
  if (!kind) throw ApiError.notFound('record');
  // What the record's own query asks, before anything is read (a key restricted to payouts reads no payment or batch through node).
  authorize(ctx.principal, kind.needs, ctx.log, 'graphql Query.node');
  return foundOrNotFound(kind.load(loaders, id, ctx), 'record');
}

/** What one `nodes` call may ask for. */
export const MAX_NODE_IDS = 100;

@Resolver()
export class NodeResolver {
  @Needs('authenticated')
  @Query(() => NodeInterface, {
    nullable: true,
    description:
      'Any record with an id, of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  node(@Arg('id', () => ID, { description: 'A global id, e.g. po_01j…' }) id: string, @Ctx() gql: GqlContext): Promise<object> {
    return loadNode(gql, id);
  }

  @Needs('authenticated')
  @Query(() => [NodeInterface], {
    nullable: 'itemsAndList',
    description: 'The records with these ids, in the order asked (at most 100); an id not found is null, with its own not_found error at its index.',
  })
  nodes(@Arg('ids', () => [ID], { description: 'Global ids, at most 100.' }) ids: string[], @Ctx() gql: GqlContext): Promise<object>[] {
    if (ids.length > MAX_NODE_IDS) throw toGraphQLError(ApiError.validation('ids', `At most ${MAX_NODE_IDS} ids.`), '');
    return ids.map((id) => loadNode(gql, id));
  }

  @Needs('authenticated')
  @Query(() => [ErrorCodeInfoType], { description: 'Every error code the API reports, with its meaning and HTTP status.' })
  errorCodes(): ErrorCodeInfoType[] {
    return errorCodeInfos();
  }
}
