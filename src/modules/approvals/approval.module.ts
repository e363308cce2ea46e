/** Approval policies (four eyes on payouts): the table, its routes and fields; payouts read it at creation. */
import DataLoader from 'dataloader';
import { byKey, defineModule } from '../module';
import { registerNode } from '../../graphql/node';
import { ApprovalPolicy } from './approval-policy.entity';
import { ApprovalPolicyService } from './approval-policy.service';
import { approvalOperations } from './approval.operations';
import { ApprovalPolicyResolver, ApprovalPolicyType } from './approval.resolver';
import { registerApprovalRoutes } from './approval.routes';
import { ApprovalPolicySchema, type ApprovalPolicyWire } from './approval.schemas';

declare module '../../graphql/context' {
  interface Loaders {
    approvalPolicy: DataLoader<string, ApprovalPolicyWire | null>;
  }
}

// Policies are read by whoever may read payouts, as the approvalPolicies query is.
registerNode('apol', ApprovalPolicyType, (loaders, id) => loaders.approvalPolicy.load(id), 'payout_intents:read');

export const approvalsModule = defineModule({
  name: 'approvals',
  provide({ db }) {
    const approvalPolicies = new ApprovalPolicyService(db);
    return { approvalPolicies, ops: approvalOperations(approvalPolicies) };
  },
  entities: [ApprovalPolicy],
  resolvers: [ApprovalPolicyResolver],
  routes: registerApprovalRoutes,
  models: [ApprovalPolicySchema],
  loaders: ({ approvalPolicies }, ctx) => ({
    approvalPolicy: new DataLoader<string, ApprovalPolicyWire | null>(async (ids) => byKey(ids, await approvalPolicies.getMany(ctx, ids))),
  }),
});
