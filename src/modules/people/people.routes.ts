/**
 * The dashboard's sign-in routes (outside /v1: they are the browser's, not an API client's):
 *   POST /dashboard/sign-in  { email, password, code? } -> 200 and the session cookie
 *   POST /dashboard/sign-out -> 200, the session ends and the cookie is cleared
 *   POST /dashboard/setup    { token, password } -> 200 { email }: a setup link used once
 * Each must come from the dashboard's own origin (checkSameOrigin), so another site can
 * neither sign a browser in to its own account nor out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PublicBaseUrl } from '../../domain/public-url';
import { sendJson } from '../../http/request';
import { checkSameOrigin, clearedSessionCookie, sessionCookie, sessionToken } from './session-cookie';
import type { SessionService } from './session.service';
import type { TeamService } from './team.service';

type Body = Record<string, unknown>;

function bodyOf(request: FastifyRequest): Body {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
}

function answer(reply: FastifyReply, body: unknown, cookie?: string): FastifyReply {
  reply.header('Cache-Control', 'no-store');
  if (cookie) reply.header('Set-Cookie', cookie);
  return sendJson(reply, 200, body);
}

export function registerPeopleRoutes(fastify: FastifyInstance, services: { sessions: SessionService; team: TeamService; publicUrl: PublicBaseUrl }): void {
  const { sessions, team, publicUrl } = services;
  const sameOrigin = (request: FastifyRequest) => checkSameOrigin(request.headers, request.method, publicUrl.get());

  fastify.post('/dashboard/sign-in', async (request, reply) => {
    sameOrigin(request);
    const body = bodyOf(request);
    const userAgent = request.headers['user-agent'];
    const result = await sessions.signIn(
      { email: body.email, password: body.password, code: body.code },
      { address: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : undefined, presentedToken: sessionToken(request.headers.cookie) },
    );
    return answer(
      reply,
      {
        member: { id: result.principal.id, email: result.principal.email, role: result.principal.role },
        merchant_id: result.merchantId,
        environment: result.environment,
        notice: result.notice,
      },
      sessionCookie(result.token),
    );
  });

  fastify.post('/dashboard/sign-out', async (request, reply) => {
    sameOrigin(request);
    const current = await sessions.resolve(sessionToken(request.headers.cookie));
    if (current) await sessions.end(current.principal.id, current.sessionId);
    return answer(reply, { signed_out: true }, clearedSessionCookie());
  });

  fastify.post('/dashboard/setup', async (request, reply) => {
    sameOrigin(request);
    const body = bodyOf(request);
    return answer(reply, await team.completeSetup(body.token, body.password));
  });
}
