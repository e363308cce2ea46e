/**
 * Webhook endpoints, the merchant-facing API: create, delete, get, list endpoints and list
 * the delivery attempts to one endpoint. Deleting an endpoint cancels its pending deliveries.
 *
 * The mutations are operations (webhook.operations.ts) that the pipeline runs.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import type { FieldCipher } from '../../domain/crypto';
import { isId, newId } from '../../domain/ids';
import { applyList, decodeCursor, ListParams, listQuerySchema, Page, parseListQuery, toPage } from '../../domain/listing';
import { check } from '../../domain/schema';
import type { Scope } from '../../domain/scope';
import { PrepareAndRetry, type Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import { Done, external, Step } from '../../domain/operation';
import { resolvePublic, SsrfError, UnresolvedHostError } from './ssrf';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointLock } from './webhook.entity';
import { ATTEMPT_LIST, ENDPOINT_LIST, MAX_ENDPOINTS } from './webhook.schemas';
import {
  attemptCursorResource, attemptToWire, CreateEndpointInput, endpointToWire, WebhookAttemptWire, WebhookEndpointDeleted, WebhookEndpointWire,
} from './webhook.wire';

export interface WebhookEndpointServiceDeps {
  db: Db;
  cipher: FieldCipher;
  allowLoopback: boolean;
}

export class WebhookEndpointService {
  constructor(private readonly deps: WebhookEndpointServiceDeps) {}

  // ---- mutations ----

  /**
   * A new endpoint, its secret shown once. The url's host is resolved first, outside any
   * transaction (a slow DNS answer must not hold one, or on SQLite the single write queue);
   * a refusal is raised in the phase that follows, so it is stored against the
   * Idempotency-Key like any other 400.
   */
  create(ctx: RequestContext, input: CreateEndpointInput): Step<WebhookEndpointWire> {
    return external(() => this.precheckHost(input.url), async (em, refusal) => {
      if (refusal) throw refusal;
      return this.insert(em, ctx, input);
    });
  }

  private async insert(em: EntityManager, ctx: RequestContext, input: CreateEndpointInput): Promise<Done<WebhookEndpointWire>> {
    await this.lockScope(em, ctx);
    // A locking read counts the latest committed rows, whatever snapshot the transaction holds.
    const count = await this.deps.db.forUpdate(
      em.createQueryBuilder(WebhookEndpoint, 'w')
        .where('w.merchant_id = :merchantId AND w.environment = :environment AND w.status = :enabled', { merchantId: ctx.merchantId, environment: ctx.environment, enabled: 'enabled' }),
    ).getCount();
    if (count >= MAX_ENDPOINTS) {
      throw new ApiError('endpoint_limit_reached', `At most ${MAX_ENDPOINTS} enabled webhook endpoints per environment; delete one first.`);
    }
    const now = new Date();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const e = Object.assign(new WebhookEndpoint(), {
      id: newId('webhookEndpoint', now.getTime()), merchantId: ctx.merchantId, environment: ctx.environment,
      url: input.url, enabledEvents: input.enabled_events, secretEncrypted: this.deps.cipher.encrypt(secret),
      status: 'enabled' as const, disabledReason: null, createdAt: now, updatedAt: now,
    });
    await em.insert(WebhookEndpoint, e);
    return { outcome: 'created', value: { ...endpointToWire(e), secret } };
  }

  async remove(em: EntityManager, ctx: RequestContext, id: string): Promise<Done<WebhookEndpointDeleted>> {
    await this.lockScope(em, ctx);
    const e = await this.findEndpoint(em, ctx, id);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    await em.update(WebhookEndpoint, { id: e.id }, { status: 'deleted', updatedAt: now });
    await em.createQueryBuilder().update(WebhookDelivery)
      .set({ status: 'cancelled', updatedAt: now, lastError: 'endpoint deleted' })
      .where('endpoint_id = :id AND status = :pending', { id: e.id, pending: 'pending' }).execute();
    return { outcome: 'done', value: { object: 'webhook_endpoint', id: e.id, deleted: true } };
  }

  /**
   * Takes the scope's row of webhook_endpoint_locks for the rest of `em`'s transaction by
   * writing it (see WebhookEndpointLock): creates and deletes of one scope's endpoints then
   * run one at a time across processes, and on Galera the second of two concurrent ones
   * fails certification and is retried by Db.tx, to count again. A SELECT ... FOR UPDATE
   * alone would not do there: Galera does not replicate read locks.
   *
   * The first use in a scope makes the row: on SQLite inside `em` (the queue runs it
   * alone); on MySQL committed on its own before the unit of work reruns (PrepareAndRetry,
   * as for a first balance row: parallel inserts into one gap would deadlock).
   */
  private async lockScope(em: EntityManager, scope: Scope): Promise<void> {
    const bumped = await em.createQueryBuilder().update(WebhookEndpointLock)
      .set({ version: () => 'version + 1' })
      .where('merchant_id = :merchantId AND environment = :environment', { merchantId: scope.merchantId, environment: scope.environment })
      .execute();
    if (bumped.affected) return;
    const row = { merchantId: scope.merchantId, environment: scope.environment, version: '1' };
    if (this.deps.db.kind === 'sqlite') {
      await em.insert(WebhookEndpointLock, row);
      return;
    }
    throw new PrepareAndRetry('the webhook endpoint lock row', async () => {
      try {
        await this.deps.db.ds.getRepository(WebhookEndpointLock).insert({ ...row, version: '0' });
      } catch (err) {
        if (!this.deps.db.isUniqueViolation(err)) throw err;
      }
    });
  }

  // ---- reads ----

  async get(scope: Scope, id: string): Promise<WebhookEndpointWire> {
    const e = await this.deps.db.read((em) => this.findEndpoint(em, scope, id));
    if (!e) throw ApiError.notFound('webhook endpoint');
    return endpointToWire(e);
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, ENDPOINT_LIST, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<WebhookEndpointWire>> {
    const rows = await this.deps.db.read((em) =>
      applyList(em.createQueryBuilder(WebhookEndpoint, 'w'), 'w', scope, params).andWhere('w.status <> :deleted', { deleted: 'deleted' }).getMany());
    return toPage(rows, params, ENDPOINT_LIST.resource, scope, endpointToWire);
  }

  /**
   * Attempt-list query; its cursors are bound to the endpoint (a cursor of another endpoint
   * is a 400). One spec and schema for every endpoint: only the cursor is decoded per endpoint.
   */
  parseAttemptList(scope: Scope, endpointId: string, query: Record<string, unknown>): ListParams {
    const { cursor, ...rest } = check(listQuerySchema(ATTEMPT_LIST), query, 'query') as Record<string, unknown>;
    const params = parseListQuery(rest, ATTEMPT_LIST, scope);
    if (cursor !== undefined) params.after = decodeCursor(attemptCursorResource(endpointId), scope, String(cursor));
    return params;
  }

  /** Attempts to one endpoint of this scope, newest first. */
  async listAttempts(scope: Scope, endpointId: string, params: ListParams): Promise<Page<WebhookAttemptWire>> {
    await this.get(scope, endpointId);
    const rows = await this.deps.db.read((em) =>
      applyList(em.createQueryBuilder(WebhookAttempt, 'a'), 'a', scope, params).andWhere('a.endpoint_id = :endpointId', { endpointId }).getMany());
    return toPage(rows, params, attemptCursorResource(endpointId), scope, attemptToWire);
  }

  private async findEndpoint(em: EntityManager, scope: Scope, id: string): Promise<WebhookEndpoint | null> {
    if (!isId('webhookEndpoint', id)) return null;
    return em.createQueryBuilder(WebhookEndpoint, 'w')
      .where('w.id = :id AND w.merchant_id = :merchantId AND w.environment = :environment AND w.status <> :deleted', { id, ...scope, deleted: 'deleted' })
      .getOne();
  }

  /** The SSRF refusal for a parsed url, or null. */
  private async precheckHost(target: string): Promise<ApiError | null> {
    const url = new URL(target);
    try {
      await resolvePublic(url.hostname, this.deps.allowLoopback);
      return null;
    } catch (err) {
      // A host without a DNS answer today (not yet set up, or no resolver here) is accepted:
      // it points nowhere yet, and every delivery resolves and checks the address again.
      if (err instanceof UnresolvedHostError) return null;
      if (err instanceof SsrfError) return ApiError.validation('url', `url is not allowed: ${err.message}.`);
      throw err;
    }
  }
}
