/**
 * Payment link progress: what a payment of a link does to the link. Its own module so that the
 * payments module, which the links module builds on, can be given it at construction and call it
 * explicitly where a payment succeeds and where its checkout's methods are chosen.
 */
import { eventsModule } from '../events/event.module';
import { defineModule } from '../module';
import { LinkProgress } from './link-progress.service';

export const linkProgressModule = defineModule({
  name: 'linkProgress',
  uses: { events: eventsModule },
  provide({ publicUrl }, { events }) {
    return { linkProgress: new LinkProgress({ events: events.events, baseUrl: () => publicUrl.get() }) };
  },
});
