/**
 * Payout batches: the one place where their rules live (REST routes and GraphQL resolvers only
 * translate). A valid batch holds its totals (one reservation per currency) until it is
 * approved, when every row becomes a payout intent in `processing` and the reservation moves
 * to them, or cancelled, when it is released. Its payouts settle one by one (the payouts'
 * scheduler or test helpers); the last one completes the batch (src/modules/batch-progress,
 * which the payouts' settle path calls).
 */
import type { Db } from '../../db/db';
import { PrepareAndRetry } from '../../db/db';
import type { EndWork } from '../../db/batch';
import { insertAll, insertRows } from '../../db/compiled-write';
import type { Tx } from '../../db/tx';
import type { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { parseListQuery, type Page } from '../../domain/listing';
import type { Actor, RequestContext, Scope } from '../../domain/scope';
import type { Done } from '../../ops/operation';
import type { LedgerService } from '../balances/ledger.service';
import type { EventService } from '../events/event.service';
import { IntentReads, IntentStore } from '../shared/intent-store';
import { unpayableBank, type PayoutIntentWire, type PayoutService } from '../payouts/payout.service';
import { PayoutIntent } from '../payouts/payout.entity';
import { PayoutBatch, PayoutBatchItem, type RowError } from './batch.entity';
import { chunks, totalsOf } from './batch.rows';
import { BATCH_ITEMS_LIST, BATCH_LIST, type PayoutBatchWire } from './batch.schemas';
import { batchStates } from './batch.states';
import { batchToWire } from './batch.wire';

import { approveItems } from './batch.approve';
import type { CreatePayoutInput } from '../payouts/payout.service';
import type { ApprovalPolicyService } from '../approvals/approval-policy.service';
import { vote } from '../approvals/approval-rules';
import { personOf } from '../../domain/permissions';

/** A create, parsed: the rows' payouts (when every row passed) and every row's error. */
export interface BatchInput {
  count: number;
  rows: CreatePayoutInput[];
  errors: RowError[];
}

export interface BatchServiceDeps {
  db: Db;
  cipher: FieldCipher;
  ledger: LedgerService;
  events: EventService;
  payouts: PayoutService;
  /** The approval policies a new batch reads its gate from (the strictest of its totals). */
  policies: Pick<ApprovalPolicyService, 'gateForTotals'>;
  /** Delay before the provider settles an approved payout on its own; 0 = never. */
  settleMs: number;
}

const CHUNK = 500;
const reserved = { entryType: 'payout_batch_reserved', move: 'reserve' } as const;
const released = { entryType: 'payout_batch_released', move: 'release' } as const;

export class PayoutBatchService extends IntentReads<PayoutBatch, PayoutBatchWire> {
  constructor(private readonly deps: BatchServiceDeps) {
    super(new IntentStore(deps.db, PayoutBatch, 'payoutBatch', 'payout batch', BATCH_LIST, batchToWire));
  }

  /**
   * A batch: `invalid` (stored with every row's error; nothing else is created) or
   * `requires_approval` with its rows and its totals reserved. Rows whose merchant_references
   * are all an earlier batch's with the same number of rows: that batch (a retried upload).
   */
  async create(tx: Tx, ctx: Actor, input: BatchInput): Promise<Done<PayoutBatchWire>> {
    const now = new Date();
    let errors = input.errors;
    if (errors.length === 0) {
      const taken = await this.taken(
        tx,
        ctx,
        input.rows.map((r) => r.merchant_reference),
      );
      const earlier = new Set(taken.values());
      if (earlier.size === 1 && taken.size === input.rows.length) {
        const [batchId] = earlier;
        const original = batchId.startsWith('pob_') ? await this.store.findLocked(tx, ctx, batchId) : null;
        if (original && original.itemCount === input.rows.length) return { outcome: 'existing', value: batchToWire(original) };
      }
      errors = input.rows.flatMap((r, i) => {
        const owner = taken.get(r.merchant_reference);
        return owner ? [{ row: i + 1, param: 'merchant_reference', message: `merchant_reference is already used by ${owner}.` }] : [];
      });
    }
    if (errors.length === 0) {
      // Live rows go through a provider account: a bank none of the scope's accounts pays to is the row's error, as it is a single payout's 400.
      const accounts = await this.deps.payouts.payoutAccounts(tx, ctx, input.rows);
      errors = input.rows.flatMap((r, i) => (accounts[i] === false ? [{ row: i + 1, param: 'recipient.bank_code', message: unpayableBank(ctx, r) }] : []));
    }
    const valid = errors.length === 0;
    const totals = valid ? totalsOf(input.rows) : [];
    // The policies as they are now: a later change applies to batches created after it.
    const gate = await this.deps.policies.gateForTotals(
      tx,
      ctx,
      totals.map((t) => ({ currency: t.currency, amount: BigInt(t.amount) })),
    );
    const batch = Object.assign(new PayoutBatch(), {
      id: newId('payoutBatch', now.getTime()),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      status: valid ? ('requires_approval' as const) : ('invalid' as const),
      itemCount: input.count,
      totals,
      errors,
      succeededCount: 0,
      failedCount: 0,
      cancelReason: null,
      approvalsRequired: gate.approvalsRequired,
      approvalRule: gate.approvalRule,
      // The person: a key made by a member is that member (the creator rule covers their keys).
      createdBy: ctx.principal ? personOf(ctx.principal) : null,
      approvals: null,
      createdAt: now,
      updatedAt: now,
    });
    await insertRows(tx, PayoutBatch, [batch]);
    if (!valid) return { outcome: 'created', value: batchToWire(batch) };
    try {
      const items = input.rows.map((r, i) => this.item(batch, r, i + 1));
      await insertAll(tx, PayoutBatchItem, items);
    } catch (err) {
      if (!this.deps.db.isUniqueViolation(err)) throw err;
      // A concurrent create with these references committed first: rerun, and meet it in `taken`.
      throw new PrepareAndRetry('the concurrent batch with these merchant_references', () => Promise.resolve());
    }
    const end: EndWork[] = [];
    for (const t of batch.totals) {
      end.push(await this.deps.ledger.effect(tx, ctx, t.currency, BigInt(t.amount), reserved, { sourceType: 'payout_batch', sourceId: batch.id }, now));
    }
    return { outcome: 'created', value: batchToWire(batch), end: [...end, await this.event(tx, ctx, batch, 'created', now)] };
  }

  /**
   * requires_approval -> processing, at the approval that reaches the batch's count (one
   * approve without a policy): every row becomes a payout intent in processing. Short of the
   * count, the vote is recorded and the batch keeps waiting (202); a refused vote (the
   * creator's, a key's where members are required, a second by the same person) changes nothing.
   */
  async approve(tx: Tx, ctx: RequestContext, id: string): Promise<Done<PayoutBatchWire>> {
    const batch = await this.store.lock(tx, ctx, id);
    batchStates.check('approve', batch.status);
    const now = new Date();
    const { approvals, reached } = vote(ctx.principal, batch, ctx.environment, now, 'payout batch');
    if (!reached) {
      await this.store.patch(tx, ctx, batch, { approvals }, now);
      return { outcome: 'accepted', value: batchToWire(batch) };
    }
    await this.store.transition(tx, ctx, batch, 'processing', { approvals }, now);
    const wire = batchToWire(batch);
    return { outcome: 'accepted', value: wire, end: await approveItems(tx, ctx, batch, wire, now, this.deps) };
  }

  /** requires_approval -> cancelled: the reservation of every currency is released. */
  async cancel(tx: Tx, ctx: Actor, id: string, reason: string | null): Promise<Done<PayoutBatchWire>> {
    const batch = await this.store.lock(tx, ctx, id);
    batchStates.check('cancel', batch.status);
    const now = new Date();
    await this.store.transition(tx, ctx, batch, 'cancelled', { cancelReason: reason }, now);
    const end: EndWork[] = [];
    for (const t of batch.totals) {
      end.push(await this.deps.ledger.effect(tx, ctx, t.currency, BigInt(t.amount), released, { sourceType: 'payout_batch', sourceId: batch.id }, now));
    }
    return { outcome: 'accepted', value: batchToWire(batch), end: [...end, await this.event(tx, ctx, batch, 'cancelled', now)] };
  }

  /** The batch's payout intents (listing rules); 404 when the batch is not the caller's. */
  async items(scope: Scope, id: string, query: Record<string, unknown>): Promise<Page<PayoutIntentWire>> {
    // The query is checked first: a bad query is 400 whether or not the batch exists.
    const params = parseListQuery(query, BATCH_ITEMS_LIST, scope);
    await this.get(scope, id);
    return this.deps.payouts.list(scope, { ...params, extra: { payout_batch: id } });
  }

  /** Each reference already used in the scope, and by what: a batch (`pob_...`) or a payout of its own (`po_...`). */
  private async taken(tx: Tx, scope: Scope, references: string[]): Promise<Map<string, string>> {
    const owners = new Map<string, string>();
    const where = 'r.merchant_id = :merchantId AND r.environment = :environment AND r.merchant_reference IN (:...refs)';
    for (const refs of chunks(references, CHUNK)) {
      const values = { merchantId: scope.merchantId, environment: scope.environment, refs };
      const items = await tx.createQueryBuilder(PayoutBatchItem, 'r').select(['r.merchantReference', 'r.batchId']).where(where, values).getMany();
      for (const i of items) owners.set(i.merchantReference, i.batchId);
      const own = await tx
        .createQueryBuilder(PayoutIntent, 'r')
        .select(['r.merchantReference', 'r.id'])
        .where(`${where} AND r.payout_batch IS NULL`, values)
        .getMany();
      for (const p of own) owners.set(p.merchantReference, p.id);
    }
    return owners;
  }

  private item(batch: PayoutBatch, r: CreatePayoutInput, row: number): PayoutBatchItem {
    return Object.assign(new PayoutBatchItem(), {
      id: newId('payoutBatchItem', batch.createdAt.getTime()),
      batchId: batch.id,
      merchantId: batch.merchantId,
      environment: batch.environment,
      rowNumber: row,
      amount: r.amount,
      currency: r.currency,
      country: r.country,
      merchantReference: r.merchant_reference,
      bankCode: r.recipient.bank_code,
      holderName: r.recipient.holder_name,
      accountLast4: r.recipient.account_number.slice(-4),
      accountEncrypted: this.deps.cipher.encrypt(r.recipient.account_number),
    });
  }

  /** The batch's `payout_batch.<suffix>` event as it is now, for the end of `tx`. */
  private event(tx: Tx, actor: Actor, batch: PayoutBatch, suffix: string, now: Date): Promise<EndWork> {
    return this.deps.events.prepare(tx, actor, suffix, batchToWire(batch), actor.requestId, now);
  }
}
