/**
 * Every failure as the contract's error shape (`{ error: { code, message } }`, GraphQL's
 * `{ errors }` on /graphql) with a `Request-Id` header, including the answers Node and
 * Fastify would otherwise write themselves before any route runs: malformed HTTP and header
 * overflow (`clientError`), router-level failures, and Fastify's own client errors.
 */
import { STATUS_CODES, maxHeaderSize as defaultMaxHeaderSize } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ErrorBody } from '../domain/errors';
import { newRequestId } from '../domain/ids';
import type { Credentials } from '../domain/scope';
import { isApiPath, isGraphqlPath, pathOf, isPublicPath, sendJson } from './request';
import { routeNotFound, type WithHeaders } from './route-table';

export const BODY_LIMIT = 64 * 1024;

/**
 * Router-level failures (a URL that cannot be percent-decoded, a path parameter over
 * fastify's length limit) are answered before any hook runs. Without this they would get
 * fastify's own body and no Request-Id; with it they get the same treatment as an
 * unknown route: authentication first on /v1 and /graphql, then 404 not_found.
 */
export function frameworkErrorHandler(auth: Pick<Credentials, 'authenticate'>) {
  return (_err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('Request-Id', request.id);
    const answer = async () => {
      if ((isApiPath(request.url) && !isPublicPath(pathOf(request.url))) || isGraphqlPath(request.url)) {
        await auth.authenticate(request.headers.authorization);
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
export function toApiError(err: unknown, bodyLimit = BODY_LIMIT): ApiError | undefined {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body exceeds ${bodyLimit} bytes.`);
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
    return new ApiError(
      code,
      code === 'bad_request'
        ? `The request could not be processed: ${e.message ?? 'malformed request'}.`
        : (STATUS_CODES[e.statusCode] ?? 'Client error') + '.',
    );
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

/**
 * The headers of an error answer. A 401 carries the Basic challenge, except to a script's
 * request in a browser (`Sec-Fetch-Dest: empty`: fetch, XHR, WebSocket), which handles the
 * refusal itself: a challenge there would open the browser's own password prompt over the
 * dashboard (decision 0111).
 */
function headersOf(err: ApiError, requestHeaders: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = { ...(err as WithHeaders).headers };
  if (err.code === 'unauthorized' && requestHeaders['sec-fetch-dest'] !== 'empty') headers['WWW-Authenticate'] = 'Basic realm="payments"';
  const retryAfter = (err as ApiError & { retryAfter?: number }).retryAfter;
  if (err.code === 'rate_limited' && retryAfter) headers['Retry-After'] = String(retryAfter);
  return headers;
}

/**
 * Every JSON answer (API records, errors, GraphQL): never stored by a cache on the way (an
 * answer may carry payment details) and never sniffed as another type by a browser.
 */
export const JSON_ANSWER_HEADERS: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  reply.header('Request-Id', request.id);
  for (const [name, value] of Object.entries(headersOf(err, request.headers))) reply.header(name, value);
  return sendJson(reply, err.status, errorBodyFor(request, err));
}

/** Writes a contract error straight to a Node response (answers given outside Fastify's request cycle). */
export function writeRawError(req: IncomingMessage, res: ServerResponse, err: ApiError): void {
  const body = JSON.stringify(errorBodyForUrl(req.url ?? '', err));
  res.writeHead(err.status, {
    'Content-Type': 'application/json; charset=utf-8',
    ...JSON_ANSWER_HEADERS,
    'Content-Length': String(Buffer.byteLength(body)),
    'Request-Id': newRequestId(),
    Connection: 'close',
    ...headersOf(err, req.headers),
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
        Object.entries(JSON_ANSWER_HEADERS)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Request-Id: ${requestId}\r\n` +
        Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}\r\n`)
          .join('') +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  return requestId;
}
