/**
 * The hosted checkout page at /checkout/:token (the `next_action.url` of a hosted intent)
 * and the simulated bank page of redirect methods. The token in the path is the only
 * credential: 256 random bits, unique per intent, and it reaches that one intent's page
 * and nothing else. Rendering only: every rule is CheckoutService's.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors';
import { PAYER_FIELDS } from '../methods/catalogue';
import { FIELD_MESSAGES } from './checkout.fields';
import { bankPage, choosePage, detailsPage, FieldErrors, messagePage, statusPage } from './checkout.page';
import { CheckoutService, CheckoutView, FieldProblems, findChoice } from './checkout.service';

type WithToken = { Params: { token: string }; Querystring: Record<string, string | string[] | undefined> };

const FORM_LIMIT = 16 * 1024;

const FRIENDLY: Record<string, string> = Object.fromEntries(Object.entries(FIELD_MESSAGES).map(([f, m]) => [f, m.invalid]));

export function send(reply: FastifyReply, status: number, nonce: string, html: string): FastifyReply {
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

export const nonce = (): string => randomBytes(16).toString('base64');

function notFound(reply: FastifyReply): FastifyReply {
  const n = nonce();
  return send(
    reply,
    404,
    n,
    messagePage(
      n,
      'Payment link not found',
      'This payment link is not valid. Check that you opened the whole link, or return to the merchant and start again.',
    ),
  );
}

function optionOf(query: WithToken['Querystring']): string | undefined {
  const v = query.option;
  return typeof v === 'string' && v.length > 0 && v.length <= 80 ? v : undefined;
}

/** The page's words for each refused field. */
function fieldErrors(problems: FieldProblems): FieldErrors {
  const out: FieldErrors = { ...(problems.form ? { form: problems.form } : {}) };
  for (const field of PAYER_FIELDS) {
    const p = problems[field];
    if (!p || field === 'bank') continue;
    out[field] = p.kind === 'missing' ? FIELD_MESSAGES[field].missing : (FRIENDLY[field] ?? p.message);
  }
  return out;
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

/** The urlencoded form parser of the public pages (first value of a repeated field wins; at most FORM_LIMIT bytes). */
export function parseForms(instance: FastifyInstance): void {
  instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
    const out: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(body as string)) if (!(k in out)) out[k] = v;
    done(null, out);
  });
}

/**
 * The error page of a hosted page (checkout, payment link): a form it cannot read is the
 * payer's 400, an outage a 503 with Retry-After, anything else a 500 that is logged and
 * quotes the request id. Pages never answer JSON.
 */
export function pageErrors(instance: FastifyInstance, logMessage: string): void {
  instance.setErrorHandler((err, request, reply) => {
    const n = nonce();
    const e = err as { statusCode?: number; code?: string };
    if (err instanceof ApiError && err.code === 'service_unavailable') {
      for (const [name, value] of Object.entries((err as ApiError & { headers?: Record<string, string> }).headers ?? {})) reply.header(name, value);
      return send(reply, 503, n, messagePage(n, 'Temporarily unavailable', 'This page cannot be shown right now. Please try again in a moment.'));
    }
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err instanceof ApiError) {
      return send(reply, 400, n, messagePage(n, 'Something went wrong', 'The form could not be read. Go back and try again.'));
    }
    request.log.error({ err, requestId: request.id }, logMessage);
    return send(
      reply,
      500,
      n,
      messagePage(n, 'Something went wrong', `Please try again in a moment. If it keeps happening, contact the merchant and quote ${request.id}.`),
    );
  });
}

export async function registerCheckoutRoutes(fastify: FastifyInstance, { checkout }: { checkout: CheckoutService }): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/require-await -- Fastify takes a plugin without a done callback when it is an async function
  await fastify.register(async (instance) => {
    parseForms(instance);

    pageErrors(instance, 'checkout page error');

    instance.get<WithToken>('/checkout/:token', async (req, reply) => {
      const out = await checkout.view(req.params.token);
      if (out.kind === 'not_found') return notFound(reply);
      return renderView(reply, out.view, optionOf(req.query));
    });

    instance.post<WithToken>('/checkout/:token', async (req, reply) => {
      const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
      const out = await checkout.submit(req.params.token, body);
      const n = nonce();
      switch (out.kind) {
        case 'not_found':
          return notFound(reply);
        case 'redirect':
          return reply.code(303).header('Location', out.location).send();
        case 'choose':
          return out.unavailable
            ? send(reply, 422, n, choosePage(out.view, n, 'That payment method is no longer available for this payment. Choose another one.'))
            : renderView(reply, out.view, out.option, true);
        case 'details':
          return send(reply, 400, n, detailsPage(out.view, out.choice, n, out.values, fieldErrors(out.problems)));
      }
    });

    // A link that picked up a trailing slash (some mail and chat apps do that) still works.
    instance.get<WithToken>('/checkout/:token/', async (req, reply) =>
      reply
        .code(308)
        .header('Location', `/checkout/${encodeURIComponent(req.params.token)}`)
        .send(),
    );

    instance.get<WithToken>('/checkout/:token/status', async (req, reply) => {
      const out = await checkout.view(req.params.token);
      reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
      if (out.kind === 'not_found')
        return reply
          .code(404)
          .type('application/json; charset=utf-8')
          .send(JSON.stringify({ status: null }));
      return reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ status: out.view.intent.status }));
    });

    instance.get<WithToken>('/checkout/:token/authorize', async (req, reply) => {
      const out = await checkout.view(req.params.token);
      if (out.kind === 'not_found') return notFound(reply);
      // A real provider's bank: the payer is sent on to it from here, so the merchant and the payer only ever see our address.
      if (out.view.providerRedirect)
        return reply
          .code(303)
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .header('Location', out.view.providerRedirect)
          .send();
      if (!out.view.awaitingBankApproval) {
        return reply.code(303).header('Location', out.view.checkoutUrl).send();
      }
      const n = nonce();
      return send(reply, 200, n, bankPage(out.view, n));
    });

    instance.post<WithToken>('/checkout/:token/authorize', async (req, reply) => {
      try {
        const out = await checkout.authorizeRedirect(req.params.token);
        if (out.kind === 'not_found') return notFound(reply);
        return reply.code(303).header('Location', out.view.checkoutUrl).send();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'invalid_state')
          return reply
            .code(303)
            .header('Location', `/checkout/${encodeURIComponent(req.params.token)}`)
            .send();
        throw err;
      }
    });
  });
}
