/**
 * Webhook endpoints, the merchant-facing API: create, update, rotate the secret, delete,
 * get, list endpoints, list the delivery attempts to one endpoint, and resend one event to
 * one endpoint. Deleting or disabling an endpoint cancels its pending deliveries.
 *
 * The mutations are operations (webhook.operations.ts) that the pipeline runs; the row
 * work they share (lookups, the scope's lock row, the cap) is in webhook-endpoint.store.ts.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import type { FieldCipher } from '../../domain/crypto';
import { isId, newId } from '../../domain/ids';
import { ListParams, Page, parseListQuery, toPage } from '../../domain/listing';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import type { RequestContext } from '../auth/request-context';
import { Done, external, TxStep as Step } from '../../ops/operation';
import { EventRecord } from '../events/event.entity';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity';
import { cancelPending, checkRoomForOneMore, findEndpoint, lockScope, precheckHost } from './webhook-endpoint.store';
import { ATTEMPT_LIST, ENDPOINT_LIST, SECRET_OVERLAP_MS } from './webhook.schemas';
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
      () => precheckHost(input.url, this.deps.allowLoopback),
      async (em, refusal) => {
        if (refusal) throw refusal;
        return this.insert(em, ctx, input);
      },
    );
  }

  private async insert(em: EntityManager, ctx: RequestContext, input: CreateEndpointInput): Promise<Done<WebhookEndpointWire>> {
    await lockScope(this.deps.db, em, ctx);
    await checkRoomForOneMore(em, ctx);
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
   * Any of url, enabled_events, status. A new url's host is checked like the create's
   * (resolved outside the transaction). Every update takes the scope's lock row, as creates
   * and deletes do, so a re-enable counts the cap one at a time with them.
   */
  update(ctx: RequestContext, id: string, input: UpdateEndpointInput): Step<WebhookEndpointWire> {
    return external(
      async () => (input.url === undefined ? null : precheckHost(input.url, this.deps.allowLoopback)),
      async (em, refusal) => {
        if (refusal) throw refusal;
        return this.applyUpdate(em, ctx, id, input);
      },
    );
  }

  private async applyUpdate(em: EntityManager, ctx: RequestContext, id: string, input: UpdateEndpointInput): Promise<Done<WebhookEndpointWire>> {
    await lockScope(this.deps.db, em, ctx);
    const e = await findEndpoint(em, ctx, id);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    const change: Partial<WebhookEndpoint> = { updatedAt: now };
    if (input.url !== undefined) change.url = input.url;
    if (input.enabled_events !== undefined) change.enabledEvents = input.enabled_events;
    if (input.status === 'enabled' && e.status !== 'enabled') {
      await checkRoomForOneMore(em, ctx);
      Object.assign(change, { status: 'enabled', disabledReason: null });
    } else if (input.status === 'disabled' && e.status !== 'disabled') {
      Object.assign(change, { status: 'disabled', disabledReason: 'Disabled by an update.' });
      await cancelPending(em, e.id, now, 'endpoint disabled');
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
    const e = await findEndpoint(em, ctx, id, true);
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
    const e = await findEndpoint(em, ctx, endpointId);
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

  async remove(em: EntityManager, ctx: RequestContext, id: string): Promise<Done<WebhookEndpointDeleted>> {
    await lockScope(this.deps.db, em, ctx);
    const e = await findEndpoint(em, ctx, id);
    if (!e) throw ApiError.notFound('webhook endpoint');
    const now = new Date();
    await em.update(WebhookEndpoint, { id: e.id }, { status: 'deleted', updatedAt: now });
    await cancelPending(em, e.id, now, 'endpoint deleted');
    return { outcome: 'done', value: { object: 'webhook_endpoint', id: e.id, deleted: true } };
  }

  // ---- reads ----

  async get(scope: Scope, id: string): Promise<WebhookEndpointWire> {
    const e = await this.deps.db.read((em) => findEndpoint(em, scope, id));
    if (!e) throw ApiError.notFound('webhook endpoint');
    return endpointToWire(e);
  }

  /** Several endpoints of `scope` by id (deleted ones left out), in one statement: a DataLoader's batch. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, WebhookEndpointWire>> {
    const wellFormed = ids.filter((id) => isId('webhookEndpoint', id));
    if (wellFormed.length === 0) return new Map();
    const rows = await this.deps.db.read((em) =>
      em
        .createQueryBuilder(WebhookEndpoint, 'w')
        .where('w.id IN (:...ids) AND w.merchant_id = :merchantId AND w.environment = :environment AND w.status <> :deleted', {
          ids: wellFormed,
          merchantId: scope.merchantId,
          environment: scope.environment,
          deleted: 'deleted',
        })
        .getMany(),
    );
    return new Map(rows.map((e) => [e.id, endpointToWire(e)]));
  }

  /** Several deliveries of `scope` by id (a DataLoader's batch); unknown ids are left out. */
  async getDeliveries(scope: Scope, ids: readonly string[]): Promise<Map<string, WebhookDeliveryWire>> {
    const rows = await findManyInScope(this.deps.db, WebhookDelivery, 'webhookDelivery', scope, ids);
    return new Map([...rows].map(([id, row]) => [id, deliveryToWire(row)]));
  }

  /** Several delivery attempts of `scope` by id (a DataLoader's batch); unknown ids are left out. */
  async getAttempts(scope: Scope, ids: readonly string[]): Promise<Map<string, WebhookAttemptWire>> {
    const rows = await findManyInScope(this.deps.db, WebhookAttempt, 'webhookAttempt', scope, ids);
    return new Map([...rows].map(([id, row]) => [id, attemptToWire(row)]));
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
    return parseListQuery(query, ATTEMPT_LIST, scope, attemptCursorResource(endpointId));
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
}
