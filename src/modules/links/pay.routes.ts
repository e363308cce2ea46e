/**
 * The payment link's public page: GET /pay/:token shows it, POST /pay/:token starts the
 * payment and redirects (303) into the hosted checkout. The checkout's rules apply (its CSP,
 * no framing, no-store, nothing from other hosts). An unknown token and a malformed one get
 * the same 404 page; a deactivated, expired or completed link 410. Rendering only: the
 * rules are PayService's.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { nonce, pageErrors, parseForms, send } from '../payments/checkout.routes';
import { messagePage } from '../payments/checkout.page';
import { linkPage } from './pay.page';
import type { PayOutcome, PayService } from './pay.service';
import { VISIT } from './pay.service';

type WithToken = { Params: { token: string } };

const COOKIE = 'pay_visit';

const GONE: Record<string, [string, string]> = {
  inactive: ['This payment link is no longer active', 'The merchant has turned this link off. Please contact them for another way to pay.'],
  expired: ['This payment link has expired', 'The time to pay with this link has run out. Please contact the merchant.'],
  completed: ['This payment link has been used', 'This link has already taken all the payments it allows. Please contact the merchant.'],
};

/** The visit token of the Cookie header, if any. */
function visitOf(cookie: string | undefined): string | undefined {
  const found = cookie
    ?.split(';')
    .map((p) => p.trim().split('='))
    .find(([k]) => k === COOKIE)?.[1];
  return found && VISIT.test(found) ? found : undefined;
}

function render(reply: FastifyReply, token: string, out: PayOutcome, secure: boolean): FastifyReply {
  const n = nonce();
  switch (out.kind) {
    case 'not_found':
      return send(
        reply,
        404,
        n,
        messagePage(n, 'Payment link not found', 'This payment link is not valid. Check that you opened the whole link, or contact the merchant.'),
      );
    case 'gone':
      return send(reply, 410, n, messagePage(n, ...GONE[out.reason]));
    case 'busy':
      return send(
        reply,
        409,
        n,
        messagePage(
          n,
          'Not available right now',
          `Other payments through this link are still in progress. Please try again later, or contact ${out.merchantName}.`,
        ),
      );
    case 'redirect':
      return reply.code(303).header('Cache-Control', 'no-store').header('Location', out.location).send();
    case 'form':
      // The visit lives as long as a hosted payment waits: Back and Reload bring the same one.
      reply.header(
        'Set-Cookie',
        `${COOKIE}=${out.view.visit}; Path=/pay/${token}; Max-Age=3600; HttpOnly; SameSite=Lax${secure || reply.request.protocol === 'https' ? '; Secure' : ''}`,
      );
      return send(reply, out.status, n, linkPage(out.view, n, out));
  }
}

export async function registerPayRoutes(fastify: FastifyInstance, { pay }: { pay: PayService }): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/require-await -- Fastify takes a plugin without a done callback when it is an async function
  await fastify.register(async (instance) => {
    parseForms(instance);
    pageErrors(instance, 'payment link page error');

    instance.get<WithToken>('/pay/:token', async (req, reply) =>
      render(reply, req.params.token, await pay.view(req.params.token, visitOf(req.headers.cookie)), pay.secureCookies()),
    );

    instance.post<WithToken>('/pay/:token', async (req, reply) => {
      const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, string | undefined>;
      return render(
        reply,
        req.params.token,
        await pay.start(req.params.token, { visit: body.visit, option: body.option, amount: body.amount }),
        pay.secureCookies(),
      );
    });

    instance.get<WithToken>('/pay/:token/', async (req, reply) =>
      reply
        .code(308)
        .header('Location', `/pay/${encodeURIComponent(req.params.token)}`)
        .send(),
    );
  });
}
