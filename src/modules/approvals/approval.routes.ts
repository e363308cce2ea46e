/** REST routes for approval policies: each names its operation or read and its document, nothing more. */
import type { FastifyInstance } from 'fastify';
import type { RouteKit } from '../module';
import { operationRoute, readRoute } from '../../http/dispatch';
import type { approvalOperations } from './approval.operations';
import type { ApprovalPolicyService } from './approval-policy.service';
import { APPROVAL_POLICY_ROUTES as doc } from './approval.schemas';

export function registerApprovalRoutes(
  fastify: FastifyInstance,
  { approvalPolicies, ops }: { approvalPolicies: ApprovalPolicyService; ops: ReturnType<typeof approvalOperations> },
  { pipeline }: RouteKit,
): void {
  readRoute(fastify, '/v1/approval_policies', doc.list, async (ctx) => ({ data: await approvalPolicies.list(ctx) }));
  operationRoute(fastify, pipeline, 'post', '/v1/approval_policies', ops.set, { doc: doc.set });
  operationRoute(fastify, pipeline, 'delete', '/v1/approval_policies/:id', ops.remove, { doc: doc.remove });
}
