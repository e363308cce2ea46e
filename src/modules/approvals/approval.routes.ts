/** REST routes for approval policies: the listing (setting one needs an owner: GraphQL or the CLI). */
import type { FastifyInstance } from 'fastify';
import { readRoute } from '../../http/dispatch';
import type { ApprovalPolicyService } from './approval-policy.service';
import { APPROVAL_POLICY_ROUTES as doc } from './approval.schemas';

export function registerApprovalRoutes(fastify: FastifyInstance, { approvalPolicies }: { approvalPolicies: ApprovalPolicyService }): void {
  readRoute(fastify, '/v1/approval_policies', doc.list, async (ctx) => ({ data: await approvalPolicies.list(ctx) }));
}
