/** The event outbox: listing, lookup and the `events` subscription. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { EventType } from './event.types';
import { EventRecord, EventSequence } from './event.entity';
import { EventHub } from './event.hub';
import { EventResolver, EventSubscriptionResolver } from './event.resolver';
import { registerEventRoutes } from './event.routes';
import { EventSchema } from './event.schemas';
import { EventService, type EventWire } from './event.service';
import { webhookFanOutModule } from '../webhook-fan-out/webhook-fan-out.module';

declare module '../../graphql/context' {
  interface Loaders {
    event: DataLoader<string, EventWire | null>;
  }
}

registerNode('evt', EventType, (loaders, id) => loaders.event.load(id), 'events:read');

export const eventsModule = defineModule({
  name: 'events',
  uses: { fanOut: webhookFanOutModule },
  provide({ db, config, log, redis }, { fanOut }) {
    // Every event is written with its webhook deliveries, in the event's own transaction.
    const events = new EventService(db, fanOut.webhookFanOut);
    const eventHub = new EventHub(events, config.eventsPollMs, log.child({ component: 'events' }), redis);
    return { events, eventHub };
  },
  close: ({ eventHub }) => eventHub.close(),
  entities: [EventRecord, EventSequence],
  resolvers: [EventResolver, EventSubscriptionResolver],
  routes: registerEventRoutes,
  loaders: ({ events }, ctx) => ({
    event: new DataLoader<string, EventWire | null>(async (ids) => byKey(ids, await events.getMany(ctx, ids))),
  }),
  models: [EventSchema],
});
