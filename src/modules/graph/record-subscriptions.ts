/**
 * Subscriptions that watch one record: `paymentIntent(id:, after:)`, `payoutIntent`,
 * `topupIntent`, `refund`, `payoutBatch`, `paymentLink`, `reportRun`. Each streams the
 * record's events from the scope's outbox stream (EventHub, the one behind `events`), so it
 * has the same guarantees: `after` (an event id) first replays what the client missed, then
 * the stream goes live, oldest first, each event once. Every message is
 * `{ event, <record> }`: the event (its id is the next `after`) and the record as it was at
 * that event. The caller needs the record's read permission, checked at subscribe and again
 * for every message, and the record must exist (else not_found).
 */
import { Arg, ClassType, Ctx, Field, ID, ObjectType, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import { authorize } from '../../domain/access';
import type { Permission } from '../../domain/permissions';
import { Needs } from '../../graphql/access';
import type { GqlContext } from '../../graphql/context';
import { foundOrNotFound, withArgs } from '../../graphql/errors';
import { nodeKindOf } from '../../graphql/node';
import { PayoutBatchType } from '../batches/batch.types';
import type { EventRecord } from '../events/event.entity';
import type { EventHub } from '../events/event.hub';
import { EventService, type EventWire } from '../events/event.service';
import { EventType } from '../events/event.types';
import { ReportRunType } from '../finance/report.types';
import { PaymentLinkType } from '../links/link.types';
import { PaymentIntentType } from '../payments/payment.types';
import { PayoutIntentType } from '../payouts/payout.types';
import { RefundType } from '../refunds/refund.types';
import { TopupIntentType } from '../topups/topup.types';
import { reviveWireRecords } from '../../domain/wire-record';

/** One message of a record subscription. */
export interface RecordUpdate {
  event: EventWire;
  record: Record<string, unknown>;
}

/** `<Name>Update { event: Event!, <field>: <Name>! }`. */
function RecordUpdateType<T extends object>(name: string, field: string, type: ClassType<T>) {
  @ObjectType(`${name}Update`, { description: `A change of one ${name}: the event that reported it and the record as it was then.` })
  class Update {
    @Field(() => EventType, { description: 'The event; its id is the `after` that resumes the subscription after this message.', simple: true })
    event: EventWire;

    record: Record<string, unknown>;
  }
  Field(() => type, { name: field, description: `The ${name} as it was at the event (the event's data.object).` })(Update.prototype, 'record');
  return Update;
}

const PaymentIntentUpdate = RecordUpdateType('PaymentIntent', 'paymentIntent', PaymentIntentType);
const PayoutIntentUpdate = RecordUpdateType('PayoutIntent', 'payoutIntent', PayoutIntentType);
const TopupIntentUpdate = RecordUpdateType('TopupIntent', 'topupIntent', TopupIntentType);
const RefundUpdate = RecordUpdateType('Refund', 'refund', RefundType);
const PayoutBatchUpdate = RecordUpdateType('PayoutBatch', 'payoutBatch', PayoutBatchType);
const PaymentLinkUpdate = RecordUpdateType('PaymentLink', 'paymentLink', PaymentLinkType);
const ReportRunUpdate = RecordUpdateType('ReportRun', 'reportRun', ReportRunType);

type Args = { id: string; after?: string | null };

/** The `subscribe` of a record subscription: `resource` is the event resource (`payment_intent`), `needed` its read permission. */
function watch(resource: string, needed: Permission) {
  return ({ args, context }: SubscribeResolverData<unknown, Args, GqlContext>) => {
    const { events, eventHub } = (context.services.get(RecordSubscriptionResolver) as RecordSubscriptionResolver).services;
    const { ctx } = context;
    return withArgs(async () => {
      authorize(ctx.principal, needed, ctx.log, `graphql Subscription.${resource}`);
      const kind = nodeKindOf(args.id);
      await foundOrNotFound(kind ? kind.load(context.loaders, args.id, ctx) : Promise.resolve(null), resource.replace('_', ' '));
      const afterSeq = args.after ? await events.seqOf(ctx, args.after, 'after') : await events.lastSeq(ctx);
      return onlyRecord(eventHub.stream(ctx, afterSeq, [`${resource}.*`], ctx.apiKeyId), args.id);
    });
  };
}

/** The events of one record out of a stream of its resource's events; ending it ends the source. */
function onlyRecord(source: AsyncIterableIterator<EventRecord>, id: string): AsyncIterableIterator<EventRecord> {
  const it: AsyncIterableIterator<EventRecord> = {
    async next() {
      for (;;) {
        const r = await source.next();
        if (r.done || r.value.resourceId === id) return r;
      }
    },
    return: (value?: unknown) => (source.return ? source.return(value) : Promise.resolve({ done: true as const, value: undefined })),
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}

function update(event: EventRecord, context: GqlContext): RecordUpdate {
  // DataLoaders are per message, never per subscription: a long stream must not serve stale rows.
  context.loaders = context.services.loaders(context.ctx);
  const wire = EventService.toWire(event);
  // The record as the event stored it (JSON): given back the names GraphQL reads (wire-record.ts).
  return { event: wire, record: reviveWireRecords(wire.data.object) };
}

const ID_ARG = { description: 'The record to watch.' };
const AFTER_ARG = { nullable: true, description: 'An event id: first replays the record’s events after it.' } as const;
const about = (what: string) =>
  `Changes of one ${what}, oldest first: \`after\` (an event id) first replays what was missed, then the stream goes live. Needs the ${what}'s read permission.`;

@Resolver()
export class RecordSubscriptionResolver {
  constructor(readonly services: { events: EventService; eventHub: EventHub }) {}

  @Needs('payment_intents:read')
  @Subscription(() => PaymentIntentUpdate, { description: about('payment intent'), subscribe: watch('payment_intent', 'payment_intents:read') })
  paymentIntent(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('payout_intents:read')
  @Subscription(() => PayoutIntentUpdate, { description: about('payout intent'), subscribe: watch('payout_intent', 'payout_intents:read') })
  payoutIntent(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('topup_intents:read')
  @Subscription(() => TopupIntentUpdate, { description: about('topup intent'), subscribe: watch('topup_intent', 'topup_intents:read') })
  topupIntent(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('refunds:read')
  @Subscription(() => RefundUpdate, { description: about('refund'), subscribe: watch('refund', 'refunds:read') })
  refund(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('payout_batches:read')
  @Subscription(() => PayoutBatchUpdate, { description: about('payout batch'), subscribe: watch('payout_batch', 'payout_batches:read') })
  payoutBatch(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('payment_links:read')
  @Subscription(() => PaymentLinkUpdate, { description: about('payment link'), subscribe: watch('payment_link', 'payment_links:read') })
  paymentLink(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }

  @Needs('report_runs:read')
  @Subscription(() => ReportRunUpdate, { description: about('report run'), subscribe: watch('report_run', 'report_runs:read') })
  reportRun(@Root() e: EventRecord, @Ctx() c: GqlContext, @Arg('id', () => ID, ID_ARG) _id: string, @Arg('after', () => String, AFTER_ARG) _a?: string) {
    return update(e, c);
  }
}
