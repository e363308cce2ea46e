/**
 * Payment links, the merchant's side: create, update (deactivate), get, list and the QR code.
 * The payer's side (the /pay page) is pay.service.ts; the count of a link's completions, raised
 * in the transaction that makes one of its payments succeed, is src/modules/link-progress.
 *
 * A link's row is the lock its writers share: an update, a payer starting a payment
 * (pay.service.ts) and a completion each take it, so the count, the limit and the active
 * flag are read and written one writer at a time.
 */
import QRCode from 'qrcode';
import type { EntityManager } from 'typeorm';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import { applyList, listIndexesOf, listRows } from '../../db/list-query';
import { lockedOne } from '../../db/locking-read';
import type { Written } from '../../db/batch';
import type { Tx } from '../../db/tx';
import { ApiError } from '../../domain/errors';
import { newId, randomToken } from '../../domain/ids';
import { type ListParams, type Page, parseListQuery, toPage } from '../../domain/listing';
import type { Actor, Scope } from '../../domain/scope';
import { done, type Done } from '../../ops/operation';
import type { EventService } from '../events/event.service';
import type { MethodChoice, MethodRouting } from '../methods/method-routing.service';
import { PaymentLink } from './link.entity';
import { findLink } from './link.reads';
import { PAYMENT_LINK_LIST } from './link.schemas';
import { type CreateLinkInput, linkToWire, type PaymentLinkWire, type UpdateLinkInput } from './link.wire';

export interface LinkServiceDeps {
  db: Db;
  events: EventService;
  methods: MethodRouting;
  /** PUBLIC_BASE_URL. */
  baseUrl: () => string;
}

export class LinkService {
  constructor(private readonly deps: LinkServiceDeps) {}

  toWire(link: PaymentLink): PaymentLinkWire {
    return linkToWire(link, this.deps.baseUrl());
  }

  /** The methods a payer of `link` may choose (for `amount`, or any amount when it is not known yet). */
  async choices(em: EntityManager, link: PaymentLink, amount?: bigint): Promise<readonly MethodChoice[]> {
    const scope = { merchantId: link.merchantId, environment: link.environment };
    const eligible = await this.deps.methods.eligible(em, scope, { amount, currency: link.currency, country: link.country, checkoutMode: 'hosted' });
    return eligible.filter((c) => link.allowedMethods === null || link.allowedMethods.includes(c.method));
  }

  async create(tx: Tx, actor: Actor, input: CreateLinkInput): Promise<Done<PaymentLinkWire>> {
    const now = new Date();
    const link = Object.assign(new PaymentLink(), {
      id: newId('paymentLink', now.getTime()),
      merchantId: actor.merchantId,
      environment: actor.environment,
      token: randomToken(32),
      active: true,
      amount: input.amount,
      minAmount: input.chooses?.minimum ?? null,
      maxAmount: input.chooses?.maximum ?? null,
      currency: input.currency,
      country: input.country,
      description: input.description,
      allowedMethods: input.allowedMethods,
      reusable: input.reusable,
      completionLimit: input.completionLimit,
      completedCount: 0,
      expiresAt: input.expiresAt,
      returnUrl: input.returnUrl,
      metadata: input.metadata,
      createdAt: now,
      updatedAt: now,
    });
    const offered = input.chooses
      ? [...(await this.choices(tx, link, input.chooses.minimum)), ...(await this.choices(tx, link, input.chooses.maximum))]
      : await this.choices(tx, link, link.amount ?? undefined);
    if (offered.length === 0) {
      throw new ApiError(
        'payment_method_unavailable',
        `No ${link.allowedMethods ? 'allowed ' : ''}payment method is available for this amount in ${link.currency} in ${link.country}, so the link would offer the payer nothing.`,
      );
    }
    await tx.insert(PaymentLink, link);
    return done('created', await this.record(tx, actor, link, 'created', now));
  }

  async update(tx: Tx, actor: Actor, id: string, input: UpdateLinkInput): Promise<Done<PaymentLinkWire>> {
    const link = await this.lock(tx, actor, id);
    if (input.completionLimit !== undefined && input.completionLimit !== link.completionLimit) {
      if (!link.reusable) throw ApiError.validation('completion_limit', 'A single-use link takes one payment: its completion_limit stays 1.');
      if (input.completionLimit !== null && input.completionLimit < link.completedCount) {
        throw ApiError.validation('completion_limit', `completion_limit must not be below completed_count (${link.completedCount}).`);
      }
    }
    const now = new Date();
    const wasActive = link.active;
    const change: Partial<PaymentLink> = { updatedAt: now };
    if (input.description !== undefined) change.description = input.description;
    if (input.active !== undefined) change.active = input.active;
    if (input.completionLimit !== undefined) change.completionLimit = input.completionLimit;
    if (input.expiresAt !== undefined) change.expiresAt = input.expiresAt;
    await tx.update(PaymentLink, { id: link.id }, change);
    Object.assign(link, change);
    const { value, end } = await this.record(tx, actor, link, 'updated', now);
    if (wasActive && !link.active) end.push(...(await this.record(tx, actor, link, 'deactivated', now)).end);
    return { outcome: 'done', value, end };
  }

  /** The link's wire record as it is now, and its `payment_link.<suffix>` event's write for the end of `tx`. */
  private async record(tx: Tx, actor: Actor, link: PaymentLink, suffix: string, now: Date): Promise<Written<PaymentLinkWire>> {
    const wire = this.toWire(link);
    return { value: wire, end: [await this.deps.events.prepare(tx, actor, suffix, wire, actor.requestId, now)] };
  }

  // ---- reads ----

  find(em: EntityManager, scope: Scope, id: string, lock = false): Promise<PaymentLink | null> {
    return findLink(em, scope, id, lock);
  }

  async lock(em: EntityManager, scope: Scope, id: string): Promise<PaymentLink> {
    const link = await this.find(em, scope, id, true);
    if (!link) throw ApiError.notFound('payment link');
    return link;
  }

  /** The link behind a public token (any merchant: the token is the credential), or null. */
  async byToken(em: EntityManager, token: string, lock = false): Promise<PaymentLink | null> {
    const qb = em.createQueryBuilder(PaymentLink, 'l').where('l.token = :token', { token });
    return lock ? lockedOne(em, qb) : qb.getOne();
  }

  async get(scope: Scope, id: string): Promise<PaymentLinkWire> {
    const link = await this.deps.db.read((em) => this.find(em, scope, id));
    if (!link) throw ApiError.notFound('payment link');
    return this.toWire(link);
  }

  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, PaymentLinkWire>> {
    const rows = await findManyInScope(this.deps.db, PaymentLink, 'paymentLink', scope, ids);
    return new Map([...rows].map(([id, r]) => [id, this.toWire(r)]));
  }

  parseList(scope: Scope, query: Record<string, unknown>): ListParams {
    return parseListQuery(query, PAYMENT_LINK_LIST, scope);
  }

  async list(scope: Scope, params: ListParams): Promise<Page<PaymentLinkWire>> {
    const rows = await this.deps.db.read((em) =>
      listRows(em, applyList(em.createQueryBuilder(PaymentLink, 'l'), 'l', scope, params), 'l', params, listIndexesOf('payment_links', false)),
    );
    return toPage(rows, params, PAYMENT_LINK_LIST.resource, scope, (r) => this.toWire(r));
  }

  /** The link's url as an SVG QR code (medium error correction, a quiet zone of 4 modules). */
  async qrSvg(scope: Scope, id: string): Promise<string> {
    const { url } = await this.get(scope, id);
    return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  }
}
