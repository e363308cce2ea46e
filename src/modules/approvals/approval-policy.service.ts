/**
 * Approval policies: at most one per merchant, environment and currency. A payout reads its
 * currency's policy when it is created and keeps what it said (`approvals_required`, who may
 * vote), so a change applies to payouts created after it.
 */
import type { EntityManager } from 'typeorm';
import { compiledSelect } from '../../db/compiled-select';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import { ApiError } from '../../domain/errors';
import { amountOf, upper } from '../../domain/fields';
import { isId, newId } from '../../domain/ids';
import { isoInstant } from '../../domain/instant';
import { formatAmount } from '../../domain/money';
import type { Scope } from '../../domain/scope';
import type { Done } from '../../ops/operation';
import { ApprovalPolicy } from './approval-policy.entity';
import type { ApprovalPolicyWire, SetApprovalPolicyBody } from './approval.schemas';

export interface PolicyInput {
  currency: string;
  minAmount: bigint;
  approvals: number;
  keysCount: boolean;
}

/** What a payout keeps of its policy. */
export interface PayoutGate {
  approvalsRequired: number;
  approvalRule: 'members' | 'members_or_keys' | null;
}

export const NO_GATE: PayoutGate = { approvalsRequired: 1, approvalRule: null };

export function parsePolicy(body: SetApprovalPolicyBody): PolicyInput {
  return { currency: upper(body.currency), minAmount: amountOf(body.min_amount), approvals: body.approvals, keysCount: body.keys_count === true };
}

export function policyToWire(p: ApprovalPolicy): ApprovalPolicyWire {
  return {
    object: 'approval_policy',
    id: p.id,
    environment: p.environment,
    currency: p.currency,
    min_amount: formatAmount(p.minAmount),
    approvals: p.approvals,
    keys_count: p.keysCount,
    created_at: isoInstant(p.createdAt),
    updated_at: isoInstant(p.updatedAt),
  };
}

export class ApprovalPolicyService {
  constructor(private readonly db: Db) {}

  /**
   * The gate a new payout of `currency` and `amount` gets, read in the payout's transaction.
   * Every payout create asks, so the query is built once (`compiledSelect`, as the create's other
   * reads): `findOneBy` built it at each create, 2.4 % of a create's CPU in the bench's profile.
   */
  async gateFor(em: EntityManager, scope: Scope, currency: string, amount: bigint): Promise<PayoutGate> {
    const [policy] = await compiledSelect(em, 'approvalPolicy.gate', { merchantId: scope.merchantId, environment: scope.environment, currency }, () =>
      em.createQueryBuilder(ApprovalPolicy, 'p').where('p.merchant_id = :merchantId AND p.environment = :environment AND p.currency = :currency').limit(1),
    );
    if (!policy || amount < policy.minAmount) return NO_GATE;
    return { approvalsRequired: policy.approvals, approvalRule: policy.keysCount ? 'members_or_keys' : 'members' };
  }

  /**
   * The gate of a payout batch: one set of approvals covers it, so it gets the strictest gate
   * of its totals (the most approvals; members only when any of them says so).
   */
  async gateForTotals(em: EntityManager, scope: Scope, totals: readonly { currency: string; amount: bigint }[]): Promise<PayoutGate> {
    let gate = NO_GATE;
    for (const t of totals) {
      const g = await this.gateFor(em, scope, t.currency, t.amount);
      if (g.approvalRule === null) continue;
      gate = {
        approvalsRequired: Math.max(gate.approvalsRequired, g.approvalsRequired),
        approvalRule: gate.approvalRule === 'members' || g.approvalRule === 'members' ? 'members' : 'members_or_keys',
      };
    }
    return gate;
  }

  /** Several policies of `scope` by id (a DataLoader's batch); unknown ids are left out. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, ApprovalPolicyWire>> {
    const rows = await findManyInScope(this.db, ApprovalPolicy, 'approvalPolicy', scope, ids);
    return new Map([...rows].map(([id, row]) => [id, policyToWire(row)]));
  }

  async list(scope: Scope): Promise<ApprovalPolicyWire[]> {
    const rows = await this.db.read((em) =>
      em.find(ApprovalPolicy, { where: { merchantId: scope.merchantId, environment: scope.environment }, order: { currency: 'ASC' } }),
    );
    return rows.map(policyToWire);
  }

  /** Sets the currency's policy: updates the one there is, or inserts. */
  async set(em: EntityManager, scope: Scope, input: PolicyInput, now = new Date()): Promise<Done<ApprovalPolicyWire>> {
    const where = { merchantId: scope.merchantId, environment: scope.environment, currency: input.currency };
    const changes = { minAmount: input.minAmount, approvals: input.approvals, keysCount: input.keysCount, updatedAt: now };
    const updated = await em.update(ApprovalPolicy, where, changes);
    if (!updated.affected) {
      await em.insert(ApprovalPolicy, { id: newId('approvalPolicy', now.getTime()), ...where, ...changes, createdAt: now });
    }
    const row = await em.findOneByOrFail(ApprovalPolicy, where);
    return { outcome: 'done', value: policyToWire(row) };
  }

  /** Deletes a policy by id, or by currency (`THB`). */
  async remove(em: EntityManager, scope: Scope, idOrCurrency: string): Promise<Done<ApprovalPolicyWire>> {
    const base = { merchantId: scope.merchantId, environment: scope.environment };
    const byId = isId('approvalPolicy', idOrCurrency);
    const where = byId ? { ...base, id: idOrCurrency } : { ...base, currency: String(idOrCurrency).toUpperCase() };
    const row = await em.findOneBy(ApprovalPolicy, where);
    if (!row) throw ApiError.notFound('approval policy');
    await em.delete(ApprovalPolicy, { id: row.id });
    return { outcome: 'done', value: policyToWire(row) };
  }
}
