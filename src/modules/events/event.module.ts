/** The event outbox: listing, lookup and the `events` subscription. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { EventRecord, EventSequence } from './event.entity';
import { EventResolver, EventSubscriptionResolver } from './event.resolver';
import { registerEventRoutes } from './event.routes';
import { EventSchema } from './event.schemas';
import type { EventWire } from './event.service';

export const eventsModule = defineModule({
  name: 'events',
  entities: [EventRecord, EventSequence],
  resolvers: [EventResolver, EventSubscriptionResolver],
  routes: registerEventRoutes,
  loaders: (app, ctx) => ({
    event: new DataLoader<string, EventWire | null>(async (ids) => byKey(ids, await app.events.getMany(ctx, ids))),
  }),
  models: [EventSchema],
});
