/**
 * REST plumbing shared by every route: request ids, authentication, content-type and
 * body-size rules, unknown paths and methods (404 / 405 with Allow), and the mapping of
 * every failure to the contract's error shape. That includes the answers Node and Fastify
 * would otherwise write themselves, before any route runs: malformed HTTP and header
 * overflow (`clientError`), a missing Host, an unsupported `Expect`, and the 503 while the
 * server closes. Each carries `{ error: { code, message } }` and a `Request-Id` header.
 */
import { STATUS_CODES, maxHeaderSize as defaultMaxHeaderSize } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorBody } from '../domain/errors';
import { newRequestId } from '../domain/ids';
import type { App } from '../app';
import type { RequestContext } from '../modules/auth/request-context';
import type { RateLimiter } from './rate-limit';
import type { Logger } from 'pino';
import { parseJsonBody } from './json-body';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by authentication on /v1 and /graphql. */
    ctx?: RequestContext;
  }
  interface FastifyContextConfig {
    /** The route exists for test-mode keys only (test helpers): a live key is told 404, never 405. */
    testOnly?: boolean;
  }
}

export const BODY_LIMIT = 64 * 1024;
const JSON_TYPE = /^application\/json\s*(;.*)?$/i;
/** Routes that need no credentials. */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);
/** Seconds a client is asked to wait before retrying a request refused while the server shuts down. */
const CLOSING_RETRY_AFTER_S = 1;

/**
 * Headers a request may carry once. Node keeps the first Authorization, Content-Type and Host
 * and silently drops the rest, and joins repeated Idempotency-Keys into one "a, b" value:
 * two of them are a conflict the client must resolve, not something to guess at.
 */
const SINGLE_HEADERS: Record<string, string> = {
  authorization: 'Authorization',
  'content-type': 'Content-Type',
  host: 'Host',
  'idempotency-key': 'Idempotency-Key',
};

export function isApiPath(url: string): boolean {
  return url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?');
}

export function isGraphqlPath(url: string): boolean {
  return url === '/graphql' || url.startsWith('/graphql?') || url.startsWith('/graphql/');
}

export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export function ctxOf(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new ApiError('unauthorized', 'Authentication required.');
  return request.ctx;
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  if (Array.isArray(value)) throw ApiError.validation('Idempotency-Key', 'Send one Idempotency-Key header.');
  return value;
}

export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** An error that needs response headers of its own (`Allow` on a 405, `Retry-After` on a 503). */
type WithHeaders = ApiError & { headers?: Record<string, string> };

export function withHeaders(err: ApiError, headers: Record<string, string>): ApiError {
  return Object.assign(err, { headers: { ...(err as WithHeaders).headers, ...headers } });
}

export function routeNotFound(request: FastifyRequest): ApiError {
  return new ApiError('not_found', `Unrecognized request URL (${request.method} ${pathOf(request.url)}).`);
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const methodRank = (m: string) => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);

/**
 * A route URL in find-my-way syntax as a regular expression over request paths: `:name` (and
 * `:name(regex)`) matches one non-empty segment, `*` the rest, `::` is a literal colon.
 */
export function routePattern(url: string): RegExp {
  let re = '';
  for (let i = 0; i < url.length; i++) {
    const c = url[i];
    if (c === ':' && url[i + 1] === ':') {
      re += ':';
      i++;
    } else if (c === ':') {
      let j = i + 1;
      while (j < url.length && /[A-Za-z0-9_$]/.test(url[j])) j++;
      if (url[j] === '(') {
        for (let depth = 0; j < url.length; j++) {
          if (url[j] === '\\') j++;
          else if (url[j] === '(') depth++;
          else if (url[j] === ')' && --depth === 0) break;
        }
        j++;
      }
      re += '[^/]+';
      i = j - 1;
    } else if (c === '*') {
      re += '.*';
    } else {
      re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/**
 * Every registered route's methods by URL pattern, filled by an onRoute hook (so a route
 * added anywhere, in any plugin, is covered without further code). The 404 path asks it
 * which methods the request's path does have: none is a 404, some is a 405 with `Allow`.
 * HEAD is listed wherever Fastify exposes it (beside every GET).
 */
export class RouteTable {
  private readonly byUrl = new Map<string, { pattern: RegExp; methods: Map<string, boolean> }>();

  add(method: string | string[], url: string, testOnly = false): void {
    let entry = this.byUrl.get(url);
    if (!entry) {
      entry = { pattern: routePattern(url), methods: new Map() };
      this.byUrl.set(url, entry);
    }
    for (const m of [method].flat()) entry.methods.set(m.toUpperCase(), testOnly);
  }

  /** The methods served at `path` (no query string), in a stable order; test-only routes count for test keys only. */
  methodsAt(path: string, testMode: boolean): string[] {
    const found = new Set<string>();
    for (const { pattern, methods } of this.byUrl.values()) {
      if (!pattern.test(path)) continue;
      for (const [m, testOnly] of methods) if (testMode || !testOnly) found.add(m);
    }
    return [...found].sort((a, b) => methodRank(a) - methodRank(b) || a.localeCompare(b));
  }
}

function decodedPath(url: string): string {
  const path = pathOf(url);
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** The answer to a request no route took: 405 with `Allow` when the path has other methods, else 404. */
export function routeError(request: FastifyRequest, routes: RouteTable): ApiError {
  const path = decodedPath(request.url);
  const methods = routes.methodsAt(path, request.ctx?.environment === 'test');
  if (methods.length === 0 || methods.includes(request.method)) return routeNotFound(request);
  const allow = methods.join(', ');
  return withHeaders(new ApiError('method_not_allowed', `${request.method} is not supported on ${pathOf(request.url)}; use ${allow}.`), { Allow: allow });
}

/**
 * Router-level failures (a URL that cannot be percent-decoded, a path parameter over
 * fastify's length limit) are answered before any hook runs. Without this they would get
 * fastify's own body and no Request-Id; with it they get the same treatment as an
 * unknown route: authentication first on /v1 and /graphql, then 404 not_found.
 */
export function frameworkErrorHandler(app: App) {
  return (_err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('Request-Id', request.id);
    const answer = async () => {
      if ((isApiPath(request.url) && !PUBLIC_PATHS.has(pathOf(request.url))) || isGraphqlPath(request.url)) {
        await app.auth.authenticate(request.headers.authorization);
      }
      throw routeNotFound(request);
    };
    answer().catch((err: unknown) => sendError(request, reply, err instanceof ApiError ? err : ApiError.internal()));
  };
}

/** Contract codes for the HTTP statuses Fastify's own client errors carry. */
const CODE_OF_STATUS: Record<number, ApiError['code']> = {
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'not_found',
  415: 'unsupported_media_type',
  431: 'request_header_fields_too_large',
};

/** Fastify's own errors, translated to contract codes. */
function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${BODY_LIMIT} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send request bodies as Content-Type: application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  // Any other client error of Fastify's (4xx) stays a client error, never a 500.
  if (typeof e?.code === 'string' && e.code.startsWith('FST_') && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = CODE_OF_STATUS[e.statusCode] ?? 'bad_request';
    return new ApiError(code, code === 'bad_request' ? `The request could not be processed: ${e.message ?? 'malformed request'}.` : (STATUS_CODES[e.statusCode] ?? 'Client error') + '.');
  }
  return undefined;
}

/** The error body for a request to `url`: GraphQL's `{ errors }` on /graphql, the contract's `{ error }` elsewhere. */
export function errorBodyForUrl(url: string, err: ApiError): unknown {
  if (isGraphqlPath(url)) {
    return { errors: [{ message: err.message, extensions: { code: err.code, ...(err.param ? { param: err.param } : {}) } }] };
  }
  return err.toBody() satisfies ErrorBody;
}

export function errorBodyFor(request: FastifyRequest, err: ApiError): unknown {
  return errorBodyForUrl(request.url, err);
}

function headersOf(err: ApiError): Record<string, string> {
  const headers: Record<string, string> = { ...(err as WithHeaders).headers };
  if (err.code === 'unauthorized') headers['WWW-Authenticate'] = 'Basic realm="payments"';
  const retryAfter = (err as ApiError & { retryAfter?: number }).retryAfter;
  if (err.code === 'rate_limited' && retryAfter) headers['Retry-After'] = String(retryAfter);
  return headers;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  reply.header('Request-Id', request.id);
  for (const [name, value] of Object.entries(headersOf(err))) reply.header(name, value);
  return sendJson(reply, err.status, errorBodyFor(request, err));
}

/** Writes a contract error straight to a Node response (answers given outside Fastify's request cycle). */
function writeRawError(req: IncomingMessage, res: ServerResponse, err: ApiError): void {
  const body = JSON.stringify(errorBodyForUrl(req.url ?? '', err));
  res.writeHead(err.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Request-Id': newRequestId(),
    Connection: 'close',
    ...headersOf(err),
  });
  res.end(body);
}

/** The contract error for a request Node's HTTP parser refused (`clientError`). */
function clientErrorOf(err: NodeJS.ErrnoException & { reason?: string }, maxHeaderSize: number): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('request_header_fields_too_large', `The request line and headers exceed ${maxHeaderSize} bytes.`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'The request was not received in time.');
    default: {
      const reason = typeof err.reason === 'string' && err.reason ? ` (${err.reason.replace(/[^\x20-\x7e]/g, '')})` : '';
      return new ApiError('bad_request', `The request is not valid HTTP/1.1${reason}.`);
    }
  }
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request (malformed request
 * line or headers, conflicting Content-Length / Transfer-Encoding, headers over the size
 * limit, a request timeout). No route, no Fastify request: the answer is written to the
 * socket as Fastify and Node do, but with the contract's body and a Request-Id.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const maxHeaderSize = (this.server as { maxHeaderSize?: number }).maxHeaderSize ?? defaultMaxHeaderSize;
  const error = clientErrorOf(err, maxHeaderSize);
  const requestId = writeSocketError(socket, error);
  this.log.debug({ err, requestId, status: error.status }, 'client error');
  socket.destroy(err);
}

/**
 * Writes a contract error as a whole HTTP/1.1 response (`Connection: close`) straight to a
 * socket that has no Node response: a request the parser refused, a WebSocket upgrade that
 * cannot proceed. The caller closes the socket. Returns the answer's Request-Id.
 */
export function writeSocketError(socket: Duplex, error: ApiError, headers: Record<string, string> = {}): string {
  const requestId = newRequestId();
  if (socket.writable) {
    const body = JSON.stringify(error.toBody());
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\n` +
        Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  return requestId;
}

/** Refuses a request carrying twice a header that must be single (see SINGLE_HEADERS), or no Host on HTTP/1.1. */
function checkHeaders(request: FastifyRequest): void {
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    const label = SINGLE_HEADERS[name];
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
function checkContentType(request: FastifyRequest): void {
  const type = request.headers['content-type'];
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

/** A request's context; its child logger is made on first use (most requests never log). */
class HttpRequestContext implements RequestContext {
  readonly apiKeyId: string;
  readonly merchantId: string;
  readonly environment: RequestContext['environment'];
  private child?: Logger;

  constructor(key: Omit<RequestContext, 'requestId' | 'log'>, readonly requestId: string, private readonly root: Logger) {
    this.apiKeyId = key.apiKeyId;
    this.merchantId = key.merchantId;
    this.environment = key.environment;
  }

  get log(): Logger {
    return (this.child ??= this.root.child({ requestId: this.requestId }));
  }
}

export function registerPlumbing(fastify: FastifyInstance, app: App, limiter: RateLimiter): void {
  const routes = new RouteTable();
  let closing = false;

  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url, route.config?.testOnly === true));
  fastify.addHook('preClose', async () => {
    closing = true;
  });

  (fastify.server as { requireHostHeader?: boolean }).requireHostHeader = false;
  // Node answers an Expect other than 100-continue with a bare 417 unless someone listens.
  fastify.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    writeRawError(req, res, new ApiError('expectation_failed', 'Only "Expect: 100-continue" is supported.'));
  });

  fastify.removeAllContentTypeParsers();
  // UTF-8, well-formed strings, at most MAX_JSON_DEPTH levels (json-body.ts). An empty body
  // with a JSON type is an absent body, as if no Content-Type had been sent.
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (err) {
      done(err as ApiError, undefined);
    }
  });

  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    // Replaces Fastify's return503OnClosing, which answers with its own body and no Request-Id.
    if (closing) {
      throw withHeaders(new ApiError('service_unavailable', 'The server is shutting down; retry the request.'), { 'Retry-After': String(CLOSING_RETRY_AFTER_S) });
    }
    checkHeaders(request);
    const url = request.url;
    const api = isApiPath(url) && !PUBLIC_PATHS.has(pathOf(url));
    if (api || (isGraphqlPath(url) && request.method !== 'OPTIONS')) {
      const key = await app.auth.authenticate(request.headers.authorization);
      await limiter.take(key.apiKeyId);
      request.ctx = new HttpRequestContext(key, request.id, app.log);
    }
    // Unknown paths and methods are answered before the body is read: a 404/405 beats a 413/415.
    if (request.is404) throw routeError(request, routes);
    if (api && request.method === 'POST') checkContentType(request);
  });

  fastify.setErrorHandler((err, request, reply) => {
    const known = toApiError(err);
    if (known) return sendError(request, reply, known);
    // The client went away while its body was read: nobody to answer, nothing went wrong here.
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || request.raw.aborted || request.raw.socket?.destroyed) {
      request.log.debug({ err, requestId: request.id }, 'request aborted by the client');
      return sendError(request, reply, new ApiError('bad_request', 'The request was aborted.'));
    }
    request.log.error({ err, requestId: request.id }, 'unhandled error');
    return sendError(request, reply, ApiError.internal());
  });

  fastify.setNotFoundHandler((request, reply) => sendError(request, reply, routeError(request, routes)));
}
