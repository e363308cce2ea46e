/** Payment links: the resource, its QR code, and the payer's page at /pay/<token>. */
import DataLoader from 'dataloader';
import type { FastifyInstance } from 'fastify';
import { registerNode } from '../../graphql/node';
import { liveGated, type LiveCheck } from '../../ops/operation';
import { eventsModule } from '../events/event.module';
import { methodsModule } from '../methods/method.module';
import { byKey, defineModule, type RouteKit } from '../module';
import { paymentsModule } from '../payments/payment.module';
import { PaymentLink } from './link.entity';
import { linkOperations } from './link.operations';
import { LinkResolver, PaymentIntentLinkResolver } from './link.resolver';
import { registerLinkRoutes } from './link.routes';
import { PaymentLinkSchema } from './link.schemas';
import { LinkService } from './link.service';
import { PaymentLinkType } from './link.types';
import { registerPayRoutes } from './pay.routes';
import { PayService } from './pay.service';
import type { PaymentLinkWire } from './link.wire';

declare module '../../graphql/context' {
  interface Loaders {
    paymentLink: DataLoader<string, PaymentLinkWire | null>;
  }
}

registerNode('plink', PaymentLinkType, (loaders, id) => loaders.paymentLink.load(id), 'payment_links:read');

export const linksModule = defineModule({
  name: 'links',
  uses: { events: eventsModule, methods: methodsModule, payments: paymentsModule },
  provide({ db, config, publicUrl }, { events, methods, payments }) {
    const links = new LinkService({ db, events: events.events, methods: methods.methodRouting, baseUrl: () => publicUrl.get() });
    const pay = new PayService({ db, links, payments: payments.payments, lifecycle: payments.paymentLifecycle, baseUrl: () => publicUrl.get() });
    // A link's payments are payment intents: live mode takes them where live payments are taken.
    const liveLinks: boolean | LiveCheck = config.simulatedProvidersInLive || ((scope, tx) => methods.methodRouting.hasAccounts(scope, tx));
    return { links, pay, linkOps: liveGated(linkOperations(links), liveLinks) };
  },
  entities: [PaymentLink],
  resolvers: [LinkResolver, PaymentIntentLinkResolver],
  async routes(fastify: FastifyInstance, services, kit: RouteKit) {
    registerLinkRoutes(fastify, services, kit);
    await registerPayRoutes(fastify, services);
  },
  loaders: ({ links }, ctx) => ({
    paymentLink: new DataLoader<string, PaymentLinkWire | null>(async (ids) => byKey(ids, await links.getMany(ctx, ids))),
  }),
  models: [PaymentLinkSchema],
});
