/**
 * The hosted checkout page at /checkout/:token (the `next_action.url` of a hosted intent)
 * and the simulated bank page of redirect methods. The token in the path is the only
 * credential: 256 random bits, unique per intent, and it reaches that one intent's page
 * and nothing else. Translation only: every rule is PaymentService's.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { App } from '../../app';
import { ApiError } from '../../domain/errors';
import { PAYER_FIELD_PATHS, PayerField } from '../methods/catalogue';
import { bankPage, choosePage, detailsPage, FIELD_MESSAGES, FieldErrors, FORM_FIELDS, messagePage, statusPage } from './checkout.page';
import { parseCheckoutForm } from './payment.input';
import type { CheckoutView } from './payment.service';

type WithToken = { Params: { token: string }; Querystring: Record<string, string | string[] | undefined> };

const FORM_LIMIT = 16 * 1024;

const FRIENDLY: Record<string, string> = Object.fromEntries(Object.entries(FIELD_MESSAGES).map(([f, m]) => [f, m.invalid]));

const FIELD_OF_PATH = new Map(Object.entries(PAYER_FIELD_PATHS).map(([field, path]) => [path, field as PayerField]));

function send(reply: FastifyReply, status: number, nonce: string, html: string): FastifyReply {
  return reply
    .code(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    )
    .send(html);
}

const nonce = () => randomBytes(16).toString('base64');

function notFound(reply: FastifyReply): FastifyReply {
  const n = nonce();
  return send(reply, 404, n, messagePage(n, 'Payment link not found', 'This payment link is not valid. Check that you opened the whole link, or return to the merchant and start again.'));
}

function optionOf(query: WithToken['Querystring']): string | undefined {
  const v = query.option;
  return typeof v === 'string' && v.length > 0 && v.length <= 80 ? v : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function findChoice(view: CheckoutView, option: string | undefined) {
  return option === undefined ? undefined : view.choices.find((c) => (c.bank ? `${c.payment_method}:${c.bank}` : c.payment_method) === option);
}

function statusCodeOf(view: CheckoutView): number {
  return view.intent.status === 'expired' ? 410 : 200;
}

function renderView(reply: FastifyReply, view: CheckoutView, option?: string, rejected = false): FastifyReply {
  const n = nonce();
  if (view.intent.status === 'requires_action' && view.intent.payment_method === null) {
    const choice = findChoice(view, option);
    if (choice) return send(reply, 200, n, detailsPage(view, choice, n, view.prefill));
    const notice = option !== undefined ? 'That payment method is not available for this payment. Choose another one.' : undefined;
    // A POST naming no available method is bad input (400); a GET with a stale ?option= just re-offers the list.
    return send(reply, rejected ? 400 : 200, n, choosePage(view, n, notice));
  }
  return send(reply, statusCodeOf(view), n, statusPage(view, n));
}

export async function registerCheckoutRoutes(fastify: FastifyInstance, app: App): Promise<void> {
  const { payments } = app;
  await fastify.register(async (instance) => {
    instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      const out: Record<string, string> = {};
      for (const [k, v] of new URLSearchParams(body as string)) if (!(k in out)) out[k] = v;
      done(null, out);
    });

    instance.setErrorHandler((err, request, reply) => {
      const n = nonce();
      const e = err as { statusCode?: number; code?: string };
      if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err instanceof ApiError) {
        return send(reply, 400, n, messagePage(n, 'Something went wrong', 'The form could not be read. Go back and try again.'));
      }
      request.log.error({ err, requestId: request.id }, 'checkout page error');
      return send(reply, 500, n, messagePage(n, 'Something went wrong', `Please try again in a moment. If it keeps happening, contact the merchant and quote ${request.id}.`));
    });

    instance.get<WithToken>('/checkout/:token', async (req, reply) => {
      const out = await payments.checkoutView(req.params.token);
      if (out.kind === 'not_found') return notFound(reply);
      return renderView(reply, out.view, optionOf(req.query));
    });

    instance.post<WithToken>('/checkout/:token', async (req, reply) => {
      const token = req.params.token;
      const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
      const current = await payments.checkoutView(token);
      if (current.kind === 'not_found') return notFound(reply);
      const view = current.view;
      const method = stringOf(body.payment_method)?.trim().toLowerCase();
      const bank = stringOf(body.bank)?.trim().toUpperCase();
      const option = method ? [method, bank].filter(Boolean).join(':') : undefined;
      const choice = findChoice(view, option);
      if (view.intent.status !== 'requires_action' || view.intent.payment_method !== null) return reply.code(303).header('Location', view.checkoutUrl).send();
      if (!choice) return renderView(reply, view, option ?? '', true);

      // Only the payer fields this method asks for are read; anything else in the form is ignored
      // (an error in a field the page does not show could not be fixed by the payer).
      const wanted = Object.keys(choice.options.payer).filter((f) => f in FORM_FIELDS) as (keyof typeof FORM_FIELDS)[];
      const form: Record<string, unknown> = { payment_method: body.payment_method, bank: body.bank };
      for (const f of wanted) form[f] = body[f];
      const { selection, errors } = parseCheckoutForm(form);

      const fieldErrors: FieldErrors = {};
      for (const [field, message] of Object.entries(errors)) {
        if (field in FORM_FIELDS) fieldErrors[field as PayerField] = FRIENDLY[field] ?? message;
      }
      // Show every missing field at once (judged on what was sent: when another field is
      // malformed there is no selection to look in); the service still decides.
      for (const field of wanted) {
        const sent = stringOf(form[field]);
        if (!fieldErrors[field] && (sent === undefined || sent.trim() === '')) fieldErrors[field] = FIELD_MESSAGES[field].missing;
      }
      const values = { ...view.prefill, ...Object.fromEntries(wanted.filter((f) => typeof body[f] === 'string').map((f) => [f, body[f] as string])) };
      const n = nonce();
      if (!selection || Object.keys(fieldErrors).length > 0) return send(reply, 400, n, detailsPage(view, choice, n, values, fieldErrors));

      try {
        const done = await payments.selectMethod(token, selection);
        if (done.kind === 'not_found') return notFound(reply);
        const na = done.view.intent.next_action;
        const target = done.view.intent.status === 'requires_action' && na?.type === 'redirect_to_url' ? na.url : done.view.checkoutUrl;
        return reply.code(303).header('Location', target).send();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === 'validation_error' && err.param && FIELD_OF_PATH.has(err.param)) {
          const field = FIELD_OF_PATH.get(err.param) as PayerField;
          return send(reply, 400, n, detailsPage(view, choice, n, values, field === 'bank' ? { form: err.message } : { [field]: FRIENDLY[field] ?? err.message }));
        }
        if (err.code === 'payment_method_unavailable') return send(reply, 422, n, choosePage(view, n, 'That payment method is no longer available for this payment. Choose another one.'));
        if (err.code === 'invalid_state') return reply.code(303).header('Location', view.checkoutUrl).send();
        throw err;
      }
    });

    // A link that picked up a trailing slash (some mail and chat apps do that) still works.
    instance.get<WithToken>('/checkout/:token/', async (req, reply) => reply.code(308).header('Location', `/checkout/${encodeURIComponent(req.params.token)}`).send());

    instance.get<WithToken>('/checkout/:token/status', async (req, reply) => {
      const out = await payments.checkoutView(req.params.token);
      reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      if (out.kind === 'not_found') return reply.code(404).type('application/json; charset=utf-8').send(JSON.stringify({ status: null }));
      return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify({ status: out.view.intent.status }));
    });

    instance.get<WithToken>('/checkout/:token/authorize', async (req, reply) => {
      const out = await payments.checkoutView(req.params.token);
      if (out.kind === 'not_found') return notFound(reply);
      const na = out.view.intent.next_action;
      if (out.view.intent.status !== 'requires_action' || na?.type !== 'redirect_to_url' || !na.url.endsWith('/authorize')) {
        return reply.code(303).header('Location', out.view.checkoutUrl).send();
      }
      const n = nonce();
      return send(reply, 200, n, bankPage(out.view, n));
    });

    instance.post<WithToken>('/checkout/:token/authorize', async (req, reply) => {
      try {
        const out = await payments.authorizeRedirect(req.params.token);
        if (out.kind === 'not_found') return notFound(reply);
        return reply.code(303).header('Location', out.view.checkoutUrl).send();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'invalid_state') return reply.code(303).header('Location', `/checkout/${encodeURIComponent(req.params.token)}`).send();
        throw err;
      }
    });
  });
}
