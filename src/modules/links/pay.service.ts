/**
 * A payment link, the payer's side: the page's view of the link behind a token, and the
 * payer's choice, which creates a hosted payment intent through the same service as
 * `POST /v1/payment_intents` and continues on the hosted checkout.
 *
 * One visit makes at most one payment intent: the page carries a visit token (also kept in a
 * cookie, so Back and Reload bring the same one), and the intent's merchant_reference is
 * `<link id>/<visit>`. A second submit of the visit finds that intent and goes back to it.
 */
import type { Db } from '../../db/db';
import { lockedCount } from '../../db/locking-read';
import { ApiError } from '../../domain/errors';
import { randomToken } from '../../domain/ids';
import { runPhases } from '../../ops/phases';
import { exponentOf, formatForDisplay } from '../../domain/currency';
import { choiceToWire, type PaymentMethodOptionWire } from '../methods/method.wire';
import { PaymentIntent } from '../payments/payment.entity';
import type { PaymentLifecycle } from '../payments/payment-lifecycle.service';
import type { PaymentService } from '../payments/payment.service';
import type { PaymentLink } from './link.entity';
import type { LinkService } from './link.service';
import { closedReason } from './link.wire';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const VISIT = /^[A-Za-z0-9_-]{22}$/;
const OPEN = ['requires_action', 'processing'];

export interface PayView {
  link: PaymentLink;
  merchantName: string;
  choices: PaymentMethodOptionWire[];
  /** The page's own address (/pay/<token>). */
  action: string;
  visit: string;
}

export type PayOutcome =
  | { kind: 'not_found' }
  | { kind: 'gone'; reason: 'inactive' | 'expired' | 'completed'; merchantName: string }
  | { kind: 'busy'; merchantName: string }
  | { kind: 'form'; view: PayView; status: 200 | 400 | 409 | 422; error?: string; amount?: string; option?: string }
  | { kind: 'redirect'; location: string };

export interface PayForm {
  visit?: string;
  option?: string;
  amount?: string;
}

export interface PayServiceDeps {
  db: Db;
  links: LinkService;
  payments: PaymentService;
  lifecycle: PaymentLifecycle;
  baseUrl: () => string;
}

/** "1,250.50" in the currency's major unit -> minor units, or null when it is not an amount. */
export function minorOf(text: string, currency: string): bigint | null {
  const exp = exponentOf(currency);
  const t = text.replace(/[\s,]/g, '');
  const m = (exp > 0 ? new RegExp(`^(\\d{1,24})(?:\\.(\\d{1,${exp}}))?$`) : /^(\d{1,24})()$/).exec(t);
  if (!m) return null;
  return BigInt(m[1] + (m[2] ?? '').padEnd(exp, '0'));
}

export class PayService {
  constructor(private readonly deps: PayServiceDeps) {}

  /** Whether the page's cookie is `Secure`: the page is served over https (PUBLIC_BASE_URL says so). */
  secureCookies(): boolean {
    return this.deps.baseUrl().startsWith('https:');
  }

  /** The page for `token`, with the visit to carry (the cookie's, or a new one). */
  async view(token: string, visit?: string, now = new Date()): Promise<PayOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    return this.deps.db.read(async (em) => {
      const link = await this.deps.links.byToken(em, token);
      if (!link) return { kind: 'not_found' };
      const merchantName = await this.deps.lifecycle.merchantName(em, link.merchantId);
      const reason = closedReason(link, now);
      if (reason) return { kind: 'gone', reason, merchantName };
      const choices = (await this.deps.links.choices(em, link, link.amount ?? undefined)).map(choiceToWire);
      const fresh = visit !== undefined && VISIT.test(visit) ? visit : randomToken(16);
      return { kind: 'form', status: 200, view: { link, merchantName, choices, action: `/pay/${token}`, visit: fresh } };
    });
  }

  /** The payer's choice: a hosted payment intent for this visit (made once), and the checkout address to continue at. */
  async start(token: string, form: PayForm, now = new Date()): Promise<PayOutcome> {
    const shown = await this.view(token, form.visit, now);
    if (shown.kind !== 'form') return shown;
    const { view } = shown;
    const { link } = view;
    const again = (status: 400 | 409 | 422, error: string, fresh = false): PayOutcome => ({
      kind: 'form',
      status,
      error,
      amount: form.amount,
      option: form.option,
      view: fresh ? { ...view, visit: randomToken(16) } : view,
    });
    if (form.visit === undefined || !VISIT.test(form.visit)) return again(400, 'This page has expired. Please choose again.');
    let amount = link.amount;
    if (amount === null) {
      const entered = form.amount === undefined ? null : minorOf(form.amount, link.currency);
      const [min, max] = [link.minAmount ?? 0n, link.maxAmount ?? 0n];
      if (entered === null || entered < min || entered > max) {
        return again(400, `Enter an amount between ${formatForDisplay(min, link.currency)} and ${formatForDisplay(max, link.currency)}.`);
      }
      amount = entered;
    }
    const fixedAmount = amount;
    const choices = await this.deps.db.read((em) => this.deps.links.choices(em, link, fixedAmount));
    const choice = choices.find((c) => (c.bank ? `${c.method}:${c.bank}` : c.method) === form.option);
    if (!choice)
      return again(
        form.option ? 422 : 400,
        form.option ? 'That payment method is not available for this amount. Choose another one.' : 'Choose a payment method.',
      );

    const visit = form.visit;
    const done = await runPhases<PayOutcome>(this.deps.db, async (tx) => {
      const locked = await this.deps.links.byToken(tx, token, true);
      if (!locked) return { outcome: 'done', value: { kind: 'not_found' } };
      const reason = closedReason(locked, now);
      if (reason) return { outcome: 'done', value: { kind: 'gone', reason, merchantName: view.merchantName } };
      const actor = { merchantId: locked.merchantId, environment: locked.environment, requestId: null };
      const reference = `${locked.id}/${visit}`;
      const { lifecycle } = this.deps;
      const existing = await lifecycle.store.findByReference(tx, actor, reference);
      if (existing) {
        if (existing.amount !== fixedAmount || !OPEN.concat('succeeded').includes(existing.status)) {
          const was = formatForDisplay(existing.amount, existing.currency);
          return {
            outcome: 'done',
            value: again(
              409,
              `This visit already started a payment of ${was}, which is ${existing.status.replace('_', ' ')}. Choose again to start a new one.`,
              true,
            ),
          };
        }
        return { outcome: 'done', value: { kind: 'redirect', location: this.continueAt(lifecycle.checkoutUrlOf(existing), form.option) } };
      }
      if (locked.completionLimit !== null) {
        const open = await lockedCount(
          tx,
          tx.createQueryBuilder(PaymentIntent, 'p').where('p.payment_link_id = :id AND p.status IN (:...open)', { id: locked.id, open: OPEN }),
        );
        if (locked.completedCount + open >= locked.completionLimit) return { outcome: 'done', value: { kind: 'busy', merchantName: view.merchantName } };
      }
      const step = await this.deps.payments.create(
        tx,
        actor,
        {
          amount: fixedAmount,
          currency: locked.currency,
          country: locked.country,
          merchant_reference: reference,
          checkout_mode: 'hosted',
          customer: {},
          payment_method: null,
          payment_method_options: {},
          return_url: locked.returnUrl,
          metadata: locked.metadata ?? {},
          device_fingerprint: null,
          external_reference: null,
          payment_link: locked.id,
        },
        this.deps.baseUrl(),
      );
      if (!('value' in step)) throw new Error('a hosted payment intent is created in one phase');
      const next = step.value.next_action;
      if (next?.type !== 'redirect_to_url') throw new Error('a hosted payment intent starts with redirect_to_url');
      return { outcome: 'done', value: { kind: 'redirect', location: this.continueAt(next.url, form.option) }, end: step.end };
    }).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'payment_method_unavailable')
        return { value: again(422, 'That payment method is not available right now. Choose another one.') };
      throw err;
    });
    return done.value;
  }

  private continueAt(checkoutUrl: string, option: string | undefined): string {
    return option ? `${checkoutUrl}?option=${encodeURIComponent(option)}` : checkoutUrl;
  }
}
