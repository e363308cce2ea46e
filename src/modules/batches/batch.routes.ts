/** REST routes for payout batches: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import type { RouteKit } from '../module';
import type { batchOperations } from './batch.operations';
import { listRoute, operationRoute, readRoute } from '../../http/dispatch';
import { BATCH_ITEMS_LIST, BATCH_LIST, BATCH_ROUTES as doc, MAX_JSON_BATCH_BYTES } from './batch.schemas';
import { uploadedItems } from './batch.csv';
import type { PayoutBatchService } from './batch.service';

export function registerBatchRoutes(
  fastify: FastifyInstance,
  { batches, ops }: { batches: PayoutBatchService; ops: ReturnType<typeof batchOperations> },
  { pipeline }: RouteKit,
): void {
  // Its own scope: the multipart parser serves this route only.
  fastify.register(async (scope) => {
    await scope.register(multipart);
    operationRoute(scope, pipeline, 'post', '/v1/payout_batches', ops.create, {
      doc: doc.create,
      upload: {
        bodyLimit: MAX_JSON_BATCH_BYTES,
        read: async (req) => {
          const body = await uploadedItems(req);
          return body && { op: ops.createCsv, body };
        },
      },
    });
  });
  listRoute(fastify, '/v1/payout_batches', doc.list, BATCH_LIST, async (ctx, query) => batches.list(ctx, batches.parseList(ctx, query)));
  readRoute(fastify, '/v1/payout_batches/:id', doc.get, (ctx, _query, { id }) => batches.get(ctx, id));
  listRoute(fastify, '/v1/payout_batches/:id/items', doc.items, BATCH_ITEMS_LIST, async (ctx, query, { id }) => batches.items(ctx, id, query));
  operationRoute(fastify, pipeline, 'post', '/v1/payout_batches/:id/approve', ops.approve, { doc: doc.approve });
  operationRoute(fastify, pipeline, 'post', '/v1/payout_batches/:id/cancel', ops.cancel, { doc: doc.cancel });
}
