/**
 * Slow clients cannot hold a connection: request line and headers must arrive within
 * HTTP_HEADERS_TIMEOUT_MS, the whole request within HTTP_REQUEST_TIMEOUT_MS (408
 * request_timeout in the contract's shape), and a connection is closed either way, also after
 * an early answer (401) to a request whose body still trickles in. Raw sockets, one byte at a
 * time; the limits are shortened for the test (defaults: 10 s, 30 s).
 */
import net from 'node:net';
import { startServer, TestServer } from '../helpers/server';
import { parseRawResponse } from '../helpers/raw-http';

const HEADERS_MS = 1000;
const REQUEST_MS = 2000;
/** The limit, plus Node's check interval (1 s at most) and scheduling slack on a busy machine. */
const GRACE_MS = 1000 + 1500;

let srv: TestServer;
let auth: string;
beforeAll(async () => {
  srv = await startServer({
    scheduler: false,
    env: { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) },
  });
  auth = (await srv.merchant(undefined, 'test', { fund: false })).authorization!;
});
afterAll(async () => {
  await srv?.close();
});

/** Sends `head` at once, then `trickle` one byte every 200 ms; resolves with what came back and when the server closed. */
function trickle(head: string, trickleBytes: string): Promise<{ raw: string; closedAfterMs: number }> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let raw = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < trickleBytes.length && !socket.destroyed) socket.write(trickleBytes[i++]);
    }, 200);
    const guard = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still open after 20 s; got: ${raw.slice(0, 200)}`));
    }, 20_000);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (d) => (raw += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(guard);
      resolve({ raw, closedAfterMs: Date.now() - started });
    });
  });
}

const forever = 'x'.repeat(200);

test('headers sent a byte at a time: 408 request_timeout, then the connection is closed', async () => {
  const { raw, closedAfterMs } = await trickle('GET /v1/balances HTTP/1.1\r\nHost: gw\r\n', `X-Slow: ${forever}`);
  const res = parseRawResponse(raw);
  expect([res.status, res.body?.error?.code]).toEqual([408, 'request_timeout']);
  expect(closedAfterMs).toBeLessThan(HEADERS_MS + GRACE_MS);
});

test('a body sent a byte at a time: 408 request_timeout within the request limit', async () => {
  const head = `POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":"`;
  const { raw, closedAfterMs } = await trickle(head, forever);
  const res = parseRawResponse(raw);
  expect([res.status, res.body?.error?.code]).toEqual([408, 'request_timeout']);
  expect(closedAfterMs).toBeLessThan(REQUEST_MS + GRACE_MS);
});

test('after an early 401, a body that keeps trickling does not keep the connection', async () => {
  const head = 'POST /v1/payout_intents HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":"';
  const { raw, closedAfterMs } = await trickle(head, forever);
  expect(parseRawResponse(raw).status).toBe(401);
  expect(closedAfterMs).toBeLessThan(REQUEST_MS + GRACE_MS);
});

test('a request sent in time is served as usual', async () => {
  const { raw } = await trickle(`GET /v1/balances HTTP/1.1\r\nHost: gw\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`, '');
  expect(parseRawResponse(raw).status).toBe(200);
});
