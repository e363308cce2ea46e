/** Approval policies (four eyes on payouts): the table, its routes and fields; payouts read it at creation. */
import { defineModule } from '../module';
import { ApprovalPolicy } from './approval-policy.entity';
import { ApprovalPolicyService } from './approval-policy.service';
import { approvalOperations } from './approval.operations';
import { ApprovalPolicyResolver } from './approval.resolver';
import { registerApprovalRoutes } from './approval.routes';
import { ApprovalPolicySchema } from './approval.schemas';

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
});
