/**
 * Outside conformance: the served OpenAPI document against the running server. For every
 * operation of /v1/openapi.json, requests are generated from the document itself
 * (test/helpers/openapi-requests.ts):
 *
 *  - valid ones (required fields only, every field, boundary lengths and values, random
 *    values; each optional query parameter alone and all together; a real `cursor` taken
 *    from a page, never a made-up one) must get 2xx, or a business 4xx (404/409/422) the
 *    operation documents;
 *  - invalid ones (one violation at a time: missing required field, wrong type, too long,
 *    too short, pattern break, bad enum, unknown field, number out of range, bad or
 *    unknown or repeated query parameter, bad header) must get 400 validation_error whose
 *    `param` names the violated field (dot path), query parameter or header;
 *  - every answer must be documented for its status and its body must validate against
 *    the documented schema (Ajv 2020 + ajv-formats, components resolved); no 5xx.
 *
 * Path ids are real: records are created first (funded merchant, topups, payouts,
 * payments, refunds, webhook endpoints) and each valid write gets a fresh record in the state its
 * route needs where the test knows how to make one.
 *
 * Modules are converted to route schemas one by one. Operations with an operationId come
 * from route schemas and must conform: their failures fail the test. The others
 * (hand-written paths, merged in meanwhile) are reported, per operation, and do not fail
 * it unless CONFORMANCE_STRICT=1. Nothing is skipped silently: what the generator cannot
 * break is printed too.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { startServer, TestServer } from '../helpers/server';
import { Client, payoutBody, ref, Res } from '../helpers/client';
import { OpenApiSchemas, type Schema, seeded } from '../helpers/openapi-requests';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const BUSINESS = [404, 409, 422];
const STRICT = process.env.CONFORMANCE_STRICT !== '0'; // every module is converted: an operation without operationId fails

interface Operation {
  method: string;
  template: string;
  op: Schema;
  key: string;
  converted: boolean;
}

interface Req {
  kind: 'valid' | 'invalid';
  label: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  /** undefined: no body at all. */
  body?: unknown;
  /** invalid ones: the `param` the 400 must name. */
  param?: string;
  /** A missing required header may answer with this code instead (docs/contract.md). */
  altCode?: string;
}

let srv: TestServer;
let c: Client;
let doc: Schema;
let schemas: OpenApiSchemas;
const report = new Map<string, { requests: number; failures: string[]; converted: boolean; notes: string[] }>();
const totals = { requests: 0 };

jest.setTimeout(600_000);

beforeAll(async () => {
  srv = await startServer();
  c = await srv.merchant();
  const res = await c.get('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  schemas = new OpenApiSchemas(doc, seeded(20240601));
  // Two records of each kind first, so every list has a next page (a real cursor) and events exist.
  for (const create of [newPayout, newTopup, newPayment, newEndpoint, newRefund]) {
    await create();
    await create();
  }
});

afterAll(async () => {
  await srv?.close();
});

// ------------------------------------------------------------------ records the routes act on

async function ok(res: Res, what: string): Promise<any> {
  if (res.status >= 300) throw new Error(`setup: ${what} answered ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}
const newPayout = async () => (await ok(await c.post('/v1/payout_intents', payoutBody(), { idempotencyKey: randomUUID() }), 'create payout')).id as string;
const approvedPayout = async () => {
  const id = await newPayout();
  await ok(await c.post(`/v1/payout_intents/${id}/approve`, {}), 'approve payout');
  return id;
};
const newBatch = async () =>
  (await ok(await c.post('/v1/payout_batches', { items: [payoutBody(), payoutBody()] }, { idempotencyKey: randomUUID() }), 'create payout batch')).id as string;
const newTopup = async () =>
  (
    await ok(
      await c.post('/v1/topup_intents', { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: ref('tu') }, { idempotencyKey: randomUUID() }),
      'create topup',
    )
  ).id as string;
const newPayment = async () =>
  (
    await ok(
      await c.post(
        '/v1/payment_intents',
        {
          amount: '50000',
          currency: 'THB',
          country: 'TH',
          merchant_reference: ref('pi'),
          payment_method: 'promptpay',
          customer: { name: 'Somchai Jaidee' },
        },
        { idempotencyKey: randomUUID() },
      ),
      'create payment',
    )
  ).id as string;
/** A pending refund of its own succeeded payment (direct debit settles at once). */
const newRefund = async () => {
  const payment = await ok(
    await c.post(
      '/v1/payment_intents',
      {
        amount: '5000',
        currency: 'THB',
        country: 'TH',
        merchant_reference: ref('pi'),
        customer: { name: 'Somchai Jaidee' },
        payment_method: 'direct_debit',
        payment_method_options: { account_name: 'Somchai Jaidee', account_number: '1234567890', bank: 'KBANK', name_th: 'สมชาย ใจดี' },
      },
      { idempotencyKey: randomUUID() },
    ),
    'create payment to refund',
  );
  return (await ok(await c.post('/v1/refunds', { payment_intent: payment.id, amount: '100' }, { idempotencyKey: randomUUID() }), 'create refund')).id as string;
};
const createEndpoint = () => c.post('/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/conformance' }, { idempotencyKey: randomUUID() });
/** A fresh endpoint; the generated creates may have used up the 16 allowed, so make room first. */
const newEndpoint = async () => {
  let res = await createEndpoint();
  if (res.status === 422) {
    const all = await c.get('/v1/webhook_endpoints?limit=100');
    for (const e of all.body.data) await c.request('DELETE', `/v1/webhook_endpoints/${e.id}`);
    res = await createEndpoint();
  }
  return (await ok(res, 'create webhook endpoint')).id as string;
};
const someEvent = async () => {
  const page = await ok(await c.get('/v1/events?limit=1'), 'list events');
  if (!page.data?.length) throw new Error('setup: no event to read');
  return page.data[0].id as string;
};

const someBalanceTransaction = async () => {
  const page = await ok(await c.get('/v1/balance_transactions?limit=1'), 'list balance transactions');
  if (!page.data?.length) throw new Error('setup: no balance transaction to read');
  return page.data[0].id as string;
};

/** Fresh records for routes acting on one, in the state the route needs (first match wins). */
const RECORDS: [RegExp, () => Promise<string>][] = [
  [/^\/test_helpers\/payout_intents\/\{id\}/, approvedPayout],
  [/^\/payout_intents\/\{id\}/, newPayout],
  [/^\/payout_batches\/\{id\}/, newBatch],
  [/^(\/test_helpers)?\/topup_intents\/\{id\}/, newTopup],
  [/^(\/test_helpers)?\/payment_intents\/\{id\}/, newPayment],
  [/^(\/test_helpers)?\/refunds\/\{id\}/, newRefund],
  [/^\/webhook_endpoints\/\{id\}/, newEndpoint],
  [/^\/events\/\{id\}/, someEvent],
  [/^\/balance_transactions\/\{id\}/, someBalanceTransaction],
];

const readRecords: Record<string, string> = {};

// ------------------------------------------------------------------ the document

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      out.push({
        method,
        template,
        op: { ...op, parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])] },
        key: `${method.toUpperCase()} ${template}${op.operationId ? ` (${op.operationId})` : ''}`,
        converted: typeof op.operationId === 'string',
      });
    }
  }
  return out;
}

const params = (op: Schema, where: string): Schema[] => (op.parameters ?? []).map((p: Schema) => schemas.resolve(p)).filter((p: Schema) => p.in === where);
const bodySchema = (op: Schema): Schema | undefined => (op.requestBody ? schemas.resolve(op.requestBody).content?.['application/json']?.schema : undefined);

/** A path with its parameters filled in (`values` wins, else an enum's first value). */
async function fillPath(o: Operation, values: Record<string, string>, notes: string[]): Promise<string> {
  let path = o.template;
  for (const p of params(o.op, 'path')) {
    let value = values[p.name];
    if (value === undefined) {
      const s = schemas.resolve(p.schema);
      const record = RECORDS.find(([re]) => re.test(o.template));
      if (s.enum?.length) value = String(s.enum[0]);
      else if (record) {
        // Reads share one record; writes get a fresh one (in the state their route needs).
        if (o.method === 'get') value = readRecords[record[0].source] ??= await record[1]();
        else value = await record[1]();
      } else {
        value = 'zz_unknown_id';
        notes.push(`no record for {${p.name}}: requests use an unknown id`);
      }
    }
    path = path.replace(`{${p.name}}`, encodeURIComponent(value));
  }
  return path;
}

/** Query and header values travel as text. */
const text = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : undefined;

/** Reads a query/header text back the way OpenAPI's form style does, to know whether a broken value really is invalid. */
function asParameter(s: Schema, t: string): unknown {
  const types = OpenApiSchemas.types(schemas.resolve(s)) ?? [];
  if ((types.includes('integer') || types.includes('number')) && /^-?[0-9]+(\.[0-9]+)?$/.test(t)) return Number(t);
  if (types.includes('boolean') && (t === 'true' || t === 'false')) return t === 'true';
  return t;
}

/** A valid Idempotency-Key-like header value: unique, printable ASCII, within the schema. */
function headerValue(s: Schema, mode: 'unique' | 'min' | 'max'): string | undefined {
  const schema = schemas.resolve(s);
  const candidates =
    mode === 'unique'
      ? [randomUUID(), `k${randomBytes(8).toString('hex')}`]
      : mode === 'min'
        ? ['', 'k', `k${randomBytes(2).toString('hex')}`]
        : [
            randomBytes(Math.ceil((schema.maxLength ?? 64) / 2))
              .toString('hex')
              .slice(0, schema.maxLength ?? 64),
          ];
  return candidates.find((v) => schemas.valid(schema, v));
}

// ------------------------------------------------------------------ requests of one operation

async function requestsFor(o: Operation, notes: string[]): Promise<Req[]> {
  const out: Req[] = [];
  const headerParams = params(o.op, 'header');
  const queryParams = params(o.op, 'query');
  const body = bodySchema(o.op);
  const bodyOptional = o.op.requestBody && schemas.resolve(o.op.requestBody).required !== true;
  const isWrite = o.method !== 'get';
  const sendsBody = ['post', 'put', 'patch'].includes(o.method);

  const headers = (mode: 'unique' | 'min' | 'max' = 'unique', skip?: string): Record<string, string> => {
    const h: Record<string, string> = {};
    for (const p of headerParams) {
      if (p.name === skip) continue;
      const v = headerValue(p.schema, mode);
      if (v !== undefined) h[p.name] = v;
      else notes.push(`header ${p.name}: no ${mode} value fits its schema`);
    }
    return h;
  };
  const requiredQuery = (mode: 'min' | 'full'): [string, string][] =>
    queryParams.filter((p) => p.required).map((p) => [p.name, text(schemas.sample(p.schema, mode, p.name)) ?? '']);
  const validPath = () => fillPath(o, {}, notes);
  /** Parameters a parameter needs beside it (`x-requires`, e.g. discovery's amount needs currency). */
  const companions = (name: string): [string, string][] => {
    const p = queryParams.find((q) => q.name === name);
    const needs: string[] = (p && schemas.resolve(p.schema)['x-requires']) ?? [];
    return needs.map((n): [string, string] => {
      const q = queryParams.find((x) => x.name === n)!;
      return [n, text(schemas.sample(q.schema, 'full', n)) ?? ''];
    });
  };
  const sharedPath = isWrite ? await validPath() : undefined; // invalid writes may share one record

  // Valid: bodies in every mode (fresh record each), the body absent when allowed, boundary headers.
  if (body) {
    const seen = new Set<string>();
    for (const mode of ['min', 'full', 'max', 'random'] as const) {
      const value = schemas.sample(body, mode, '');
      const key = JSON.stringify(value);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        kind: 'valid',
        label: `body ${mode}`,
        path: await validPath(),
        query: requiredQuery('full'),
        headers: headers(),
        body: value,
      });
    }
  }
  if (!body || bodyOptional)
    out.push({
      kind: 'valid',
      label: body ? 'body absent' : 'plain',
      path: await validPath(),
      query: requiredQuery('full'),
      headers: headers(),
      body: sendsBody && !body ? {} : undefined,
    });
  if (isWrite && body && bodyOptional)
    out.push({ kind: 'valid', label: 'body {}', path: await validPath(), query: requiredQuery('full'), headers: headers(), body: {} });
  for (const p of headerParams) {
    for (const mode of ['min', 'max'] as const) {
      const h: Record<string, string> = {
        ...headers(),
        ...(headerValue(p.schema, mode) !== undefined ? { [p.name]: headerValue(p.schema, mode)! } : {}),
      };
      out.push({
        kind: 'valid',
        label: `header ${p.name} ${mode} (${h[p.name]?.length ?? 0} chars)`,
        path: await validPath(),
        query: requiredQuery('full'),
        headers: h,
        body: body ? schemas.sample(body, 'full', '') : sendsBody ? {} : undefined,
      });
    }
    if (!p.required)
      out.push({
        kind: 'valid',
        label: `header ${p.name} absent`,
        path: await validPath(),
        query: requiredQuery('full'),
        headers: headers('unique', p.name),
        body: body ? schemas.sample(body, 'full', '') : sendsBody ? {} : undefined,
      });
  }
  // Valid: each optional query parameter alone (every mode), then all of them together.
  const optionalQuery = queryParams.filter((p) => !p.required && p.name !== 'cursor');
  for (const p of optionalQuery) {
    const values = new Set(
      (['min', 'full', 'max', 'random'] as const).map((mode) => text(schemas.sample(p.schema, mode, p.name))).filter((v): v is string => v !== undefined),
    );
    for (const v of values)
      out.push({
        kind: 'valid',
        label: `query ${p.name}=${v.length > 40 ? `${v.slice(0, 40)}…` : v}`,
        path: sharedPath ?? (await validPath()),
        query: [...requiredQuery('full'), ...companions(p.name), [p.name, v]],
        headers: headers(),
      });
  }
  if (optionalQuery.length > 1) {
    out.push({
      kind: 'valid',
      label: 'query: all parameters',
      path: sharedPath ?? (await validPath()),
      query: [...requiredQuery('full'), ...optionalQuery.map((p): [string, string] => [p.name, text(schemas.sample(p.schema, 'full', p.name)) ?? ''])],
      headers: headers(),
    });
  }

  // Invalid bodies: one violation each, on a body with every field.
  if (body) {
    const base = schemas.sample(body, 'full', '');
    for (const v of schemas.violations(body, base, 'body')) {
      out.push({
        kind: 'invalid',
        label: `body ${v.rule} at ${v.param}`,
        path: sharedPath!,
        query: requiredQuery('full'),
        headers: headers(),
        body: v.value,
        param: v.param,
      });
    }
  }
  // Invalid query parameters: each broken alone, an unknown one, a repeated one.
  const invalidPath = sharedPath ?? (queryParams.length ? await validPath() : undefined);
  for (const p of queryParams) {
    const base = schemas.sample(p.schema, 'full', p.name);
    for (const v of schemas.violations(p.schema, base, p.name)) {
      const t = text(v.value);
      if (t === undefined || schemas.valid(p.schema, asParameter(p.schema, t))) continue; // not expressible in a query string
      out.push({
        kind: 'invalid',
        label: `query ${p.name} ${v.rule}: ${JSON.stringify(t.length > 30 ? `${t.slice(0, 30)}…` : t)}`,
        path: invalidPath!,
        query: [...requiredQuery('full').filter(([n]) => n !== p.name), ...companions(p.name), [p.name, t]],
        headers: headers(),
        param: p.name,
      });
    }
    const repeated = text(base) ?? 'x';
    const schema = schemas.resolve(p.schema);
    if (!(OpenApiSchemas.types(schema) ?? []).includes('array')) {
      out.push({
        kind: 'invalid',
        label: `query ${p.name} given twice`,
        path: invalidPath!,
        query: [...requiredQuery('full').filter(([n]) => n !== p.name), ...companions(p.name), [p.name, repeated], [p.name, repeated]],
        headers: headers(),
        param: p.name,
      });
    }
    if (p.required)
      out.push({
        kind: 'invalid',
        label: `query ${p.name} missing`,
        path: invalidPath!,
        query: requiredQuery('full').filter(([n]) => n !== p.name),
        headers: headers(),
        param: p.name,
      });
  }
  if (!isWrite && queryParams.length) {
    out.push({
      kind: 'invalid',
      label: 'unknown query parameter',
      path: invalidPath!,
      query: [...requiredQuery('full'), ['zz_unknown_param', '1']],
      headers: headers(),
      param: 'zz_unknown_param',
    });
  }
  // Invalid headers.
  const fullBody = body ? schemas.sample(body, 'full', '') : sendsBody ? {} : undefined;
  for (const p of headerParams) {
    const base = headerValue(p.schema, 'unique') ?? 'k';
    for (const v of schemas.violations(p.schema, base, p.name)) {
      const t = text(v.value);
      if (t === undefined || !/^[\x20-\x7e]*$/.test(t) || schemas.valid(p.schema, t)) continue;
      out.push({
        kind: 'invalid',
        label: `header ${p.name} ${v.rule}`,
        path: sharedPath ?? (await validPath()),
        query: requiredQuery('full'),
        headers: { ...headers(), [p.name]: t },
        body: fullBody,
        param: p.name,
      });
    }
    if (p.required)
      out.push({
        kind: 'invalid',
        label: `header ${p.name} missing`,
        path: sharedPath ?? (await validPath()),
        query: requiredQuery('full'),
        headers: headers('unique', p.name),
        body: fullBody,
        param: p.name,
        altCode: 'idempotency_key_required',
      });
  }
  // Invalid path parameters (what their schema refuses).
  for (const p of params(o.op, 'path')) {
    const s = schemas.resolve(p.schema);
    for (const v of schemas.violations(s, 'x', p.name)) {
      const t = text(v.value);
      if (t === undefined || t === '' || schemas.valid(s, t)) continue;
      const others = await fillPathExcept(o, p.name, t, notes);
      out.push({
        kind: 'invalid',
        label: `path ${p.name} ${v.rule}`,
        path: others,
        query: requiredQuery('full'),
        headers: headers(),
        body: fullBody,
        param: p.name,
      });
    }
  }
  return out;
}

async function fillPathExcept(o: Operation, name: string, value: string, notes: string[]): Promise<string> {
  return fillPath(o, { [name]: value }, notes);
}

// ------------------------------------------------------------------ checking an answer

function documented(op: Schema, status: number): Schema | undefined {
  const r = op.responses ?? {};
  const found = r[String(status)] ?? r[`${String(status)[0]}XX`] ?? r.default;
  return found ? schemas.resolve(found) : undefined;
}

function problems(o: Operation, req: Req, res: Res): string[] {
  const out: string[] = [];
  const said = `${res.status}${res.body?.error ? ` ${res.body.error.code}${res.body.error.param ? ` param=${res.body.error.param}` : ''}: ${res.body.error.message}` : ''}`;
  if (res.status >= 500) out.push(`5xx: ${said}`);
  const doc = documented(o.op, res.status);
  if (!doc) out.push(`status ${res.status} is not documented (${said})`);
  else {
    const schema = doc.content?.['application/json']?.schema;
    if (schema) {
      if (res.body === undefined) out.push(`${res.status}: body is not JSON: ${res.text.slice(0, 120)}`);
      else {
        const validate = schemas.validator(schema);
        if (!validate(res.body)) {
          const errs = (validate.errors ?? [])
            .slice(0, 3)
            .map(
              (e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${(e.params as any).additionalProperty})` : ''}`,
            );
          out.push(`${res.status} body does not match its schema: ${errs.join('; ')}`);
        }
      }
    }
  }
  if (req.kind === 'valid') {
    // A webhook URL whose generated IP literal is not public unicast: the documented SSRF refusal, not a schema rule.
    const ssrf =
      o.template.startsWith('/webhook_endpoints') &&
      res.status === 400 &&
      res.body?.error?.code === 'validation_error' &&
      res.body.error.param === 'url' &&
      /is not reachable as a public address\.$/.test(res.body.error.message);
    const fine = (res.status >= 200 && res.status < 300) || (BUSINESS.includes(res.status) && doc !== undefined) || ssrf;
    if (!fine) out.push(`valid request refused: ${said}`);
  } else {
    const code = res.body?.error?.code;
    const fine =
      res.status === 400 && ((code === 'validation_error' && res.body.error.param === req.param) || (req.altCode !== undefined && code === req.altCode));
    if (!fine) out.push(`expected 400 validation_error param=${req.param}, got ${said}`);
  }
  return out;
}

async function send(o: Operation, req: Req): Promise<Res> {
  const qs = req.query.length ? `?${new URLSearchParams(req.query).toString()}` : '';
  const raw = req.body === undefined ? undefined : JSON.stringify(req.body);
  return c.request(o.method.toUpperCase(), `/v1${req.path}${qs}`, {
    headers: req.headers,
    raw,
    noContentType: o.method === 'get' || o.method === 'delete',
  });
}

function describeReq(o: Operation, req: Req): string {
  const body = req.body === undefined ? '' : ` body=${JSON.stringify(req.body).slice(0, 160)}`;
  const qs = req.query.length ? `?${new URLSearchParams(req.query).toString().slice(0, 80)}` : '';
  return `[${req.kind}] ${req.label} (${o.method.toUpperCase()} ${req.path.length > 60 ? `${req.path.slice(0, 60)}…` : req.path}${qs}${body})`;
}

// ------------------------------------------------------------------ the test

test('every operation has a unique operationId', () => {
  const ops = operations();
  const ids = ops.map((o) => o.op.operationId).filter((id): id is string => typeof id === 'string');
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  expect(dupes).toEqual([]);
  const missing = ops.filter((o) => !o.converted).map((o) => `${o.method.toUpperCase()} ${o.template}`);

  if (missing.length) console.log(`operations without an operationId (not converted yet): ${missing.length}\n  ${missing.join('\n  ')}`);
  if (STRICT) expect(missing).toEqual([]);
});

test('every operation answers as its document says (generated valid and invalid requests)', async () => {
  for (const o of operations()) {
    const entry = { requests: 0, failures: [] as string[], converted: o.converted, notes: [] as string[] };
    report.set(o.key, entry);
    let reqs: Req[];
    try {
      reqs = await requestsFor(o, entry.notes);
    } catch (err) {
      entry.failures.push(`could not build requests: ${(err as Error).message}`);
      continue;
    }
    for (const req of reqs) {
      entry.requests++;
      totals.requests++;
      const res = await send(o, req);
      for (const p of problems(o, req, res)) entry.failures.push(`${describeReq(o, req)}: ${p}`);
    }
    // A real cursor: the next page of a one-item page.
    const cursor = params(o.op, 'query').find((p) => p.name === 'cursor');
    if (cursor) {
      const listPath = await fillPath(o, {}, entry.notes);
      const first = await send(o, { kind: 'valid', label: 'limit=1', path: listPath, query: [['limit', '1']], headers: {} });
      entry.requests += 1;
      totals.requests += 1;
      for (const p of problems(o, { kind: 'valid', label: 'limit=1', path: listPath, query: [['limit', '1']], headers: {} }, first))
        entry.failures.push(`[valid] limit=1: ${p}`);
      if (first.body?.next_cursor) {
        const req: Req = {
          kind: 'valid',
          label: 'cursor from the previous page',
          path: listPath,
          query: [
            ['limit', '1'],
            ['cursor', first.body.next_cursor],
          ],
          headers: {},
        };
        const res = await send(o, req);
        entry.requests++;
        totals.requests++;
        for (const p of problems(o, req, res)) entry.failures.push(`${describeReq(o, req)}: ${p}`);
      } else
        entry.notes.push(
          `cursor: not sent, GET ?limit=1 answered ${first.status} with ${first.body?.data?.length ?? '?'} records and no next_cursor (nothing to page through)`,
        );
    }
  }

  const all = [...report.entries()];
  const failing = all.filter(([, e]) => e.failures.length > 0);
  const failures = all.reduce((n, [, e]) => n + e.failures.length, 0);
  const convertedFailures = all.filter(([, e]) => e.converted).reduce((n, [, e]) => n + e.failures.length, 0);
  const lines = [
    `openapi conformance: ${all.length} operations, ${totals.requests} requests, ${failures} failures (${convertedFailures} in converted operations, ${failures - convertedFailures} in operations without operationId)`,
  ];
  for (const [key, e] of all) {
    lines.push(
      `  ${e.failures.length ? 'FAIL' : 'ok  '} ${key}: ${e.requests} requests, ${e.failures.length} failures${e.converted ? '' : ' [not converted: reported only]'}`,
    );
    for (const n of [...new Set(e.notes)]) lines.push(`         note: ${n}`);
  }
  if (schemas.unchecked.size) lines.push(`  not generated (the generator cannot express these):\n    ${[...schemas.unchecked].join('\n    ')}`);
  for (const [key, e] of failing) {
    lines.push(`\n  ${key}${e.converted ? '' : ' [not converted]'}:`);
    for (const f of e.failures.slice(0, 40)) lines.push(`    - ${f}`);
    if (e.failures.length > 40) lines.push(`    … and ${e.failures.length - 40} more`);
  }

  console.log(lines.join('\n'));

  const mustPass = all.filter(([, e]) => STRICT || e.converted).flatMap(([key, e]) => e.failures.map((f) => `${key}: ${f}`));
  expect(mustPass).toEqual([]);
});
