/**
 * The floor of `npm run bench`: the least a server can do to answer the benchmark's requests.
 * Bare `node:http` and a `mysql2` pool of the gateway's size; for each scenario it sends the
 * statements the gateway sends (bench/sql.ts, captured from the general log) and writes the
 * same bytes the gateway answers with (checked by bench/run.ts before any measuring). No
 * framework, no ORM, no validation beyond what the answer needs. Writes: the rows the gateway
 * writes for one create, with its statements, in ONE transaction. Forked by bench/run.ts
 * (twice: one floor per client mode, below); reports its port over IPC.
 *
 * FLOOR_STATEMENTS says how the statements travel:
 *  - `text` (default): mysql2's `query`, parameters interpolated into the SQL text on the
 *    client, which is how the gateway sends them (TypeORM on mysql2);
 *  - `prepared`: mysql2's `execute`, the binary protocol: each statement is prepared once per
 *    pooled connection (mysql2 caches it) and then sent as its id and its bound parameters,
 *    safe integers bound as BIGINT (not the DOUBLE mysql2 infers from a JS number; a
 *    `LIMIT ?` on MySQL 8 needs an integer there). The fastest correct mode of the client.
 * Statements without parameters (START TRANSACTION, COMMIT, ROLLBACK) go as text in both.
 *
 * It reuses pure functions of the gateway for the bytes it must produce (not for any request
 * handling): the signed list cursor (made and verified), FieldCipher (AES-256-GCM sealing of the recipient account and the stored
 * idempotent answer), promptPayPayload, qrModules and svgDataUrlFromModules (the PromptPay QR
 * a payment carries: its modules are stored, its image is answered), and the query cost's
 * functions for the `extensions.cost` of GraphQL answers.
 */
import http from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import mysql from 'mysql2/promise';
import { monotonicFactory } from 'ulid';
import { FieldCipher } from '../src/domain/crypto';
import type { Environment } from '../src/domain/scope';
import { decodeCursor as decodeListCursor, encodeCursor, useCursorKeys } from '../src/domain/list-cursor';
import { promptPayPayload } from '../src/modules/methods/emvco';
import { qrModules, svgDataUrlFromModules } from '../src/modules/methods/qr';
import * as SQL from './sql';
import { GQL_CREATE_PAYMENT, GQL_CREATE_PAYOUT, GQL_PAYOUT_GET, GQL_PAYOUT_LIST } from './queries';
import { parse } from 'graphql';
import { actualCost, QUERY_COST, requestedCost } from '../src/graphql/cost';
import { buildGraphQLSchema } from '../src/graphql/schema';

/** The requested cost of each benchmark document, as the gateway computes it (once here: the documents are fixed). */
const REQUESTED_COST = (() => {
  const schema = buildGraphQLSchema();
  return new Map([GQL_PAYOUT_LIST, GQL_PAYOUT_GET, GQL_CREATE_PAYOUT, GQL_CREATE_PAYMENT].map((q) => [q, requestedCost(schema, parse(q))]));
})();

const ulid = monotonicFactory();
const newId = (prefix: string, now: number) => `${prefix}_${ulid(now).toLowerCase()}`;

const url = new URL(process.env.DATABASE_URL!);
const pool = mysql.createPool({
  host: url.hostname,
  port: Number(url.port || 3306),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
  database: url.pathname.slice(1),
  connectionLimit: Number(process.env.DB_POOL_SIZE || 20),
  charset: 'utf8mb4_unicode_ci',
  // As the gateway reads them (src/db/data-source.ts): a BIGINT as a number while it is a safe integer.
  supportBigNumbers: true,
  bigNumberStrings: false,
  decimalNumbers: false,
});
const cipher = FieldCipher.fromBase64(process.env.DATA_ENCRYPTION_KEY!);
useCursorKeys(cipher.derivedKeys('list cursor'));
/** The key's INSERT as the gateway sends it: with MariaDB's zero lock wait, or plain on MySQL 8 (no SET STATEMENT; set once the server has answered VERSION()). */
let insertIdempotency = SQL.INSERT_IDEMPOTENCY;

const PREPARED = process.env.FLOOR_STATEMENTS === 'prepared';

let statements = 0;
let requests = 0;
type Q = Pick<mysql.Pool, 'query' | 'execute'>;
/** The floor's parameters are strings, safe integers and nulls: integers bound as BIGINT. */
const bind = (params: unknown[]) =>
  params.map((p) => (typeof p === 'number' && Number.isSafeInteger(p) ? mysql.TypedParameter.LONGLONG(p) : p)) as mysql.ExecuteValues[];
/** One statement, in this floor's client mode (counted). */
function statement(conn: Q, sql: string, params: unknown[]): Promise<[any, unknown]> {
  statements++;
  return PREPARED && params.length > 0 ? conn.execute(sql, bind(params)) : conn.query(sql, params);
}
async function q(conn: Q, sql: string, params: unknown[]): Promise<any[]> {
  const [rows] = await statement(conn, sql, params);
  return rows as any[];
}
/** A statement that returns no rows: its OK packet (affectedRows, insertId). */
async function exec(conn: Q, sql: string, params: unknown[]): Promise<{ affectedRows: number; insertId: number }> {
  const [result] = await statement(conn, sql, params);
  return result;
}

interface Key {
  id: string;
  merchantId: string;
  environment: Environment;
}

const sha256hex = (s: string) => createHash('sha256').update(s).digest('hex');

/** Basic auth exactly as the gateway decides it (one statement). */
async function authenticate(header: string | undefined): Promise<Key | null> {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const pk = decoded.slice(0, colon);
  const sk = decoded.slice(colon + 1);
  const [row] = await q(pool, SQL.AUTH, [pk]);
  if (!row || row.k_revoked_at !== null) return null;
  const ok = timingSafeEqual(Buffer.from(sha256hex(sk), 'hex'), Buffer.from(row.k_secret_hash, 'hex'));
  if (!ok || !pk.startsWith(`pk_${row.k_environment}_`) || !sk.startsWith(`sk_${row.k_environment}_`)) return null;
  return { id: row.k_id, merchantId: row.k_merchant_id, environment: row.k_environment };
}

const iso = (ms: string | number) => new Date(Number(ms)).toISOString();

function restPayout(r: any): string {
  return JSON.stringify({
    object: 'payout_intent',
    id: r.r_id,
    amount: r.r_amount,
    currency: r.r_currency,
    country: r.r_country,
    environment: r.r_environment,
    status: r.r_status,
    merchant_reference: r.r_merchant_reference,
    recipient: {
      type: r.r_recipient_type,
      account_last4: r.r_recipient_account_last4,
      bank_code: r.r_recipient_bank_code,
      holder_name: r.r_recipient_holder_name,
    },
    failure_code: r.r_failure_code,
    failure_message: r.r_failure_message,
    payout_batch: r.r_payout_batch,
    approvals_required: r.r_approvals_required,
    approvals: r.r_approvals === null ? [] : JSON.parse(r.r_approvals),
    created_at: iso(r.r_created_at),
    updated_at: iso(r.r_updated_at),
  });
}

const up = (s: string) => s.toUpperCase();
function gqlPayout(r: any): Record<string, unknown> {
  return {
    id: r.r_id,
    amount: r.r_amount,
    currency: r.r_currency,
    country: r.r_country,
    environment: up(r.r_environment),
    status: up(r.r_status),
    merchantReference: r.r_merchant_reference,
    failureCode: r.r_failure_code,
    failureMessage: r.r_failure_message,
    createdAt: iso(r.r_created_at),
    updatedAt: iso(r.r_updated_at),
    recipient: {
      type: up(r.r_recipient_type),
      bankCode: r.r_recipient_bank_code,
      holderName: r.r_recipient_holder_name,
      accountLast4: r.r_recipient_account_last4,
    },
  };
}

/**
 * A GraphQL answer as Apollo sends the gateway's: `data`, then `extensions.cost`
 * (src/graphql/cost.ts) with the document's requested cost (computed once per document, below)
 * and the answer's actual cost, counted per answer by the gateway's own function.
 */
function gqlAnswer(query: string, data: Record<string, unknown>): string {
  const cost = { requestedQueryCost: REQUESTED_COST.get(query), actualQueryCost: actualCost(data), maximumQueryCost: QUERY_COST.maxCost };
  return JSON.stringify({ data, extensions: { cost } });
}

/** The gateway's signed cursor (src/domain/list-cursor.ts), made and checked as the gateway does: a correct server verifies it. */
function cursorOf(key: Key, t: string | number, id: string): string {
  return encodeCursor('payout_intent', key, { t: Number(t), id });
}

function decodeCursor(key: Key, c: string): { t: number; id: string } {
  return decodeListCursor('payout_intent', key, c);
}

async function listPage(key: Key, cursor: string | undefined | null): Promise<{ rows: any[]; more: boolean }> {
  let rows: any[];
  if (cursor) {
    const { t, id } = decodeCursor(key, cursor);
    rows = await q(pool, SQL.PAYOUT_LIST_AFTER, [key.merchantId, key.environment, t, t, id]);
  } else {
    rows = await q(pool, SQL.PAYOUT_LIST_FIRST, [key.merchantId, key.environment]);
  }
  const more = rows.length > 25;
  return { rows: more ? rows.slice(0, 25) : rows, more };
}

const JSON_TYPE = 'application/json; charset=utf-8';

function sendRaw(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const send = sendRaw;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ---- writes ----

/**
 * Payout create: every row the gateway writes, with its statements and in its order (hot locks
 * last: the balance row and the event counter are taken by the last statements before COMMIT),
 * in one transaction. Not done (as the gateway does): the key's in-flight round trip (claimed
 * then updated; here written `done` at once) and the webhook endpoint lookup. Like the gateway,
 * no merchant_reference SELECT: the unique index refuses a duplicate.
 */
async function createPayout(key: Key, body: any, idemKey: string, fingerprintSource: string, action: string): Promise<any> {
  const now = Date.now();
  const id = newId('po', now);
  return oneTransaction(async (conn, requestId) => {
    const wire = {
      object: 'payout_intent',
      id,
      amount: body.amount,
      currency: body.currency,
      country: body.country,
      environment: key.environment,
      status: 'requires_approval',
      merchant_reference: body.merchant_reference,
      recipient: {
        type: body.recipient.type,
        account_last4: body.recipient.account_number.slice(-4),
        bank_code: body.recipient.bank_code,
        holder_name: body.recipient.holder_name,
      },
      failure_code: null,
      failure_message: null,
      created_at: iso(now),
      updated_at: iso(now),
    };
    const json = JSON.stringify(wire);
    await exec(conn, insertIdempotency, [
      newId('idk', now),
      key.id,
      idemKey,
      sha256hex(fingerprintSource),
      201,
      cipher.encrypt(json),
      requestId,
      now,
      now,
      now + 86_400_000,
    ]);
    await exec(conn, SQL.INSERT_PAYOUT, [
      id,
      key.merchantId,
      key.environment,
      body.amount,
      body.currency,
      body.country,
      'requires_approval',
      now,
      now,
      body.merchant_reference,
      body.recipient.type,
      body.recipient.bank_code,
      body.recipient.holder_name,
      body.recipient.account_number.slice(-4),
      cipher.encrypt(body.recipient.account_number),
    ]);
    await exec(conn, SQL.INSERT_AUDIT, [newId('aud', now), key.merchantId, key.environment, key.id, action, 'payout_intent', id, requestId, 201, now]);
    const amount = BigInt(body.amount);
    const le = (bucket: string, amt: bigint) => [
      newId('le', now),
      key.merchantId,
      key.environment,
      body.currency,
      bucket,
      amt.toString(),
      'payout_reserved',
      'payout_intent',
      id,
      now,
    ];
    await exec(conn, SQL.INSERT_LEDGER_PAIR, [...le('available', -amount), ...le('reserved', amount)]);
    const d = [(-amount).toString(), '0', amount.toString()];
    const moved = await exec(conn, SQL.MOVE_BALANCE, [...d, now, key.merchantId, key.environment, body.currency, ...d]);
    if (moved.affectedRows !== 1) throw new Error('insufficient_balance');
    await event(conn, key, 'payout_intent.created', id, json, requestId, now);
    return wire;
  });
}

/** Runs `fn` in one transaction on a pooled connection (a request id of the gateway's shape), rolled back on any error. */
async function oneTransaction<T>(fn: (conn: Q, requestId: string) => Promise<T>): Promise<T> {
  const conn = await pool.getConnection();
  try {
    await q(conn, 'START TRANSACTION', []);
    const result = await fn(conn, `req_${randomBytes(12).toString('base64url')}`);
    await q(conn, 'COMMIT', []);
    return result;
  } catch (err) {
    await conn.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    conn.release();
  }
}

async function event(conn: Q, key: Key, type: string, resourceId: string, data: string, requestId: string, now: number): Promise<void> {
  const seq = SQL.seqOf(await exec(conn, SQL.NEXT_SEQ, [key.merchantId, key.environment]));
  await exec(conn, SQL.INSERT_EVENT, [newId('evt', now), key.merchantId, key.environment, type, resourceId, data, requestId, now, seq]);
}

const SETTLE_MS = Number(process.env.SIMULATED_SETTLE_MS ?? 2000);

/**
 * PromptPay payment create: the final rows (the intent with its QR modules, audit entry,
 * idempotent answer, event) in one transaction, after the gateway's two reads (the merchant's
 * disabled methods: a disabled PromptPay is refused; the merchant, whose name goes into the
 * QR). The gateway: the intent INSERTed before its provider call and UPDATEd after, in two
 * transactions. Not done, as for payouts: the key's in-flight round trip and the webhook
 * endpoint lookup. The gateway's second phase UPDATEs the intent on a condition (still as the
 * first phase committed it) without reading it again.
 */
async function createPayment(key: Key, body: any, idemKey: string, fingerprintSource: string, action: string): Promise<any> {
  const now = Date.now();
  const id = newId('pi', now);
  return oneTransaction(async (conn, requestId) => {
    const disabled = await q(conn, SQL.METHOD_SETTINGS_DISABLED, [key.merchantId, key.environment]);
    if (disabled.some((s) => s.s_payment_method === 'promptpay')) throw new Error('payment_method_unavailable');
    const [merchant] = await q(conn, SQL.MERCHANT_BY_ID, [key.merchantId]);
    const name = String(merchant.m_name);
    const reference = `PI${id.slice(-16).toUpperCase()}`;
    const expires = now + 15 * 60_000;
    const major = (BigInt(body.amount) / 100n).toString() + '.' + (BigInt(body.amount) % 100n).toString().padStart(2, '0');
    const data = promptPayPayload({
      billerId: '010556012345601',
      reference1: reference,
      amount: major,
      merchantName:
        name
          .toUpperCase()
          .replace(/[^A-Z0-9 .-]/g, '')
          .slice(0, 25) || 'MERCHANT',
    });
    const modules = qrModules(data);
    const nextAction = {
      type: 'display_qr_code',
      expires_at: iso(expires),
      display_qr_code: { data, image_url_svg: svgDataUrlFromModules(modules) },
    };
    const stored = { type: 'display_qr_code', expires_at: iso(expires), display_qr_code: { data, qr_modules: modules } };
    const wire = {
      object: 'payment_intent',
      id,
      amount: body.amount,
      currency: body.currency,
      country: body.country,
      environment: key.environment,
      checkout_mode: 'direct',
      status: 'requires_action',
      merchant_reference: body.merchant_reference,
      payment_method: 'promptpay',
      next_action: nextAction,
      failure_code: null,
      failure_message: null,
      created_at: iso(now),
      updated_at: iso(now),
    };
    const json = JSON.stringify(wire);
    await exec(conn, insertIdempotency, [
      newId('idk', now),
      key.id,
      idemKey,
      sha256hex(fingerprintSource),
      201,
      cipher.encrypt(json),
      requestId,
      now,
      now,
      now + 86_400_000,
    ]);
    await exec(conn, SQL.INSERT_PAYMENT, [
      id,
      key.merchantId,
      key.environment,
      body.amount,
      body.currency,
      body.country,
      'requires_action',
      now,
      now,
      body.merchant_reference,
      'direct',
      sha256hex(fingerprintSource),
      'promptpay',
      'siampay',
      reference,
      cipher.encrypt(JSON.stringify(body.customer ?? {})),
      JSON.stringify(stored),
      randomBytes(32).toString('base64url'),
      expires,
      now + SETTLE_MS,
      null,
    ]);
    await exec(conn, SQL.INSERT_AUDIT, [newId('aud', now), key.merchantId, key.environment, key.id, action, 'payment_intent', id, requestId, 201, now]);
    await event(conn, key, 'payment_intent.created', id, json, requestId, now);
    return wire;
  });
}

// ---- method discovery: the catalogue answer is a pure function of the query and the disabled methods ----

let methodsAnswer: string | undefined;

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = req.url ?? '/';
  if (path === '/__stats') return send(res, 200, JSON.stringify({ statements, requests }));
  if (path.startsWith('/__set_methods_answer') && req.method === 'POST') {
    methodsAnswer = await readBody(req);
    return send(res, 200, '{}');
  }
  const key = await authenticate(req.headers.authorization);
  if (!key) return send(res, 401, '{"error":{"code":"unauthorized"}}');
  const qs = path.indexOf('?');
  const route = qs < 0 ? path : path.slice(0, qs);
  const params = new URLSearchParams(qs < 0 ? '' : path.slice(qs + 1));

  if (req.method === 'GET' && route === '/v1/payout_intents') {
    const { rows, more } = await listPage(key, params.get('cursor'));
    const last = rows[rows.length - 1];
    const next = more ? JSON.stringify(cursorOf(key, last.r_created_at, last.r_id)) : 'null';
    return send(res, 200, `{"data":[${rows.map(restPayout).join(',')}],"has_more":${more},"next_cursor":${next}}`);
  }
  if (req.method === 'GET' && route.startsWith('/v1/payout_intents/')) {
    const [row] = await q(pool, SQL.PAYOUT_GET, [key.merchantId, key.environment, route.slice('/v1/payout_intents/'.length)]);
    return row ? send(res, 200, restPayout(row)) : send(res, 404, '{"error":{"code":"not_found"}}');
  }
  if (req.method === 'GET' && route === '/v1/payment_method_options') {
    // The gateway's answer is computed from the catalogue in memory; the floor runs the same
    // statement and sends the answer the bench captured from the gateway.
    await q(pool, SQL.METHOD_SETTINGS_DISABLED, [key.merchantId, key.environment]);
    return send(res, 200, methodsAnswer ?? '{"data":[]}');
  }
  if (req.method === 'POST' && (route === '/v1/payout_intents' || route === '/v1/payment_intents')) {
    const raw = await readBody(req);
    const body = JSON.parse(raw);
    const idem = String(req.headers['idempotency-key'] ?? '');
    const wire =
      route === '/v1/payout_intents'
        ? await createPayout(key, body, idem, `POST ${route} ${raw}`, `POST ${route}`)
        : await createPayment(key, body, idem, `POST ${route} ${raw}`, `POST ${route}`);
    return send(res, 201, JSON.stringify(wire));
  }
  if (req.method === 'POST' && route === '/graphql') {
    // Apollo ends every answer with a newline.
    const send = (r: http.ServerResponse, status: number, body: string) => sendRaw(r, status, `${body}\n`);
    const raw = await readBody(req);
    const { query, variables } = JSON.parse(raw);
    if (query === GQL_PAYOUT_LIST) {
      const { rows, more } = await listPage(key, variables?.after);
      const last = rows[rows.length - 1];
      const endCursor = last ? cursorOf(key, last.r_created_at, last.r_id) : null;
      return send(res, 200, gqlAnswer(query, { payoutIntents: { nodes: rows.map(gqlPayout), pageInfo: { hasNextPage: more, endCursor } } }));
    }
    if (query === GQL_PAYOUT_GET) {
      const [row] = await q(pool, SQL.PAYOUT_GET_GQL, [key.merchantId, key.environment, variables.id]);
      return send(res, 200, gqlAnswer(query, { payoutIntent: row ? gqlPayout(row) : null }));
    }
    const idem = String(req.headers['idempotency-key'] ?? '');
    if (query === GQL_CREATE_PAYOUT) {
      const i = variables.input;
      const body = {
        amount: i.amount,
        currency: i.currency,
        country: i.country,
        merchant_reference: i.merchantReference,
        recipient: {
          type: 'bank_account',
          bank_code: i.recipient.bankCode,
          account_number: i.recipient.accountNumber,
          holder_name: i.recipient.holderName,
        },
      };
      const w = await createPayout(key, body, idem, `graphql ${raw}`, 'POST /v1/payout_intents');
      return send(
        res,
        200,
        gqlAnswer(query, {
          createPayoutIntent: {
            id: w.id,
            amount: w.amount,
            currency: w.currency,
            country: w.country,
            environment: up(w.environment),
            status: up(w.status),
            merchantReference: w.merchant_reference,
            failureCode: null,
            failureMessage: null,
            createdAt: w.created_at,
            updatedAt: w.updated_at,
            recipient: { type: 'BANK_ACCOUNT', bankCode: w.recipient.bank_code, holderName: w.recipient.holder_name, accountLast4: w.recipient.account_last4 },
          },
        }),
      );
    }
    if (query === GQL_CREATE_PAYMENT) {
      const i = variables.input;
      const body = {
        amount: i.amount,
        currency: i.currency,
        country: i.country,
        merchant_reference: i.merchantReference,
        customer: i.customer,
      };
      const w = await createPayment(key, body, idem, `graphql ${raw}`, 'POST /v1/payment_intents');
      return send(
        res,
        200,
        gqlAnswer(query, {
          createPaymentIntent: {
            id: w.id,
            amount: w.amount,
            currency: w.currency,
            country: w.country,
            environment: up(w.environment),
            status: up(w.status),
            merchantReference: w.merchant_reference,
            createdAt: w.created_at,
          },
        }),
      );
    }
    return send(res, 400, '{"errors":[{"message":"the floor answers only the benchmark documents"}]}');
  }
  return send(res, 404, '{"error":{"code":"not_found"}}');
}

const server = http.createServer((req, res) => {
  // Counted as Fastify counts http_requests_total (onResponse: the answer finished or failed).
  if (req.url !== '/__stats') {
    let counted = false;
    const count = () => {
      if (!counted) {
        counted = true;
        requests++;
      }
    };
    res.once('finish', count);
    res.once('error', count);
  }
  handle(req, res).catch((err) => {
    if (!res.headersSent) send(res, 500, JSON.stringify({ error: { code: 'floor_error', message: String(err?.message ?? err) } }));
  });
});
server.keepAliveTimeout = 72_000;
pool.query('SELECT VERSION() AS v').then(
  ([rows]) => {
    if (!/mariadb/i.test((rows as { v: string }[])[0].v)) insertIdempotency = SQL.INSERT_IDEMPOTENCY.replace(/^SET STATEMENT \S+ = \d+ FOR /, '');
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      process.send?.({ port });
    });
  },
  (err) => {
    console.error(`floor: cannot reach the database: ${err?.message ?? err}`);
    process.exit(1);
  },
);
process.on('disconnect', () => process.exit(0));
// A normal exit on SIGTERM, so that `--cpu-prof` (BENCH_PROFILE=1) writes its profile.
process.on('SIGTERM', () => process.exit(0));
