/**
 * The audit log. `record` is called by IdempotencyService inside the transaction of every
 * state-changing API call (REST and GraphQL both go through IdempotencyService.run), after
 * the handler succeeded and before the commit: the entry commits with the change or not at
 * all. Rejected calls (4xx) and rolled-back ones (5xx) therefore leave no entry, and an
 * idempotent replay (nothing executed) adds none.
 */
import type { Tx } from '../../db/tx';
import type { EndWork } from '../../db/batch';
import { newId } from '../../domain/ids';
import { insertOf } from '../../db/compiled-write';
import { ListParams, Page, parseListQuery, toPage } from '../../domain/listing';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import type { RequestContext } from '../auth/request-context';
import { AuditEntry } from './audit.entity';
import { AUDIT_LIST } from './audit.schemas';
import { isoInstant } from '../../domain/instant';
import { wireActor } from '../../domain/permissions';
import type { AuditEntryWire } from './audit.schemas';
export type { AuditEntryWire } from './audit.schemas';

export function auditToWire(a: AuditEntry): AuditEntryWire {
  return {
    object: 'audit_entry',
    id: a.id,
    environment: a.environment,
    api_key_id: a.apiKeyId,
    actor: a.actor ?? null,
    operation: a.operation,
    resource_type: a.resourceType,
    resource_id: a.resourceId,
    reason: a.reason,
    request_id: a.requestId,
    status_code: a.statusCode,
    created_at: isoInstant(a.createdAt),
  };
}

/** What a call did, as far as the audit log is concerned. */
export interface AuditFacts {
  operation: string;
  status: number;
  /** The response body (the record as REST returns it): its `object` and `id` name the resource. */
  body: unknown;
  /** The parsed input: its `reason` (cancel) is recorded, and its `id` when the body has none. */
  input: unknown;
}

const stringField = (value: unknown, key: string): string | null => {
  if (value === null || typeof value !== 'object') return null;
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'string' && v !== '' ? v : null;
};

export class AuditService {
  constructor(private readonly db: Db) {}

  /** The entry's write, for the end of `tx`: nothing waits for its answer, so it goes with the unit's last statements. */
  record(tx: Tx, ctx: RequestContext, facts: AuditFacts, now = new Date()): EndWork {
    const resourceType = stringField(facts.body, 'object');
    // Records carry `id`; a method setting is named by its payment_method.
    const resourceId = stringField(facts.body, 'id') ?? stringField(facts.body, 'payment_method') ?? stringField(facts.input, 'id');
    const entry = Object.assign(new AuditEntry(), {
      id: newId('auditEntry', now.getTime()),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      apiKeyId: ctx.apiKeyId,
      actor: wireActor(ctx.principal),
      actorId: ctx.principal.id.slice(0, 40),
      operation: facts.operation.slice(0, 128),
      resourceType: resourceType?.slice(0, 64) ?? null,
      resourceId: resourceId?.slice(0, 40) ?? null,
      reason: stringField(facts.input, 'reason'),
      requestId: ctx.requestId?.slice(0, 64) ?? null,
      statusCode: facts.status,
      createdAt: now,
    });
    return { statements: [insertOf(tx, AuditEntry, [entry])], after: () => undefined };
  }

  /** Several entries of `scope` by id (a DataLoader's batch); unknown ids are left out. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, AuditEntryWire>> {
    const rows = await findManyInScope(this.db, AuditEntry, 'auditEntry', scope, ids);
    return new Map([...rows].map(([id, row]) => [id, auditToWire(row)]));
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, AUDIT_LIST, scope);
  }

  /** The scope's entries, newest first, optionally for one record, one actor and/or one operation. */
  async list(scope: Scope, params: ListParams): Promise<Page<AuditEntryWire>> {
    const rows = await this.db.read((em) => {
      const qb = applyList(em.createQueryBuilder(AuditEntry, 'a'), 'a', scope, params);
      if (params.extra.resource_id) qb.andWhere('a.resource_id = :rid', { rid: params.extra.resource_id });
      if (params.extra.operation) qb.andWhere('a.action = :op', { op: params.extra.operation });
      if (params.extra.actor) qb.andWhere('a.actor_id = :aid', { aid: params.extra.actor });
      // One record's entries: a range of ix_audit_log_resource_list (merchant_id, environment,
      // resource_id, created_at, id) from the cursor down; one actor's, of ix_audit_log_actor_list
      // (the same with actor_id); otherwise the list index.
      return listRows(
        em,
        qb,
        'a',
        params,
        params.extra.resource_id
          ? { list: 'ix_audit_log_resource_list', sqliteToo: true }
          : params.extra.actor
            ? { list: 'ix_audit_log_actor_list', sqliteToo: true }
            : listIndexesOf('audit_log', false),
      );
    });
    return toPage(rows, params, AUDIT_LIST.resource, scope, auditToWire);
  }
}
