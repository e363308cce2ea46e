/**
 * Webhook delivery (Standard Webhooks): claim and retry of delivery attempts. The HTTP call
 * itself is WebhookSender's.
 *
 * Fan-out (src/modules/webhook-fan-out, called by EventService) writes one delivery row per
 * matching enabled endpoint with the event row, in the event's transaction: a committed event
 * always has its deliveries and a rolled-back one never does; a process killed right after the
 * commit leaves `pending` rows that any process delivers after restart.
 *
 * Delivery: `deliverDue` (a scheduler job, in every service process by default) claims an
 * attempt with one conditional UPDATE (`attempt_count = n` and due/expired lease ->
 * `sending`, `attempt_count = n + 1`, lease), so two processes never send the same attempt.
 * The HTTP call runs outside any transaction; its outcome is recorded (attempt row +
 * delivery update, guarded by the claimed attempt number) in one transaction. A process that
 * dies mid-attempt leaves a lease that expires, and the next attempt follows (at least once).
 * A 2xx succeeds; a 410 Gone fails the delivery, disables the endpoint and cancels its other
 * pending deliveries; anything else is retried after `retryScheduleMs[n - 1]` until the
 * schedule runs out. A resend (POST /v1/events/:id/resend) is a delivery row with a `resend_key`:
 * one attempt, never retried, also made to a disabled endpoint.
 */
import type { EntityManager } from 'typeorm';
import { Webhook } from 'standardwebhooks';
import type { Logger } from 'pino';
import type { FieldCipher } from '../../domain/crypto';
import { newId } from '../../domain/ids';
import { isDatabaseUnavailable, type Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import { EventRecord } from '../events/event.entity';
import { EventService } from '../events/event.service';
import type { SendResult, WebhookSender } from './webhook-sender';
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './webhook.entity';

const MAX_CONCURRENT = 16;

export interface WebhookDeliveryServiceDeps {
  db: Db;
  cipher: FieldCipher;
  log: Logger;
  sender: WebhookSender;
  retryScheduleMs: number[];
  /** The lease of a claimed attempt lasts the sender's timeoutMs + this; default 30 s. */
  leaseMarginMs?: number;
}

export class WebhookDeliveryService {
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookDeliveryServiceDeps) {}

  // ---- claim ----

  /** Scheduler job: claims due attempts and starts them; returns how many it claimed. */
  async deliverDue(now = Date.now()): Promise<number> {
    const room = MAX_CONCURRENT - this.inflight.size;
    if (room <= 0) return 0;
    // Built once per page size, `now` bound: every scheduler pass asks, idle or not.
    const due = await this.deps.db.read((em) =>
      compiledSelect(em, `webhookDelivery.due:${room}`, { pending: 'pending', sending: 'sending', now }, (m) =>
        m
          .createQueryBuilder(WebhookDelivery, 'd')
          .select(['d.id', 'd.attemptCount'])
          .where('(d.status = :pending AND d.next_attempt_at <= :now) OR (d.status = :sending AND d.lease_until <= :now)')
          .orderBy('d.next_attempt_at', 'ASC')
          .limit(room),
      ),
    );
    let claimed = 0;
    for (const d of due) {
      const attempt = d.attemptCount + 1;
      if (!(await this.claim(d.id, d.attemptCount, now))) continue; // another process claimed it
      claimed++;
      const run: Promise<void> = this.attempt(d.id, attempt)
        .catch((err) => {
          // With the database out the attempt's lease runs out and the attempt is repeated (at least once).
          if (isDatabaseUnavailable(err)) this.deps.log.warn({ delivery: d.id }, 'webhook attempt not recorded: database unavailable');
          else this.deps.log.error({ err, delivery: d.id }, 'webhook attempt failed unexpectedly');
        })
        .finally(() => this.inflight.delete(run));
      this.inflight.add(run);
    }
    return claimed;
  }

  /** Waits for attempts in flight (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /**
   * Takes attempt `attemptCount + 1` of a due delivery (pending and due, or sending with an
   * expired lease) with one conditional UPDATE; false when another process took it first.
   */
  private async claim(id: string, attemptCount: number, now: number): Promise<boolean> {
    const lease = now + this.deps.sender.timeoutMs + (this.deps.leaseMarginMs ?? 30_000);
    const result = await this.deps.db.tx((em) =>
      em
        .createQueryBuilder()
        .update(WebhookDelivery)
        .set({ status: 'sending', attemptCount: attemptCount + 1, leaseUntil: new Date(lease), updatedAt: new Date(now) })
        .where('id = :id AND attempt_count = :n AND ((status = :pending AND next_attempt_at <= :now) OR (status = :sending AND lease_until <= :now))', {
          id,
          n: attemptCount,
          pending: 'pending',
          sending: 'sending',
          now,
        })
        .execute(),
    );
    return result.affected === 1;
  }

  // ---- one attempt and its outcome ----

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
    // A resend (one attempt the merchant asked for) also goes to a disabled endpoint; nothing goes to a deleted one.
    const sendable = endpoint && (endpoint.status === 'enabled' || (endpoint.status === 'disabled' && d.resendKey !== ''));
    if (!endpoint || !sendable || !event) {
      await this.deps.db.tx((em) =>
        em
          .createQueryBuilder()
          .update(WebhookDelivery)
          .set({ status: 'cancelled', leaseUntil: null, lastError: `endpoint ${endpoint?.status ?? 'missing'}`, updatedAt: new Date() })
          .where('id = :id AND status = :sending AND attempt_count = :n', { id: d.id, sending: 'sending', n: attemptNumber })
          .execute(),
      );
      return;
    }
    const payload = JSON.stringify(EventService.toWire(event));
    const sentAt = new Date();
    const signature = this.signatures(endpoint, event.id, sentAt, payload);
    const result = await this.deps.sender.send(endpoint.url, payload, {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    });
    await this.record(d, endpoint, attemptNumber, result);
  }

  /**
   * The webhook-signature header: `v1,<sig>` by the current secret, and during the 24 hours
   * after a rotation a second entry, space-separated, by the replaced one (Standard Webhooks
   * receivers accept a header when any entry verifies).
   */
  private signatures(endpoint: WebhookEndpoint, eventId: string, sentAt: Date, payload: string): string {
    const sign = (sealed: string) => new Webhook(this.deps.cipher.decrypt(sealed).slice('whsec_'.length)).sign(eventId, sentAt, payload);
    const current = sign(endpoint.secretEncrypted);
    const overlap = endpoint.previousSecretEncrypted !== null && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > sentAt;
    return overlap ? `${current} ${sign(endpoint.previousSecretEncrypted!)}` : current;
  }

  private async record(d: WebhookDelivery, endpoint: WebhookEndpoint, n: number, r: SendResult): Promise<void> {
    const now = new Date();
    const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
    const gone = r.statusCode === 410;
    const delay = this.deps.retryScheduleMs[n - 1];
    const next: Partial<WebhookDelivery> = ok
      ? { status: 'succeeded', deliveredAt: now, nextAttemptAt: null }
      : gone || delay === undefined || d.resendKey !== '' // a resend is one attempt
        ? { status: 'failed', nextAttemptAt: null }
        : { status: 'pending', nextAttemptAt: new Date(now.getTime() + delay) };
    await this.deps.db.tx(async (em) => {
      const updated = await em
        .createQueryBuilder()
        .update(WebhookDelivery)
        .set({ ...next, leaseUntil: null, lastStatusCode: r.statusCode, lastError: r.error, updatedAt: now })
        .where('id = :id AND status = :sending AND attempt_count = :n', { id: d.id, sending: 'sending', n })
        .execute();
      // Lost the lease (this attempt outlived it and another process took over): still record what happened.
      await em.insert(
        WebhookAttempt,
        Object.assign(new WebhookAttempt(), {
          id: newId('webhookAttempt', now.getTime()),
          merchantId: d.merchantId,
          environment: d.environment,
          deliveryId: d.id,
          endpointId: d.endpointId,
          eventId: d.eventId,
          attemptNumber: n,
          statusCode: r.statusCode,
          error: r.error ?? (updated.affected === 1 ? null : 'lease expired before the outcome was recorded'),
          durationMs: r.durationMs,
          createdAt: now,
        }),
      );
      if (gone && updated.affected === 1) await this.disableGone(em, endpoint.id, now);
    });
  }

  /** A 410 Gone: the endpoint is disabled and its other pending deliveries are cancelled. */
  private async disableGone(em: EntityManager, endpointId: string, now: Date): Promise<void> {
    await em
      .createQueryBuilder()
      .update(WebhookEndpoint)
      .set({ status: 'disabled', disabledReason: 'The receiver answered 410 Gone.', updatedAt: now })
      .where('id = :id AND status = :enabled', { id: endpointId, enabled: 'enabled' })
      .execute();
    await em
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({ status: 'cancelled', lastError: 'endpoint disabled (410 Gone)', updatedAt: now })
      .where('endpoint_id = :id AND status = :pending', { id: endpointId, pending: 'pending' })
      .execute();
  }
}
