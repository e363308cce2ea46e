/**
 * Webhook endpoints, the merchant-facing API: create, update, rotate the secret, delete,
 * get, list endpoints, list the delivery attempts to one endpoint, and resend one event to
 * one endpoint. Deleting or disabling an endpoint cancels its pending deliveries.
 *
 * The mutations are operations (webhook.operations.ts) that the pipeline runs.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import type { FieldCipher } from '../../domain/crypto';
import { isId, newId } from '../../domain/ids';
import { decodeCursor, ListParams, listQuerySchema, Page, parseListQuery, toPage } from '../../domain/listing';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import { check } from '../../domain/schema';
import type { Scope } from '../../domain/scope';
import { PrepareAndRetry, type Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import { Done, external, TxStep as Step } from '../../ops/operation';
import { resolvePublic, SsrfError, UnresolvedHostError } from './ssrf';
import { EventRecord } from '../events/event.entity';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointLock } from './webhook.entity';
import { ATTEMPT_LIST, ENDPOINT_LIST, MAX_ENDPOINTS, SECRET_OVERLAP_MS } from './webhook.schemas';
import {
  attemptCursorResource,
  attemptToWire,
  CreateEndpointInput,
  deliveryToWire,
  endpointToWire,
  UpdateEndpointInput,
  WebhookAttemptWire,
  WebhookDeliveryWire,
  WebhookEndpointDeleted,
  WebhookEndpointWire,
} from './webhook.wire';

/** `whsec_` + base64 of 24 random bytes. */
const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

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
    return external(
      () => this.precheckHost(input.url),
      async (em, refusal) => {
        if (refusal) throw refusal;
        return this.insert(em, ctx, input);
      },
    );
  }

  private async insert(em: EntityManager, ctx: RequestContext, input: CreateEndpointInput): Promise<Done<WebhookEndpointWire>> {
    await this.lockScope(em, ctx);
    await this.checkRoomForOneMore(em, ctx);
    const now = new Date();
    const secret = newSecret();
    const e = Object.assign(new WebhookEndpoint(), {
      id: newId('webhookEndpoint', now.getTime()),
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      url: input.url,
      enabledEvents: input.enabled_events,
      secretEncrypted: this.deps.cipher.encrypt(secret),
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
      status: 'enabled' as const,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    });
    await em.insert(WebhookEndpoint, e);
    return { outcome: 'created', value: { ...endpointToWire(e), secret } };
  }

  /**
   * The cap, counted under the scope's lock row (the caller took it with lockScope): a
   * locking read counts the latest committed rows, whatever snapshot the transaction holds.
   */
  private async checkRoomForOneMore(em: EntityManager, scope: Scope): Promise<void> {
    const count = await this.deps.db
      .forUpdate(
        em.createQueryBuilder(WebhookEndpoint, 'w').where('w.merchant_id = :merchantId AND w.environment = :environment AND w.status = :enabled', {
          merchantId: scope.merchantId,
          environment: scope.environment,
          enabled: 'enabled',
        }),
      )
      .getCount();
    if (count >= MAX_ENDPOINTS) {
      throw new ApiError('endpoint_limit_reached', `At most ${MAX_ENDPOINTS} enabled webhook endpoints per environment; delete or disable one first.`);
    }
  }

  /**
   * Any of url, enabled_events, status. A new url's host is checked like the create's
   * (resolved outside the transaction). Every update takes the scope's lock row, as creates
   * and deletes do, so a re-enable counts the cap one at a time with them.
   */
  update(ctx: RequestContext, id: string, input: UpdateEndpointInput): Step<WebhookEndpointWire> {
    return external(
      async () => (input.url === undefined ? null : this.precheckHost(input.url)),
      async (em, refusal) => {
        if (refusal) throw refusal;
        return this.applyUpdate(em, ctx, id, input);
      },
    );
  }

  private async applyUpdate(em: EntityManager, ctx: RequestContext, id: string, input: UpdateEndpointInput): Promise<Done<WebhookEndpointWire>> {
    await this.lockScope(em, ctx);
    const e = await this.findEndpoint(em, ctx, id);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    const change: Partial<WebhookEndpoint> = { updatedAt: now };
    if (input.url !== undefined) change.url = input.url;
    if (input.enabled_events !== undefined) change.enabledEvents = input.enabled_events;
    if (input.status === 'enabled' && e.status !== 'enabled') {
      await this.checkRoomForOneMore(em, ctx);
      Object.assign(change, { status: 'enabled', disabledReason: null });
    } else if (input.status === 'disabled' && e.status !== 'disabled') {
      Object.assign(change, { status: 'disabled', disabledReason: 'Disabled by an update.' });
      await this.cancelPending(em, e.id, now, 'endpoint disabled');
    }
    await em.update(WebhookEndpoint, { id: e.id }, change);
    return { outcome: 'done', value: endpointToWire(Object.assign(e, change)) };
  }

  /**
   * A new secret, shown once. The replaced one stays (sealed) for SECRET_OVERLAP_MS and
   * deliveries carry its signature too; a rotation within that time drops the older one.
   * The endpoint row is taken first, so concurrent rotations replace one another in turn.
   */
  async rotateSecret(em: EntityManager, ctx: RequestContext, id: string): Promise<Done<WebhookEndpointWire>> {
    const e = await this.findEndpoint(em, ctx, id, true);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    const secret = newSecret();
    const change: Partial<WebhookEndpoint> = {
      secretEncrypted: this.deps.cipher.encrypt(secret),
      previousSecretEncrypted: e.secretEncrypted,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
      updatedAt: now,
    };
    await em.update(WebhookEndpoint, { id: e.id }, change);
    return { outcome: 'done', value: { ...endpointToWire(Object.assign(e, change)), secret } };
  }

  /**
   * One new delivery of an event to an endpoint, both of this scope: one attempt (not
   * retried), with the event id as webhook-id like every delivery. Allowed to a disabled
   * endpoint and to one whose enabled_events do not match (docs/decisions/0029-webhook-endpoint-management.md).
   */
  async resend(em: EntityManager, ctx: RequestContext, eventId: string, endpointId: string): Promise<Done<WebhookDeliveryWire>> {
    const event = isId('event', eventId) ? await em.findOneBy(EventRecord, { id: eventId, merchantId: ctx.merchantId, environment: ctx.environment }) : null;
    if (!event) throw ApiError.notFound('event');
    const e = await this.findEndpoint(em, ctx, endpointId);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    const deliveryId = newId('webhookDelivery', now.getTime());
    const d = Object.assign(new WebhookDelivery(), {
      id: deliveryId,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      endpointId: e.id,
      eventId: event.id,
      eventType: event.type,
      status: 'pending' as const,
      attemptCount: 0,
      resendKey: deliveryId,
      nextAttemptAt: now,
      leaseUntil: null,
      lastStatusCode: null,
      lastError: null,
      deliveredAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await em.insert(WebhookDelivery, d);
    return { outcome: 'accepted', value: deliveryToWire(d) };
  }

  private async cancelPending(em: EntityManager, endpointId: string, now: Date, reason: string): Promise<void> {
    await em
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({ status: 'cancelled', updatedAt: now, lastError: reason })
      .where('endpoint_id = :id AND status = :pending', { id: endpointId, pending: 'pending' })
      .execute();
  }

  async remove(em: EntityManager, ctx: RequestContext, id: string): Promise<Done<WebhookEndpointDeleted>> {
    await this.lockScope(em, ctx);
    const e = await this.findEndpoint(em, ctx, id);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    await em.update(WebhookEndpoint, { id: e.id }, { status: 'deleted', updatedAt: now });
    await this.cancelPending(em, e.id, now, 'endpoint deleted');
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
    const bumped = await em
      .createQueryBuilder()
      .update(WebhookEndpointLock)
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
      listRows(
        em,
        applyList(em.createQueryBuilder(WebhookEndpoint, 'w'), 'w', scope, params).andWhere('w.status <> :deleted', { deleted: 'deleted' }),
        'w',
        params,
        listIndexesOf('webhook_endpoints', false),
      ),
    );
    return toPage(rows, params, ENDPOINT_LIST.resource, scope, endpointToWire);
  }

  /**
   * Attempt-list query; its cursors are bound to the endpoint (a cursor of another endpoint
   * is a 400). One spec and schema for every endpoint: only the cursor is decoded per endpoint.
   */
  parseAttemptList(scope: Scope, endpointId: string, query: Record<string, unknown>): ListParams {
    const { cursor, ...rest } = check(listQuerySchema(ATTEMPT_LIST), query, 'query') as { cursor?: string } & Record<string, unknown>;
    const params = parseListQuery(rest, ATTEMPT_LIST, scope);
    if (cursor !== undefined) params.after = decodeCursor(attemptCursorResource(endpointId), scope, String(cursor));
    return params;
  }

  /** Attempts to one endpoint of this scope, newest first. */
  async listAttempts(scope: Scope, endpointId: string, params: ListParams): Promise<Page<WebhookAttemptWire>> {
    await this.get(scope, endpointId);
    const rows = await this.deps.db.read((em) =>
      listRows(
        em,
        applyList(em.createQueryBuilder(WebhookAttempt, 'a'), 'a', scope, params).andWhere('a.endpoint_id = :endpointId', { endpointId }),
        'a',
        params,
        // (merchant_id, environment, endpoint_id, created_at, id)
        { list: 'ix_webhook_attempts_endpoint' },
      ),
    );
    return toPage(rows, params, attemptCursorResource(endpointId), scope, attemptToWire);
  }

  private async findEndpoint(em: EntityManager, scope: Scope, id: string, lock = false): Promise<WebhookEndpoint | null> {
    if (!isId('webhookEndpoint', id)) return null;
    const qb = em
      .createQueryBuilder(WebhookEndpoint, 'w')
      .where('w.id = :id AND w.merchant_id = :merchantId AND w.environment = :environment AND w.status <> :deleted', {
        id,
        merchantId: scope.merchantId,
        environment: scope.environment,
        deleted: 'deleted',
      });
    return (lock ? this.deps.db.forUpdate(qb) : qb).getOne();
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
