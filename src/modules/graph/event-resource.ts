/**
 * `Event.resource`: the record an event is about, typed (a union of the record types that
 * have events), read now through the request's DataLoaders (the same ones `node(id:)` and the
 * single-record queries use), beside `data.object`, the record as it was at the event.
 * The record's own read permission decides: a key that may read events but not payouts gets
 * `resource: null` with a permission_denied error at that path, the rest of the event intact.
 */
import { createUnionType, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { authorize, resourceOfEventType } from '../../domain/access';
import type { GqlContext } from '../../graphql/context';
import { foundOrNotFound } from '../../graphql/errors';
import { nodeKindOf, nodeTypeOf } from '../../graphql/node';
import { PayoutBatchType } from '../batches/batch.types';
import { EventType } from '../events/event.types';
import type { EventWire } from '../events/event.service';
import { ReportRunType } from '../finance/report.types';
import { PaymentLinkType } from '../links/link.types';
import { PaymentIntentType } from '../payments/payment.types';
import { PayoutIntentType } from '../payouts/payout.types';
import { RefundType } from '../refunds/refund.types';
import { TopupIntentType } from '../topups/topup.types';

export const EventResourceUnion = createUnionType({
  name: 'EventResource',
  description: 'A record that has events: what an event is about.',
  types: () => [PaymentIntentType, PayoutIntentType, TopupIntentType, RefundType, PaymentLinkType, PayoutBatchType, ReportRunType] as const,
  resolveType: (record: object) => nodeTypeOf(record) as (new () => object) | undefined,
});

@Resolver(() => EventType)
export class EventResourceResolver {
  @FieldResolver(() => EventResourceUnion, {
    nullable: true,
    description:
      'The record the event is about, as it is now (`data.object` is how it was at the event); null, with an error, when the caller may not read it (permission_denied) or it is gone (not_found).',
  })
  async resource(@Root() event: EventWire, @Ctx() { loaders, ctx }: GqlContext): Promise<object> {
    const resource = resourceOfEventType(event.type);
    if (resource) authorize(ctx.principal, `${resource}:read`, ctx.log, 'graphql Event.resource');
    const id = (event.data.object as { id?: unknown }).id;
    const kind = typeof id === 'string' ? nodeKindOf(id) : undefined;
    return foundOrNotFound(kind ? kind.load(loaders, id as string, ctx) : Promise.resolve(null), 'record');
  }
}
