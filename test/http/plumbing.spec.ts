/**
 * The pure parts of src/http/plumbing.ts: route URL patterns and the route table behind
 * 405 + Allow, and the raw answer to a request Node's parser refused (clientError).
 */
import { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { clientErrorHandler } from '../../src/http/error-replies';
import { RouteTable, routePattern } from '../../src/http/route-table';

describe('routePattern (find-my-way syntax)', () => {
  test.each([
    ['/v1/payout_intents', '/v1/payout_intents', true],
    ['/v1/payout_intents', '/v1/payout_intents/', false],
    ['/v1/payout_intents/:id', '/v1/payout_intents/po_1', true],
    ['/v1/payout_intents/:id', '/v1/payout_intents/', false],
    ['/v1/payout_intents/:id', '/v1/payout_intents/a/b', false],
    ['/v1/payout_intents/:id/approve', '/v1/payout_intents/po_1/approve', true],
    ['/v1/a.b', '/v1/aXb', false],
    ['/files/*', '/files/a/b/c', true],
    ['/n/:id(^\\d+)', '/n/12', true],
    ['/n/:id(^\\d+)/x', '/n/12/x', true],
    ['/t/::literal', '/t/:literal', true],
  ])('%s matches %s: %s', (url, path, expected) => {
    expect(routePattern(url).test(path)).toBe(expected);
  });
});

describe('RouteTable', () => {
  const table = new RouteTable();
  table.add(['GET', 'HEAD'], '/v1/payout_intents');
  table.add('POST', '/v1/payout_intents');
  table.add('GET', '/v1/payout_intents/:id');
  table.add('HEAD', '/v1/payout_intents/:id');
  table.add('POST', '/v1/payout_intents/:id/approve');
  table.add('DELETE', '/v1/payout_intents/:id');
  table.add('OPTIONS', '/v1/payout_intents/:id');
  table.add('POST', '/v1/test_helpers/payout_intents/:id/succeed', true);

  test('methods of every pattern matching the path, in a stable order (GET HEAD POST PUT PATCH DELETE OPTIONS)', () => {
    expect(table.methodsAt('/v1/payout_intents', true)).toEqual(['GET', 'HEAD', 'POST']);
    expect(table.methodsAt('/v1/payout_intents/po_1', true)).toEqual(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
    expect(table.methodsAt('/v1/payout_intents/po_1/approve', false)).toEqual(['POST']);
  });

  test('unknown paths have no methods; test-only routes exist for test mode only', () => {
    expect(table.methodsAt('/v1/nope', true)).toEqual([]);
    expect(table.methodsAt('/v1/test_helpers/payout_intents/po_1/succeed', true)).toEqual(['POST']);
    expect(table.methodsAt('/v1/test_helpers/payout_intents/po_1/succeed', false)).toEqual([]);
  });
});

/** A socket stand-in that records what is written to it. */
class FakeSocket extends Duplex {
  written = '';

  destroyedWith: unknown = 'not destroyed';

  _read(): void {}

  _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.written += chunk.toString();
    cb();
  }

  destroy(err?: Error): this {
    this.destroyedWith = err;
    return super.destroy();
  }
}

function answer(code: string, reason?: string): { socket: FakeSocket; status: number; headers: string; body: any } {
  const socket = new FakeSocket();
  const fastify = { log: pino({ level: 'silent' }), server: { maxHeaderSize: 16384 } } as unknown as FastifyInstance;
  clientErrorHandler.call(fastify, Object.assign(new Error(code), { code, reason }), socket as never);
  const [head, body] = socket.written.split('\r\n\r\n');
  return { socket, status: Number(head?.split(' ')[1]), headers: head ?? '', body: body ? JSON.parse(body) : undefined };
}

describe('clientErrorHandler', () => {
  test.each([
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'bad_request'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'bad_request'],
  ])('%s is answered %d %s with the contract body, a Request-Id and Connection: close, then the socket is destroyed', (code, status, errorCode) => {
    const res = answer(code, 'Some reason');
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { code: errorCode, message: expect.any(String) } });
    expect(res.headers).toMatch(/\r\nRequest-Id: req_[A-Za-z0-9_-]{16}\r\n/);
    expect(res.headers).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(res.headers).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(res.headers).toContain(`\r\nContent-Length: ${Buffer.byteLength(JSON.stringify(res.body))}`);
    expect(res.socket.destroyedWith).toBeInstanceOf(Error);
  });

  test('a reset connection is left alone', () => {
    const res = answer('ECONNRESET');
    expect(res.socket.written).toBe('');
  });

  test("the parser's reason is quoted without control characters", () => {
    expect(answer('HPE_INVALID_HEADER_TOKEN', 'Invalid header token\r\nX: y').body.error.message).toBe(
      'The request is not valid HTTP/1.1 (Invalid header tokenX: y).',
    );
  });
});
