/**
 * Webhook endpoints and delivery (Standard Webhooks).
 *
 * Fan-out: `fanOut` runs inside every event's transaction (EventService.afterRecord) and
 * writes one delivery row per matching enabled endpoint, so a committed event always has
 * its deliveries and a rolled-back one never does; a process killed right after the commit
 * leaves `pending` rows that any process delivers after restart.
 *
 * Delivery: `deliverDue` (a scheduler job, in every service process by default) claims an
 * attempt with one conditional UPDATE (`attempt_count = n` and due/expired lease ->
 * `sending`, `attempt_count = n + 1`, lease), so two processes never send the same attempt.
 * The HTTP call runs outside any transaction; its outcome is recorded (attempt row +
 * delivery update, guarded by the claimed attempt number) in one transaction. A process that
 * dies mid-attempt leaves a lease that expires, and the next attempt follows (at least once).
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Webhook } from 'standardwebhooks';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import type { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { applyList, ListParams, Page, parseListQuery, toPage } from '../../domain/listing';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import type { RequestContext } from '../auth/request-context';
import { EventRecord } from '../events/event.entity';
import { EventService, typeMatches } from '../events/event.service';
import type { ApiResult, IdempotencyService } from '../idempotency/idempotency.service';
import { resolvePublic, SsrfError, UnresolvedHostError } from './ssrf';
import { SendResult, WebhookSender } from './webhook-sender';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity';
import {
  ATTEMPT_LIST, attemptCursorResource, attemptToWire, ENDPOINT_LIST, endpointToWire, parseCreateEndpoint, WebhookAttemptWire, WebhookEndpointWire,
} from './webhook.wire';

const MAX_ENDPOINTS = 16;
const MAX_CONCURRENT = 16;

export interface WebhookServiceDeps {
  db: Db;
  idempotency: IdempotencyService;
  events: EventService;
  cipher: FieldCipher;
  log: Logger;
  allowLoopback: boolean;
  retryScheduleMs: number[];
  timeoutMs: number;
  /** The lease of a claimed attempt lasts timeoutMs + this; default 30 s. */
  leaseMarginMs?: number;
}

export class WebhookService {
  private readonly inflight = new Set<Promise<void>>();
  private readonly sender: WebhookSender;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.sender = new WebhookSender({ allowLoopback: deps.allowLoopback, timeoutMs: deps.timeoutMs });
    deps.events.afterRecord.push((em, event) => this.fanOut(em, event));
  }

  // ---- endpoints ----

  async create(ctx: RequestContext, raw: unknown, idempotencyKey?: string): Promise<ApiResult> {
    // The host is resolved before the transaction opens (a slow DNS answer must not hold a
    // transaction, or on SQLite the single write queue); a refusal is raised inside it so that
    // it is stored against the Idempotency-Key like any other 400.
    const refusal = await this.precheckHost(raw);
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'POST /v1/webhook_endpoints', raw, parse: parseCreateEndpoint,
      execute: async (em, input) => {
        if (refusal) throw refusal;
        const count = await em.count(WebhookEndpoint, { where: { merchantId: ctx.merchantId, environment: ctx.environment, status: 'enabled' } });
        if (count >= MAX_ENDPOINTS) throw ApiError.validation('url', `At most ${MAX_ENDPOINTS} enabled webhook endpoints per environment.`);
        const now = new Date();
        const secret = `whsec_${randomBytes(24).toString('base64')}`;
        const e = Object.assign(new WebhookEndpoint(), {
          id: newId('webhookEndpoint', now.getTime()), merchantId: ctx.merchantId, environment: ctx.environment,
          url: input.url, enabledEvents: input.enabled_events, secretEncrypted: this.deps.cipher.encrypt(secret),
          status: 'enabled' as const, disabledReason: null, createdAt: now, updatedAt: now,
        });
        await em.insert(WebhookEndpoint, e);
        return { status: 201, body: { ...endpointToWire(e), secret } };
      },
    });
  }

  remove(ctx: RequestContext, id: string, idempotencyKey?: string): Promise<ApiResult> {
    return this.deps.idempotency.run({
      ctx, key: idempotencyKey, operation: 'DELETE /v1/webhook_endpoints/:id', raw: {}, parse: () => ({ id }),
      execute: async (em) => {
        const e = await this.findEndpoint(em, ctx, id);
        if (!e) throw ApiError.notFound('webhook endpoint');
        const now = new Date();
        await em.update(WebhookEndpoint, { id: e.id }, { status: 'deleted', updatedAt: now });
        await em.createQueryBuilder().update(WebhookDelivery)
          .set({ status: 'cancelled', updatedAt: now, lastError: 'endpoint deleted' })
          .where('endpoint_id = :id AND status = :pending', { id: e.id, pending: 'pending' }).execute();
        return { status: 200, body: { object: 'webhook_endpoint', id: e.id, deleted: true } };
      },
    });
  }

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

  /** Attempt-list query; its cursors are bound to the endpoint (a cursor of another endpoint is a 400). */
  parseAttemptList(scope: Scope, endpointId: string, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, { ...ATTEMPT_LIST, resource: attemptCursorResource(endpointId) }, scope);
  }

  /** Attempts to one endpoint of this scope, newest first. */
  async listAttempts(scope: Scope, endpointId: string, params: ListParams): Promise<Page<WebhookAttemptWire>> {
    await this.get(scope, endpointId);
    const rows = await this.deps.db.read((em) =>
      applyList(em.createQueryBuilder(WebhookAttempt, 'a'), 'a', scope, params).andWhere('a.endpoint_id = :endpointId', { endpointId }).getMany());
    return toPage(rows, params, attemptCursorResource(endpointId), scope, attemptToWire);
  }

  private findEndpoint(em: EntityManager, scope: Scope, id: string): Promise<WebhookEndpoint | null> {
    return em.createQueryBuilder(WebhookEndpoint, 'w')
      .where('w.id = :id AND w.merchant_id = :merchantId AND w.environment = :environment AND w.status <> :deleted', { id, ...scope, deleted: 'deleted' })
      .getOne();
  }

  /** The SSRF refusal for the body's url, or null (also when the body does not parse: `run` reports that). */
  private async precheckHost(raw: unknown): Promise<ApiError | null> {
    let url: URL;
    try {
      url = new URL(parseCreateEndpoint(raw).url);
    } catch {
      return null;
    }
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

  // ---- fan-out (inside the event's transaction) ----

  async fanOut(em: EntityManager, event: EventRecord): Promise<void> {
    const endpoints = await em.find(WebhookEndpoint, { where: { merchantId: event.merchantId, environment: event.environment, status: 'enabled' } });
    for (const e of endpoints) {
      if (!e.enabledEvents.includes('*') && !typeMatches(event.type, e.enabledEvents)) continue;
      await em.insert(WebhookDelivery, Object.assign(new WebhookDelivery(), {
        id: newId('webhookDelivery', event.createdAt.getTime()), merchantId: event.merchantId, environment: event.environment,
        endpointId: e.id, eventId: event.id, eventType: event.type, status: 'pending' as const, attemptCount: 0,
        nextAttemptAt: event.createdAt, leaseUntil: null, lastStatusCode: null, lastError: null, deliveredAt: null,
        createdAt: event.createdAt, updatedAt: event.createdAt,
      }));
    }
  }

  // ---- delivery ----

  /** Scheduler job: claims due attempts and starts them; returns how many it claimed. */
  async deliverDue(now = Date.now()): Promise<number> {
    const room = MAX_CONCURRENT - this.inflight.size;
    if (room <= 0) return 0;
    const due = await this.deps.db.read((em) =>
      em.createQueryBuilder(WebhookDelivery, 'd')
        .select(['d.id', 'd.attemptCount'])
        .where('(d.status = :pending AND d.next_attempt_at <= :now) OR (d.status = :sending AND d.lease_until <= :now)', { pending: 'pending', sending: 'sending', now })
        .orderBy('d.next_attempt_at', 'ASC')
        .limit(room)
        .getMany());
    let claimed = 0;
    for (const d of due) {
      const attempt = d.attemptCount + 1;
      const lease = now + this.deps.timeoutMs + (this.deps.leaseMarginMs ?? 30_000);
      const result = await this.deps.db.tx((em) =>
        em.createQueryBuilder().update(WebhookDelivery)
          .set({ status: 'sending', attemptCount: attempt, leaseUntil: new Date(lease), updatedAt: new Date(now) })
          .where('id = :id AND attempt_count = :n AND ((status = :pending AND next_attempt_at <= :now) OR (status = :sending AND lease_until <= :now))', {
            id: d.id, n: d.attemptCount, pending: 'pending', sending: 'sending', now,
          })
          .execute());
      if (result.affected !== 1) continue; // another process claimed it
      claimed++;
      const run: Promise<void> = this.attempt(d.id, attempt)
        .catch((err) => this.deps.log.error({ err, delivery: d.id }, 'webhook attempt failed unexpectedly'))
        .finally(() => this.inflight.delete(run));
      this.inflight.add(run);
    }
    return claimed;
  }

  /** Waits for attempts in flight (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async attempt(deliveryId: string, attemptNumber: number): Promise<void> {
    const loaded = await this.deps.db.read(async (em) => {
      const d = await em.findOneBy(WebhookDelivery, { id: deliveryId });
      if (!d) return null;
      const [endpoint, event] = await Promise.all([
        em.findOneBy(WebhookEndpoint, { id: d.endpointId }),
        em.findOneBy(EventRecord, { id: d.eventId, merchantId: d.merchantId, environment: d.environment }),
      ]);
      return { d, endpoint, event };
    });
    if (!loaded) return;
    const { d, endpoint, event } = loaded;
    if (!endpoint || endpoint.status !== 'enabled' || !event) {
      await this.deps.db.tx((em) => em.createQueryBuilder().update(WebhookDelivery)
        .set({ status: 'cancelled', leaseUntil: null, lastError: `endpoint ${endpoint?.status ?? 'missing'}`, updatedAt: new Date() })
        .where('id = :id AND status = :sending AND attempt_count = :n', { id: d.id, sending: 'sending', n: attemptNumber }).execute());
      return;
    }
    const payload = JSON.stringify(EventService.toWire(event));
    const secret = this.deps.cipher.decrypt(endpoint.secretEncrypted);
    const sentAt = new Date();
    const signature = new Webhook(secret.slice('whsec_'.length)).sign(event.id, sentAt, payload);
    const result = await this.sender.send(endpoint.url, payload, {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    });
    await this.record(d, endpoint, attemptNumber, result);
  }

  private async record(d: WebhookDelivery, endpoint: WebhookEndpoint, n: number, r: SendResult): Promise<void> {
    const now = new Date();
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const delay = this.deps.retryScheduleMs[n - 1];
    const next: Partial<WebhookDelivery> = ok
      ? { status: 'succeeded', deliveredAt: now, nextAttemptAt: null }
      : gone || delay === undefined
        ? { status: 'failed', nextAttemptAt: null }
        : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay) };
    await this.deps.db.tx(async (em) => {
      const updated = await em.createQueryBuilder().update(WebhookDelivery)
        .set({ ...next, leaseUntil: null, lastStatusCode: r.statusCode, lastError: r.error, updatedAt: now })
        .where('id = :id AND status = :sending AND attempt_count = :n', { id: d.id, sending: 'sending', n })
        .execute();
      // Lost the lease (this attempt outlived it and another process took over): still record what happened.
      await em.insert(WebhookAttempt, Object.assign(new WebhookAttempt(), {
        id: newId('webhookAttempt', now.getTime()), merchantId: d.merchantId, environment: d.environment, deliveryId: d.id,
        endpointId: d.endpointId, eventId: d.eventId, attemptNumber: n, statusCode: r.statusCode,
        error: r.error ?? (updated.affected === 1 ? null : 'lease expired before the outcome was recorded'),
        durationMs: r.durationMs, createdAt: now,
      }));
      if (gone && updated.affected === 1) {
        await em.createQueryBuilder().update(WebhookEndpoint)
          .set({ status: 'disabled', disabledReason: 'The receiver answered 410 Gone.', updatedAt: now })
          .where('id = :id AND status = :enabled', { id: endpoint.id, enabled: 'enabled' }).execute();
        await em.createQueryBuilder().update(WebhookDelivery)
          .set({ status: 'cancelled', lastError: 'endpoint disabled (410 Gone)', updatedAt: now })
          .where('endpoint_id = :id AND status = :pending', { id: endpoint.id, pending: 'pending' }).execute();
      }
    });
  }
}
