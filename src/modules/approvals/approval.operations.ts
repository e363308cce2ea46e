/** The approval-policy operations: what each parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { EmptyBody } from '../../domain/fields';
import { ApprovalPolicyService, parsePolicy } from './approval-policy.service';
import { SetApprovalPolicyBody } from './approval.schemas';
import { checkLiveSecondFactor } from './approval-rules';

export function approvalOperations(policies: ApprovalPolicyService) {
  return {
    set: defineOperation({
      name: 'approval_policy.set',
      label: 'POST /v1/approval_policies',
      ...withBody(SetApprovalPolicyBody, (body) => parsePolicy(body)),
      execute: (em, ctx, input) => {
        checkLiveSecondFactor(ctx.principal, ctx.environment, new Date(), 'Changing an approval policy');
        return policies.set(em, ctx, input);
      },
    }),
    remove: defineOperation({
      name: 'approval_policy.delete',
      label: 'DELETE /v1/approval_policies/:id',
      ...withBody(EmptyBody, (_body, { id }: { id: string }) => ({ id })),
      execute: (em, ctx, { id }) => {
        checkLiveSecondFactor(ctx.principal, ctx.environment, new Date(), 'Deleting an approval policy');
        return policies.remove(em, ctx, id);
      },
    }),
  };
}
