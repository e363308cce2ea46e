/** GraphQL queries for events: translate GraphQL <-> EventService, nothing more. */
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, ID, Info, Int, Query, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import { Needs } from '../../graphql/access';
import { authorize, onlyReadable } from '../../domain/access';
import type { GqlContext } from '../../graphql/context';
import { BackwardPageArgs, connectionQuery, toConnection } from '../../graphql/connection';
import { withArgs, withListArgs, foundOrNotFound } from '../../graphql/errors';
import { snakeKeys } from '../../graphql/input';
import type { EventRecord } from './event.entity';
import type { EventHub } from './event.hub';
import { EventService, EventWire, parseTypeFilter } from './event.service';
import { EventConnection, EventFilter, EventType } from './event.types';

/** The filter with `typeEnum` folded into `type` (the wire strings): an event of either list matches. */
function withTypeEnums(filter: EventFilter | undefined): Omit<EventFilter, 'typeEnum'> | undefined {
  if (!filter) return filter;
  const { typeEnum, ...rest } = filter;
  return typeEnum?.length ? { ...rest, type: [...(rest.type ?? []), ...typeEnum] } : rest;
}

@Resolver(() => EventType)
export class EventResolver {
  constructor(private readonly services: { events: EventService }) {}

  @Needs('events:read')
  @Query(() => EventType, {
    nullable: true,
    description: 'An event of the calling merchant and environment; null, with a not_found error, when the id is unknown, foreign or in the other environment.',
  })
  event(@Arg('id', () => ID, { description: "The record's id." }) id: string, @Ctx() { loaders }: GqlContext): Promise<EventWire> {
    return foundOrNotFound(loaders.event.load(id), 'event');
  }

  @Needs('events:read')
  @Query(() => EventConnection, { nullable: true, description: 'Events, newest first. `after` also accepts an event id.' })
  events(
    @Ctx() { ctx }: GqlContext,
    @Info() info: GraphQLResolveInfo,
    @Args(() => BackwardPageArgs) page: BackwardPageArgs,
    @Arg('first', () => Int, { nullable: true, defaultValue: 25, description: 'Page size, 1 to 100.' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: "The previous page's endCursor." }) after?: string,
    @Arg('filter', () => EventFilter, { nullable: true, description: 'Only the records that match every field given.' }) filter?: EventFilter,
  ) {
    return withListArgs(async () =>
      toConnection(
        await this.services.events.list(
          ctx,
          await this.services.events.parseList(
            ctx,
            connectionQuery(info, { first, after, ...page }, snakeKeys(withTypeEnums(filter)) as Record<string, unknown>),
          ),
        ),
      ),
    );
  }
}

/**
 * Subscription `events(types, after)`: replays the scope's events after `after` (an event
 * id; without it, only new events), then streams live ones, in order, each once.
 */
@Resolver(() => EventType)
export class EventSubscriptionResolver {
  constructor(private readonly services: { events: EventService; eventHub: EventHub }) {}

  @Needs('events:read')
  @Subscription(() => EventType, {
    description:
      'Events of the calling merchant and environment, oldest first. `after` (an event id) first replays what was missed; `types` takes exact types or `resource.*` wildcards.',
    subscribe: async ({ args, context }: SubscribeResolverData<unknown, { types?: string[] | null; after?: string | null }, GqlContext>) => {
      // `subscribe` is not called on an instance: this class's, built with the module's services, is the container's.
      const { events, eventHub } = (context.services.get(EventSubscriptionResolver) as EventSubscriptionResolver).services;
      const { ctx } = context;
      return withArgs(async () => {
        authorize(ctx.principal, 'events:read', ctx.log, 'graphql Subscription.events');
        const types = args.types?.length ? parseTypeFilter(args.types, 'types') : undefined;
        const afterSeq = args.after ? await events.seqOf(ctx, args.after, 'after') : await events.lastSeq(ctx);
        // Only the events whose records the caller may read (checked again per event by the middleware: events:read).
        return onlyReadable(ctx.principal, eventHub.stream(ctx, afterSeq, types, ctx.apiKeyId));
      });
    },
  })
  events(
    @Root() event: EventRecord,
    @Ctx() context: GqlContext,
    @Arg('types', () => [String], { nullable: true, description: 'Exact types or `resource.*` wildcards; omitted: all.' }) _types?: string[],
    @Arg('after', () => String, { nullable: true, description: 'An event id: first replays the events after it.' }) _after?: string,
  ): EventWire {
    // DataLoaders are per event, never per subscription: a long stream must not serve stale cached rows.
    context.loaders = context.services.loaders(context.ctx);
    return EventService.toWire(event);
  }
}
