/**
 * The schema's own surface, which belongs to no resource: `node(id:)`/`nodes(ids:)` over every
 * registered Node type (each module registers its own, graphql/node.ts), `errorCodes`, the
 * typed `Event.resource` and the subscriptions that watch one record (they span the record
 * types, so they live here rather than in the events module, which every module uses).
 */
import { defineModule } from '../module';
import { eventsModule } from '../events/event.module';
import { EventResourceResolver } from './event-resource';
import { NodeResolver } from './graph.resolver';
import { RecordSubscriptionResolver } from './record-subscriptions';

export const graphModule = defineModule({
  name: 'graph',
  uses: { events: eventsModule },
  provide: (_kernel, { events }) => ({ events: events.events, eventHub: events.eventHub }),
  resolvers: [NodeResolver, EventResourceResolver, RecordSubscriptionResolver],
});
