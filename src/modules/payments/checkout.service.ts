/**
 * Hosted checkout, the payer's side: the page's view of an intent, the payer's choice of
 * method (with the form's rules), and the simulated bank's approval. The token in the
 * address is the only credential; it names one intent. The routes in checkout.routes.ts
 * only render what this service decides.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import type { Db } from '../../db/db';
import { METHODS, PAYER_FIELD_PATHS, PayerField, PaymentMethodName } from '../methods/catalogue';
import type { PayerData, StartResult } from '../methods/connector';
import type { MethodRouting } from '../methods/method-routing.service';
import { choiceToWire, PaymentMethodOptionWire } from '../methods/method.wire';
import { external } from '../../ops/operation';
import { runPhases } from '../../ops/phases';
import { CustomerData, PaymentIntent } from './payment.entity';
import { CheckoutSelection, parseCheckoutForm, PaymentMethodOptions, payerOf } from './payment.input';
import { PaymentLifecycle, scopeOf } from './payment-lifecycle.service';
import type { PaymentIntentWire } from './payment.wire';
import { lockedOne } from '../../db/locking-read';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What the hosted page needs to render an intent. */
export interface CheckoutView {
  intent: PaymentIntentWire;
  merchantName: string;
  /** The intent's own checkout address. */
  checkoutUrl: string;
  returnUrl: string | null;
  /** Methods the payer may pick (only while no method is chosen). */
  choices: PaymentMethodOptionWire[];
  /** Payer data already known, to prefill the form (discovery names). */
  prefill: PayerData;
  /** Bank name for the chosen method, when it has one. */
  bank: string | null;
  /** The payer must approve the payment at the (simulated) bank's page. */
  awaitingBankApproval: boolean;
  /** A real provider's bank page the payer is sent on to (never rendered, only redirected to). */
  providerRedirect: string | null;
}

export type CheckoutOutcome = { kind: 'ok'; view: CheckoutView } | { kind: 'not_found' };

/** Why a form field was refused: left empty, or not valid (with the rule's message). */
export type FieldProblem = { kind: 'missing' } | { kind: 'invalid'; message: string };
export type FieldProblems = Partial<Record<PayerField, FieldProblem>> & { form?: string };

/** What the page shows after the payer submits a choice. */
export type SubmitResult =
  | { kind: 'not_found' }
  | { kind: 'redirect'; location: string }
  /** The method list again: no such option (400), or the method became unavailable (422). */
  | { kind: 'choose'; view: CheckoutView; status: 400 | 422; option?: string; unavailable?: boolean }
  /** The method's form again, with what was wrong. */
  | { kind: 'details'; view: CheckoutView; choice: PaymentMethodOptionWire; values: PayerData; problems: FieldProblems };

const FIELD_OF_PATH = new Map(Object.entries(PAYER_FIELD_PATHS).map(([field, path]) => [path, field as PayerField]));

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The option key of a choice: `method` or `method:BANK`. */
export function optionKey(c: { payment_method: string; bank: string | null }): string {
  return c.bank ? `${c.payment_method}:${c.bank}` : c.payment_method;
}

export function findChoice(view: CheckoutView, option: string | undefined): PaymentMethodOptionWire | undefined {
  return option === undefined ? undefined : view.choices.find((c) => optionKey(c) === option);
}

export interface CheckoutServiceDeps {
  db: Db;
  methods: MethodRouting;
  lifecycle: PaymentLifecycle;
}

export class CheckoutService {
  constructor(private readonly deps: CheckoutServiceDeps) {}

  /** The page's view of the intent behind `token`; an overdue intent is expired first. */
  async view(token: string, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    return this.deps.db.unit<CheckoutOutcome>(async (em) => {
      const p = await this.findByToken(em, token);
      if (!p) return { value: { kind: 'not_found' }, end: [] };
      const expired = await this.deps.lifecycle.expireIfOverdue(em, { ...scopeOf(p), requestId: null }, p, now);
      return { value: { kind: 'ok', view: await this.viewOf(em, p) }, end: expired ?? [] };
    });
  }

  /**
   * The payer submits the method form. The method and bank are read as the page sends
   * them; only the payer fields the chosen method asks for are read (an error in a field
   * the page does not show could not be fixed); every problem is reported at once.
   */
  async submit(token: string, body: Record<string, unknown>): Promise<SubmitResult> {
    const current = await this.view(token);
    if (current.kind === 'not_found') return current;
    const { view } = current;
    const method = stringOf(body.payment_method)?.trim().toLowerCase();
    const bank = stringOf(body.bank)?.trim().toUpperCase();
    const option = method ? [method, bank].filter(Boolean).join(':') : undefined;
    if (view.intent.status !== 'requires_action' || view.intent.payment_method !== null) return { kind: 'redirect', location: view.checkoutUrl };
    const choice = findChoice(view, option);
    if (!choice) return { kind: 'choose', view, status: 400, option: option ?? '' };

    const wanted = (Object.keys(choice.options.payer) as PayerField[]).filter((f) => f !== 'bank');
    const form: Record<string, unknown> = { payment_method: body.payment_method, bank: body.bank };
    for (const f of wanted) form[f] = body[f];
    const { selection, errors } = parseCheckoutForm(form);
    const problems: FieldProblems = {};
    for (const [field, message] of Object.entries(errors)) {
      if ((wanted as string[]).includes(field)) problems[field as PayerField] = { kind: 'invalid', message };
    }
    for (const field of wanted) {
      const sent = stringOf(form[field]);
      if (!problems[field] && (sent === undefined || sent.trim() === '')) problems[field] = { kind: 'missing' };
    }
    const values: PayerData = {
      ...view.prefill,
      ...Object.fromEntries(wanted.filter((f) => typeof body[f] === 'string').map((f) => [f, body[f] as string])),
    };
    if (!selection || Object.keys(problems).length > 0) return { kind: 'details', view, choice, values, problems };

    try {
      const done = await this.selectMethod(token, selection);
      if (done.kind === 'not_found') return done;
      const na = done.view.intent.next_action;
      const target = done.view.intent.status === 'requires_action' && na?.type === 'redirect_to_url' ? na.url : done.view.checkoutUrl;
      return { kind: 'redirect', location: target };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'validation_error' && err.param && FIELD_OF_PATH.has(err.param)) {
        const field = FIELD_OF_PATH.get(err.param) as PayerField;
        return {
          kind: 'details',
          view,
          choice,
          values,
          problems: field === 'bank' ? { form: err.message } : { [field]: { kind: 'invalid', message: err.message } },
        };
      }
      if (err.code === 'payment_method_unavailable') return { kind: 'choose', view, status: 422, unavailable: true };
      if (err.code === 'invalid_state') return { kind: 'redirect', location: view.checkoutUrl };
      throw err;
    }
  }

  /**
   * The payer's choice, in two atomic phases around the provider's start: phase 1 routes
   * it (the same rules as a direct create) and commits the method with the recovery point;
   * phase 2 records the provider's answer (event `payment_intent.requires_action`), or
   * moves on at once for a method that settles immediately.
   */
  async selectMethod(token: string, selection: CheckoutSelection, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    const { lifecycle } = this.deps;
    const done = await runPhases<CheckoutOutcome>(this.deps.db, async (em) => {
      const p = await this.findByToken(em, token, true);
      if (!p) return { outcome: 'done', value: { kind: 'not_found' } };
      const actor = { ...scopeOf(p), requestId: null };
      const expired = await lifecycle.expireIfOverdue(em, actor, p, now);
      if (expired) return { outcome: 'done', value: { kind: 'ok', view: await this.viewOf(em, p) }, end: expired };
      if (p.status !== 'requires_action' || p.paymentMethod !== null) {
        throw new ApiError(
          'invalid_state',
          p.status === 'requires_action' ? 'A payment method was already chosen for this payment.' : `This payment is ${p.status}.`,
        );
      }
      const stored = lifecycle.payerOf(p);
      const customer: CustomerData = { ...stored.customer };
      if (selection.payer.customer_name) customer.name = selection.payer.customer_name;
      if (selection.payer.customer_phone) customer.phone = selection.payer.customer_phone;
      const options: PaymentMethodOptions = {};
      if (selection.payer.account_name) options.account_name = selection.payer.account_name;
      if (selection.payer.account_number) options.account_number = selection.payer.account_number;
      if (selection.bank) options.bank = selection.bank;
      if (selection.payer.name_th) options.name_th = selection.payer.name_th;

      const choice = await this.deps.methods.route(
        em,
        actor,
        { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: 'hosted' },
        {
          method: selection.method,
          bank: selection.bank,
          payer: payerOf(customer, options),
        },
      );
      await lifecycle.store.patch(
        em,
        actor,
        p,
        {
          ...lifecycle.beginStart(choice),
          payerEncrypted: lifecycle.encryptPayer({ customer, payment_method_options: options }),
        },
        now,
      );
      const merchantName = await lifecycle.merchantName(em, p.merchantId);
      return external<CheckoutOutcome, StartResult>(
        () => lifecycle.callStart(p, merchantName, now),
        async (tx, start) => {
          const { end } = await lifecycle.finishStart(tx, actor, p.id, start, 'requires_action', now);
          const fresh = await lifecycle.store.lock(tx, actor, p.id);
          return { outcome: 'done', value: { kind: 'ok', view: await this.viewOf(tx, fresh) }, end };
        },
      );
    });
    return done.value;
  }

  /** The simulated bank's page: the payer approves a redirect payment, which then processes. */
  async authorizeRedirect(token: string, now = new Date()): Promise<CheckoutOutcome> {
    if (!TOKEN.test(token)) return { kind: 'not_found' };
    const { lifecycle } = this.deps;
    return this.deps.db.unit<CheckoutOutcome>(async (em) => {
      const p = await this.findByToken(em, token, true);
      if (!p) return { value: { kind: 'not_found' }, end: [] };
      const actor = { ...scopeOf(p), requestId: null };
      let end = await lifecycle.expireIfOverdue(em, actor, p, now);
      if (!end && p.status === 'requires_action') {
        if (!awaitsBankApproval(p)) throw new ApiError('invalid_state', 'This payment is not waiting for a bank approval.');
        end = (await lifecycle.paid(em, actor, p, lifecycle.settleAt(now), now)).end;
      }
      return { value: { kind: 'ok', view: await this.viewOf(em, p) }, end: end ?? [] };
    });
  }

  private async findByToken(em: EntityManager, token: string, locking = false): Promise<PaymentIntent | null> {
    // The one lookup not bounded by (merchant, environment): the token is the credential, and it names one intent.
    const qb = em.createQueryBuilder(PaymentIntent, 'p').where('p.checkout_token = :token', { token });
    return locking ? lockedOne(em, qb) : qb.getOne();
  }

  private async viewOf(em: EntityManager, p: PaymentIntent): Promise<CheckoutView> {
    const { lifecycle } = this.deps;
    const stored = lifecycle.payerOf(p);
    let choices: PaymentMethodOptionWire[] = [];
    if (p.status === 'requires_action' && p.paymentMethod === null) {
      const eligible = await this.deps.methods.eligible(em, scopeOf(p), { amount: p.amount, currency: p.currency, country: p.country, checkoutMode: 'hosted' });
      const allowed = await lifecycle.allowedMethods(em, p);
      choices = eligible.filter((c) => allowed === null || allowed.includes(c.method)).map(choiceToWire);
    }
    return {
      intent: lifecycle.store.toWire(p),
      merchantName: await lifecycle.merchantName(em, p.merchantId),
      checkoutUrl: `/checkout/${p.checkoutToken}`,
      returnUrl: p.returnUrl,
      choices,
      prefill: payerOf(stored.customer, stored.payment_method_options),
      bank: p.bank,
      awaitingBankApproval: p.status === 'requires_action' && p.providerCall === null && p.providerReference === null && awaitsBankApproval(p),
      providerRedirect: p.status === 'requires_action' && p.providerCall === null ? p.providerRedirectUrl : null,
    };
  }
}

/** A started payment whose method completes at the payer's (simulated) bank: a real provider's bank tells the provider, not us. */
function awaitsBankApproval(p: PaymentIntent): boolean {
  return p.providerReference === null && p.paymentMethod !== null && METHODS[p.paymentMethod as PaymentMethodName]?.completedBy === 'payer_redirect';
}
