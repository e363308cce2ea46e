/**
 * The one cookie of the service, `__Host-session`, read and written by hand: a dozen audited
 * lines instead of @fastify/cookie (decision 0070). `__Host-` makes browsers refuse it unless
 * it is Secure, has Path=/ and no Domain, so no subdomain can plant or read it; HttpOnly keeps
 * scripts away from it; SameSite=Strict keeps other sites' requests from carrying it.
 *
 * And the check every cookie-authenticated request passes: a browser request from another
 * origin is refused. `Origin` must be the public base URL's origin when present (browsers
 * send it on every POST and WebSocket upgrade), required on anything but GET and HEAD, and
 * `Sec-Fetch-Site`, when sent, must say same-origin.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../../domain/errors';

export const SESSION_COOKIE = '__Host-session';
const TOKEN = /^[A-Za-z0-9_-]{1,100}$/;

/** The session token of a Cookie header, or undefined (absent, repeated or malformed). */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const values = cookieHeader
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${SESSION_COOKIE}=`))
    .map((part) => part.slice(SESSION_COOKIE.length + 1));
  // Two values: someone planted one; trust neither.
  return values.length === 1 && TOKEN.test(values[0]) ? values[0] : undefined;
}

/** The Set-Cookie value that gives the browser `token` (a session cookie: it ends with the browser, or earlier with the session). */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

/** The Set-Cookie value that removes the cookie. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0`;
}

/** Throws 403 permission_denied when a cookie-carrying request comes from another origin than `publicBase`. */
export function checkSameOrigin(headers: IncomingHttpHeaders, method: string, publicBase: string): void {
  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  const refuse = () => new ApiError('permission_denied', 'A signed-in request must come from the dashboard\u2019s own origin.');
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') throw refuse();
  if (origin === undefined) {
    if (method !== 'GET' && method !== 'HEAD') throw refuse();
    return;
  }
  if (origin !== new URL(publicBase).origin) throw refuse();
}
