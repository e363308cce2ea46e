/** The payout batch operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { cancelReason, CancelBody, EmptyBody } from '../../domain/fields';
import type { PayoutBatchService } from './batch.service';
import { checkRows } from './batch.rows';
import { csvColumnOf } from './batch.csv';
import { CreatePayoutBatchBody } from './batch.schemas';

type ById = { id: string };

export function batchOperations(batches: PayoutBatchService) {
  return {
    create: defineOperation({
      name: 'payout_batch.create',
      label: 'POST /v1/payout_batches',
      ...withBody(CreatePayoutBatchBody, (body) => ({ count: body.items.length, ...checkRows(body.items) })),
      execute: (tx, ctx, input) => batches.create(tx, ctx, input),
    }),
    /** The same create from a CSV file: its rows' errors name the CSV's columns. */
    createCsv: defineOperation({
      name: 'payout_batch.create',
      label: 'POST /v1/payout_batches',
      ...withBody(CreatePayoutBatchBody, (body) => ({ count: body.items.length, ...checkRows(body.items, csvColumnOf) })),
      execute: (tx, ctx, input) => batches.create(tx, ctx, input),
    }),
    approve: defineOperation({
      name: 'payout_batch.approve',
      label: 'POST /v1/payout_batches/:id/approve',
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (tx, ctx, { id }) => batches.approve(tx, ctx, id),
    }),
    cancel: defineOperation({
      name: 'payout_batch.cancel',
      label: 'POST /v1/payout_batches/:id/cancel',
      ...withBody(CancelBody, (body, { id }: ById) => ({ id, ...cancelReason(body) })),
      execute: (tx, ctx, { id, reason }) => batches.cancel(tx, ctx, id, reason),
    }),
  };
}
