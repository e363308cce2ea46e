/**
 * Fuzzing with fast-check: over 10,000 malformed requests (in CI) across REST (every
 * route of the live route table, over fetch and as raw bytes on a socket), GraphQL over
 * HTTP and graphql-ws. For every one: no 5xx; REST errors in the contract's shape with the
 * status of their code; GraphQL errors with a contract code (or Apollo's persisted-query
 * protocol codes); WebSockets closed with graphql-ws's 44xx codes (or WebSocket's own for
 * frames it refuses), error messages with contract codes, the server still up; and
 * nothing written: every table holds the same rows afterwards, but for the refusals the
 * contract stores against an Idempotency-Key (4xx answers).
 *
 * The cases come from test/helpers/fuzz-cases.ts. The seed is fixed (printed; set
 * FUZZ_SEED to replay another), FUZZ_SCALE multiplies the counts (default: 1 in CI, 0.25
 * elsewhere; test/helpers/scale.ts). A failure prints the case (index, kind, request) so that
 * it can be replayed from the seed and scale.
 */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import WebSocket from 'ws';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody } from '../helpers/client';
import { allRows } from '../helpers/db-rows';
import { registeredRoutes } from '../helpers/routes';
import { rawExchange, parseRawResponse } from '../helpers/raw-http';
import { createPayment, directDebit, paymentBody } from '../helpers/fixtures';
import { CONTRACT_CODES, gqlCase, Known, rawCase, restCase, wsCase, WsFrame } from '../helpers/fuzz-cases';
import { STATUS_OF, ErrorCode } from '../../src/domain/errors';
import { RANDOM_SCALE, scaled } from '../helpers/scale';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const SCALE = RANDOM_SCALE;
const COUNTS = {
  rest: scaled(5000),
  raw: scaled(400),
  graphql: scaled(3600),
  wsSessions: scaled(300),
};
const CONCURRENCY = 8;
/** Close codes a graphql-ws server may end a broken session with (and WebSocket's own: 1007 bad UTF-8, 1009 too big). */
const WS_CLOSE_CODES = new Set([1000, 1001, 1002, 1007, 1009, 4400, 4401, 4403, 4406, 4408, 4409, 4429]);

jest.setTimeout(240_000);

let srv: TestServer;
let c: Client;
let known: Known;
let before: Snapshot;
const logLines: string[] = [];
const totals: Record<string, number> = {};
/** Milliseconds spent generating and running each surface's cases. */
const timings: Record<string, { generate: number; run: number }> = {};

function timed<T>(surface: string, phase: 'generate' | 'run', start: number, value: T): T {
  timings[surface] = { ...(timings[surface] ?? { generate: 0, run: 0 }), [phase]: Date.now() - start };
  return value;
}
const statuses: Record<string, Record<string, number>> = { rest: {}, raw: {}, graphql: {}, ws: {} };

function count(surface: string, key: string | number, n = 1): void {
  statuses[surface][String(key)] = (statuses[surface][String(key)] ?? 0) + n;
}

// ---------------------------------------------------------------- nothing written

type Snapshot = Record<string, { rows: string[]; digest: string }>;

async function snapshot(): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const [table, rows] of Object.entries(await allRows(srv.app))) {
    // A key's last use is written (at most once a minute) by using it, which the fuzzer does.
    if (table === 'api_keys') for (const r of rows) delete r.last_used_at;
    const lines = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('hex') : v))).sort();
    out[table] = { rows: lines, digest: createHash('sha256').update(lines.join('\n')).digest('hex') };
  }
  return out;
}

// ---------------------------------------------------------------- running cases

interface Failure {
  index: number;
  kind: string;
  request: string;
  problem: string;
}

async function pool<T>(items: T[], run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i], i);
      }
    }),
  );
}

function report(surface: string, failures: Failure[]): void {
  if (failures.length === 0) return;
  const shown = failures
    .slice(0, 8)
    .map((f) => `#${f.index} [${f.kind}] ${f.request}\n    -> ${f.problem}`)
    .join('\n');
  throw new Error(`${surface}: ${failures.length} malformed requests were not answered as the contract says (seed ${SEED}):\n${shown}`);
}

const snippet = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}...` : text);

/** Problems with a REST error body, or null. */
function restErrorProblem(status: number, text: string, requestId: string | null): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${snippet(text)}`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown; param?: unknown } })?.error;
  if (!error || Object.keys(body as object).length !== 1) return `not { error }: ${snippet(text)}`;
  if (typeof error.code !== 'string' || !CONTRACT_CODES.has(error.code as ErrorCode)) return `unknown code ${String(error.code)}`;
  if (STATUS_OF[error.code as ErrorCode] !== status) return `code ${error.code} with status ${status}`;
  if (typeof error.message !== 'string' || error.message === '') return 'no message';
  if (error.param !== undefined && (error.code !== 'validation_error' || typeof error.param !== 'string')) return `param on ${error.code}`;
  const extra = Object.keys(error).filter((k) => !['code', 'message', 'param'].includes(k));
  if (extra.length) return `extra fields ${extra.join(',')}`;
  if (requestId === null) return 'no Request-Id';
  return null;
}

/** Problems with a GraphQL answer's errors (`{ errors }`, or the REST shape for answers given before routing), or null. */
function gqlProblem(status: number, text: string): string | null {
  if (status >= 500) return `status ${status}: ${snippet(text)}`;
  let body: { errors?: { message?: unknown; extensions?: { code?: unknown } }[]; error?: unknown; data?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON (${status}): ${snippet(text)}`;
  }
  if (body.error !== undefined) return restErrorProblem(status, text, 'n/a');
  if (status >= 400 && !(Array.isArray(body.errors) && body.errors.length > 0)) return `status ${status} without errors: ${snippet(text)}`;
  for (const e of body.errors ?? []) {
    const code = e.extensions?.code;
    if (typeof code !== 'string' || !CONTRACT_CODES.has(code as ErrorCode)) return `code ${String(code)}: ${snippet(text)}`;
    if (code === 'internal_error') return `internal_error: ${snippet(text)}`;
    if (typeof e.message !== 'string') return 'error without message';
    count('graphql', `code ${code}`);
  }
  return null;
}

// ---------------------------------------------------------------- set-up

beforeAll(async () => {
  const capture = new Writable({
    write(chunk, _e, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  srv = await startServer({ scheduler: false, env: { LOG_LEVEL: 'warn' }, logDestination: capture });
  c = await srv.merchant();
  const payout = await c.post('/v1/payout_intents', payoutBody());
  const payment = await createPayment(c, paymentBody(directDebit()));
  const topup = await c.post(
    '/v1/topup_intents',
    { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: `fuzz-topup-${SEED}` },
    { idempotencyKey: `fuzz-setup-${SEED}` },
  );
  const endpoint = await c.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/fuzz', enabled_events: ['payout_intent.*'] });
  const events = await c.get('/v1/events?limit=1');
  const methods = await c.get('/v1/payment_method_settings');
  expect([payout.status, topup.status, endpoint.status, events.status, methods.status]).toEqual([201, 201, 201, 200, 200]);
  known = {
    payout: payout.body.id,
    payment: payment.id,
    topup: topup.body.id,
    endpoint: endpoint.body.id,
    event: events.body.data[0].id,
    method: methods.body.data[0].payment_method,
  };
  before = await snapshot();

  console.log(`fuzz seed ${SEED} (FUZZ_SEED to change), scale ${SCALE}, database ${srv.app.db.kind}`);
});

afterAll(async () => {
  await srv?.close();
});

// ---------------------------------------------------------------- REST

test('REST: every route, malformed (bodies, JSON, types, nesting, headers, ids, query strings): no 5xx, contract-shaped errors', async () => {
  const routes = registeredRoutes(srv.server).filter((r) => r.url !== '/graphql');
  expect(routes.length).toBeGreaterThan(40);
  let started = Date.now();
  const cases = timed('rest', 'generate', started, fc.sample(restCase(routes, known, c.authorization!), { seed: SEED, numRuns: COUNTS.rest }));
  started = Date.now();
  const failures: Failure[] = [];
  const covered = new Set<string>();
  await pool(cases, async (k, index) => {
    covered.add(`${k.method} ${k.kind.split(' ')[1]}`);
    const request = `${k.method} ${snippet(k.path)} ${JSON.stringify(k.headers).slice(0, 200)} ${k.body === undefined ? '' : snippet(Buffer.isBuffer(k.body) ? k.body.toString('hex') : k.body)}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(srv.url + k.path, { method: k.method, headers: k.headers, body: k.body });
      text = await res.text();
    } catch (err) {
      failures.push({
        index,
        kind: k.kind,
        request,
        problem: `request failed: ${(err as Error).message} ${(err as { cause?: Error }).cause?.message ?? ''}`,
      });
      return;
    }
    count('rest', res.status);
    const path = k.path.split('?')[0];
    let problem: string | null = null;
    if (res.status >= 500) problem = `status ${res.status}: ${snippet(text)}`;
    else if (path.startsWith('/v1') && k.method !== 'HEAD') {
      if (res.status >= 400) problem = restErrorProblem(res.status, text, res.headers.get('request-id'));
      else if (k.method !== 'GET') problem = `a malformed ${k.method} succeeded (${res.status}): ${snippet(text)}`;
    }
    if (problem) failures.push({ index, kind: k.kind, request, problem });
  });
  timed('rest', 'run', started, null);
  totals.rest = cases.length;
  // Every route was exercised.
  for (const r of routes)
    expect({ route: `${r.method} ${r.url}`, covered: covered.has(`${r.method} ${r.url}`) }).toEqual({
      route: `${r.method} ${r.url}`,
      covered: true,
    });
  report('REST', failures);
});

test('REST as raw bytes: bytes that are not UTF-8 in paths, headers and bodies, repeated and broken headers, odd request lines', async () => {
  const host = new URL(srv.url).host;
  let started = Date.now();
  const cases = timed('raw', 'generate', started, fc.sample(rawCase(host, c.authorization!, known), { seed: SEED, numRuns: COUNTS.raw }));
  started = Date.now();
  const failures: Failure[] = [];
  await pool(cases, async (k, index) => {
    const raw = await rawExchange(srv.url, k.bytes, 150).catch((err: Error) => `!${err.message}`);
    const res = parseRawResponse(raw);
    count('raw', Number.isNaN(res.status) ? 'no answer' : res.status);
    const request = snippet(k.bytes.toString('latin1').replace(/\r\n/g, '\\r\\n'));
    if (Number.isNaN(res.status)) {
      failures.push({ index, kind: k.kind, request, problem: `no HTTP answer: ${snippet(raw)}` });
    } else if (res.status >= 500) {
      failures.push({ index, kind: k.kind, request, problem: `status ${res.status}: ${snippet(res.text)}` });
    } else if (res.status >= 400) {
      const problem =
        /\/graphql/.test(request.split(' ')[1] ?? '') && res.body?.errors
          ? gqlProblem(res.status, res.text)
          : restErrorProblem(res.status, res.text, res.headers['request-id'] ?? null);
      if (problem) failures.push({ index, kind: k.kind, request, problem });
    }
  });
  timed('raw', 'run', started, null);
  totals.raw = cases.length;
  report('raw HTTP', failures);
});

// ---------------------------------------------------------------- GraphQL

test('GraphQL over HTTP: malformed documents, refused variables, wrong types, limits, batches, envelopes, GET: no 5xx, contract codes', async () => {
  let started = Date.now();
  const cases = timed('graphql', 'generate', started, fc.sample(gqlCase(known, c.authorization!), { seed: SEED, numRuns: COUNTS.graphql }));
  started = Date.now();
  const failures: Failure[] = [];
  await pool(cases, async (k, index) => {
    const request = `${k.method} ${snippet(Buffer.isBuffer(k.payload) ? k.payload.toString('hex') : k.payload)} ${JSON.stringify(k.headers).slice(0, 160)}`;
    let res: Response;
    let text: string;
    try {
      res =
        k.method === 'GET'
          ? await fetch(`${srv.url}/graphql${k.payload ? `?${String(k.payload)}` : ''}`, { headers: k.headers })
          : await fetch(`${srv.url}/graphql`, { method: 'POST', headers: k.headers, body: k.payload });
      text = await res.text();
    } catch (err) {
      failures.push({ index, kind: k.kind, request, problem: `request failed: ${(err as Error).message}` });
      return;
    }
    count('graphql', res.status);
    const problem = gqlProblem(res.status, text);
    if (problem) failures.push({ index, kind: k.kind, request, problem });
  });
  timed('graphql', 'run', started, null);
  totals.graphql = cases.length;
  report('GraphQL', failures);
});

// ---------------------------------------------------------------- graphql-ws

interface WsOutcome {
  code: number;
  closedBy: 'server' | 'client';
  messages: { type?: string; payload?: unknown }[];
  socketError?: string;
}

/**
 * Runs one session: an init first is sent alone and its answer (ack or close) awaited, so
 * what follows reaches an acknowledged connection; then the other frames, 20 ms apart.
 */
function wsSession(url: string, protocol: string | undefined, frames: WsFrame[]): Promise<WsOutcome> {
  return new Promise((resolve, reject) => {
    const ws = protocol === undefined ? new WebSocket(url) : new WebSocket(url, protocol);
    const messages: WsOutcome['messages'] = [];
    let closedBy: 'server' | 'client' = 'server';
    let socketError: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    let acked: () => void = () => undefined;
    const send = (f: WsFrame) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if ('text' in f) ws.send(f.text);
      else ws.send(f.binary, { binary: true });
    };
    const sendFrames = async () => {
      let rest = frames;
      if ('text' in frames[0] && frames[0].text.includes('"connection_init"')) {
        const answered = new Promise<void>((r) => {
          acked = r;
          setTimeout(r, 1000);
        });
        send(frames[0]);
        await answered;
        rest = frames.slice(1);
      }
      for (const f of rest) {
        send(f);
        await new Promise((r) => setTimeout(r, 20));
      }
      timer = setTimeout(() => {
        closedBy = 'client';
        ws.close(1000);
      }, 200);
    };
    // A failure while sending fails the session.
    ws.on('open', () => {
      sendFrames().catch(reject);
    });
    ws.on('message', (raw) => {
      const data = raw as Buffer; // ws hands messages over as Buffers (its default binaryType, 'nodebuffer')
      try {
        messages.push(JSON.parse(data.toString()));
      } catch {
        messages.push({ type: `unparsable: ${data.toString().slice(0, 80)}` });
      }
      acked();
    });
    ws.on('error', (err) => {
      socketError = err.message;
    });
    ws.on('close', (code) => {
      clearTimeout(timer);
      acked();
      resolve({ code, closedBy, messages, socketError });
    });
  });
}

test('graphql-ws: malformed messages, bad connection_init payloads, bad subscribes, messages before init, binary frames: 44xx closes or error messages', async () => {
  const url = srv.url.replace(/^http/, 'ws') + '/graphql';
  let started = Date.now();
  const cases = timed('ws', 'generate', started, fc.sample(wsCase(known, c.authorization!), { seed: SEED, numRuns: COUNTS.wsSessions }));
  started = Date.now();
  const failures: Failure[] = [];
  // graphql-ws reports what it takes for its own failures on the console ("Internal error occurred ...").
  const consoleErrors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  let frames = 0;
  await pool(cases, async (k, index) => {
    frames += k.frames.length;
    const request = `${k.protocol} ${k.frames.map((f) => ('text' in f ? snippet(f.text).slice(0, 120) : `<binary ${f.binary.length}>`)).join(' | ')}`;
    const out = await wsSession(url, k.protocol, k.frames);
    // A subprotocol other than graphql-transport-ws is not selected: the client library itself then fails the handshake (1006).
    const unselected = k.protocol !== 'graphql-transport-ws' && out.code === 1006 && out.socketError === 'Server sent no subprotocol';
    count('ws', unselected ? 'subprotocol not selected' : out.closedBy === 'server' ? `closed ${out.code}` : 'open until closed by the client');
    if (!WS_CLOSE_CODES.has(out.code) && !unselected)
      failures.push({ index, kind: k.kind, request, problem: `closed with ${out.code} (${out.socketError ?? ''})` });
    for (const m of out.messages) {
      count('ws', `message ${m.type}`);
      if (m.type === 'error') {
        const errors = m.payload as { extensions?: { code?: string } }[];
        const bad = (Array.isArray(errors) ? errors : [errors]).filter(
          (e) => !e?.extensions?.code || !CONTRACT_CODES.has(e.extensions.code as ErrorCode) || e.extensions.code === 'internal_error',
        );
        if (bad.length) failures.push({ index, kind: k.kind, request, problem: `error message ${JSON.stringify(m.payload).slice(0, 300)}` });
      } else if (!['connection_ack', 'next', 'complete', 'pong', 'ping'].includes(String(m.type))) {
        failures.push({ index, kind: k.kind, request, problem: `unexpected message ${JSON.stringify(m).slice(0, 200)}` });
      }
    }
  });
  timed('ws', 'run', started, null);
  totals.ws = frames;
  totals.wsSessions = cases.length;
  const consoleLines = consoleErrors.mock.calls.map((args) => args.map(String).join(' ').slice(0, 200));
  consoleErrors.mockRestore();
  expect(consoleLines.slice(0, 3)).toEqual([]);
  report('graphql-ws', failures);
  // The server is still up and serving.
  expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
  expect((await c.gql('{ viewer { environment } }')).body.data.viewer.environment).toBe('TEST');
});

// ---------------------------------------------------------------- nothing written

test('nothing was written: every table holds the same rows, but the refusals stored against Idempotency-Keys (4xx)', async () => {
  const after = await snapshot();
  expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  const changed: string[] = [];
  for (const table of Object.keys(before)) {
    if (table === 'idempotency_keys') continue;
    if (after[table].digest !== before[table].digest) {
      const added = after[table].rows.filter((r) => !before[table].rows.includes(r)).slice(0, 3);
      const removed = before[table].rows.filter((r) => !after[table].rows.includes(r)).slice(0, 3);
      changed.push(`${table}: ${before[table].rows.length} -> ${after[table].rows.length} rows; added ${added.join(' ')}; removed ${removed.join(' ')}`);
    }
  }
  expect(changed).toEqual([]);
  // The keys held before are untouched; the new ones are stored refusals (4xx).
  const keysBefore = new Set(before.idempotency_keys.rows);
  expect(before.idempotency_keys.rows.every((r) => after.idempotency_keys.rows.includes(r))).toBe(true);
  const stored = after.idempotency_keys.rows.filter((r) => !keysBefore.has(r)).map((r) => JSON.parse(r) as { response_status: number | string; state: string });
  const notRefusals = stored.filter((r) => r.state !== 'done' || Number(r.response_status) < 400 || Number(r.response_status) >= 500);
  expect(notRefusals).toEqual([]);
  totals.storedRefusals = stored.length;
  totals.tables = Object.keys(before).length;
  totals.rowsChecked = Object.values(after).reduce((n, t) => n + t.rows.length, 0);
});

test('the log holds no error line (an unhandled error is logged at level error)', () => {
  const errors = logLines.filter((l) => JSON.parse(l).level >= 50);
  expect(errors.slice(0, 3)).toEqual([]);
  const requests = (totals.rest ?? 0) + (totals.raw ?? 0) + (totals.graphql ?? 0) + (totals.ws ?? 0);

  console.log(
    `fuzz seed ${SEED}: ${requests} malformed requests (REST ${totals.rest}, raw ${totals.raw}, GraphQL ${totals.graphql}, graphql-ws ${totals.ws} frames in ${totals.wsSessions} sessions); ` +
      `${totals.storedRefusals} refusals stored against Idempotency-Keys; ${totals.tables} tables, ${totals.rowsChecked} rows unchanged\n` +
      `answers ${JSON.stringify(statuses)}\nmilliseconds ${JSON.stringify(timings)}`,
  );
  expect(requests).toBeGreaterThanOrEqual(10_000 * Math.min(SCALE, 1));
});
