/** Approval policies' schemas: the set body, the wire record, and what each route publishes. */
import { Type, type Static } from '@sinclair/typebox';
import { Amount, AmountText, Currency, EnvironmentName, IgnoredEnvironment, Instant, Obj } from '../../domain/fields';
import { readFailures, type RouteDoc } from '../../http/route-docs';

export const SetApprovalPolicyBody = Obj(
  {
    currency: Currency,
    min_amount: Amount,
    approvals: Type.Integer({ minimum: 1, maximum: 3, description: 'Approvals a payout at or above min_amount needs (1-3).' }),
    keys_count: Type.Optional(Type.Boolean({ default: false, description: "Whether an API key's approve counts as one (default: members only)." })),
    environment: IgnoredEnvironment,
  },
  { title: 'SetApprovalPolicy' },
);
export type SetApprovalPolicyBody = Static<typeof SetApprovalPolicyBody>;

export const ApprovalPolicySchema = Type.Object(
  {
    object: Type.Literal('approval_policy'),
    id: Type.String(),
    environment: EnvironmentName,
    currency: Type.String(),
    min_amount: AmountText,
    approvals: Type.Integer({ minimum: 1, maximum: 3 }),
    keys_count: Type.Boolean(),
    created_at: Instant,
    updated_at: Instant,
  },
  { $id: 'ApprovalPolicy', additionalProperties: false },
);
export type ApprovalPolicyWire = Static<typeof ApprovalPolicySchema>;

/**
 * Only the listing is a REST route: setting and deleting a policy need an owner (the dashboard's
 * GraphQL `setApprovalPolicy` / `deleteApprovalPolicy`, or the CLI), and no API key can change
 * the rule that binds it, so a REST route for them would only ever answer 403.
 */
export const APPROVAL_POLICY_ROUTES = {
  list: {
    operationId: 'listApprovalPolicies',
    permission: 'payout_intents:read',
    summary: 'The approval policies of this merchant and environment, one per currency.',
    responses: { 200: Type.Object({ data: Type.Array(Type.Ref('ApprovalPolicy')) }, { description: 'Every policy, by currency.' }), ...readFailures },
  },
} satisfies Record<string, RouteDoc>;
