/**
 * Request checks that run before any route: headers that must be single, the Host header of
 * HTTP/1.1, and the JSON Content-Type of a POST (which also keeps other sites' browsers out).
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors';

const JSON_TYPE = /^application\/json\s*(;.*)?$/i;
const MULTIPART_TYPE = /^multipart\/form-data\s*;/i;

/**
 * Headers a request may carry once. Node keeps the first Authorization, Content-Type and Host
 * and silently drops the rest, and joins repeated Idempotency-Keys into one "a, b" value:
 * two of them are a conflict the client must resolve, not something to guess at.
 */
const SINGLE_HEADERS: ReadonlyMap<string, string> = new Map([
  ['authorization', 'Authorization'],
  ['content-type', 'Content-Type'],
  ['host', 'Host'],
  ['idempotency-key', 'Idempotency-Key'],
]);

/** Refuses a request carrying twice a header that must be single (see SINGLE_HEADERS), or no Host on HTTP/1.1. */
export function checkHeaders(request: FastifyRequest): void {
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const label = SINGLE_HEADERS.get(name);
    if (!label) continue;
    if (seen.has(name)) throw ApiError.validation(label, `Send one ${label} header.`);
    seen.add(name);
  }
  // Node's own check (requireHostHeader) answers a bare 400; it is turned off so this one answers instead.
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw new ApiError('bad_request', 'HTTP/1.1 requests must carry a Host header.');
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * A request a browser sends on behalf of another site: `Sec-Fetch-Site` says so, or (older
 * browsers) an `Origin` that is not this host. Server-side integrations send neither.
 */
function crossSiteBrowser(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

/**
 * A POST's body, when there is one, must be JSON. No body at all (no Content-Length, or 0,
 * and no Transfer-Encoding) needs no Content-Type; it is read as an absent body. A declared
 * type other than JSON is refused even with no body, so an HTML form (which always declares
 * one) never reaches a route. The JSON type was also what kept other sites out (a browser
 * cannot send it cross-site without a CORS preflight, which this API never grants), and a
 * browser that once answered the Basic challenge sends the credentials by itself: a
 * cross-site browser request still needs the JSON type, body or not.
 */
export function checkContentType(request: FastifyRequest): void {
  const type = request.headers['content-type'];
  // A route that takes a file upload says so in its config (POST /v1/payout_batches).
  if (type !== undefined && MULTIPART_TYPE.test(type) && request.routeOptions.config.multipart === true) return;
  if (type !== undefined && !JSON_TYPE.test(type)) {
    throw new ApiError('unsupported_media_type', 'POST requests must be sent with Content-Type: application/json.');
  }
  if (type === undefined && hasBody(request)) {
    throw new ApiError('unsupported_media_type', 'A request body must be sent with Content-Type: application/json.');
  }
  if (type === undefined && crossSiteBrowser(request)) {
    throw new ApiError('unsupported_media_type', 'A cross-site browser request must be sent with Content-Type: application/json.');
  }
}
