/**
 * DataLoaders, created per request (and per subscription event), never shared: each
 * batches one scoped statement per tick, so N lookups in a query cost one SELECT.
 */
import DataLoader from 'dataloader';
import type { App } from '../app';
import type { Merchant } from '../modules/auth/merchant.entity';
import type { RequestContext } from '../modules/auth/request-context';
import type { PayoutIntentWire } from '../modules/payouts/payout.service';
import type { TopupIntentWire } from '../modules/topups/topup.service';
import type { PaymentIntentWire } from '../modules/payments/payment.wire';
import type { EventWire } from '../modules/events/event.service';

export interface Loaders {
  merchant: DataLoader<string, Merchant | null>;
  payoutIntent: DataLoader<string, PayoutIntentWire | null>;
  topupIntent: DataLoader<string, TopupIntentWire | null>;
  paymentIntent: DataLoader<string, PaymentIntentWire | null>;
  event: DataLoader<string, EventWire | null>;
}

function byKey<K, V>(keys: readonly K[], found: Map<K, V>): (V | null)[] {
  return keys.map((k) => found.get(k) ?? null);
}

export function createLoaders(app: App, ctx: RequestContext): Loaders {
  return {
    merchant: new DataLoader(async (ids) => byKey(ids, await app.auth.merchantsByIds(ids))),
    payoutIntent: new DataLoader(async (ids) => byKey(ids, await app.payouts.getMany(ctx, ids))),
    topupIntent: new DataLoader(async (ids) => byKey(ids, await app.topups.getMany(ctx, ids))),
    paymentIntent: new DataLoader(async (ids) => byKey(ids, await app.payments.getMany(ctx, ids))),
    event: new DataLoader(async (ids) => byKey(ids, await app.events.getMany(ctx, ids))),
  };
}
