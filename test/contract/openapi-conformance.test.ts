/**
 * Outside conformance: the served OpenAPI document against the running server. For every
 * operation of /v1/openapi.json, requests are generated from the document itself
 * (test/helpers/openapi-requests.ts), with json-schema-faker (npm, a generator written
 * elsewhere; fixed seed) making the values and whole bodies:
 *
 *  - valid ones (required fields only, every field, boundary lengths and values, random
 *    values, json-schema-faker's bodies; each optional query parameter alone and all
 *    together, with the parameters `x-dependentRequired` asks for; a real `cursor` taken
 *    from a page, never a made-up one) must get 2xx, a business 4xx (404/409/422) the
 *    operation documents, or a 400 validation_error naming a rule its 400 answer lists;
 *  - invalid ones (one violation at a time: missing required field, wrong type, too long,
 *    too short, pattern break, bad enum, unknown field, number out of range, bad or
 *    unknown or repeated query parameter, bad header) must get 400 validation_error whose
 *    `param` names the violated field (dot path), query parameter or header;
 *    (A payout batch's item breaks are answered by the documented per-row `invalid` batch.)
 *  - every answer must be documented for its status, in a media type documented for it, and
 *    its body must validate against the documented schema (Ajv 2020 + ajv-formats,
 *    components resolved); no 5xx.
 *  - the batch upload (multipart/form-data): CSV files made from the upload schema's
 *    `x-csv-columns` and json-schema-faker's CreatePayoutIntent rows, valid and with a
 *    broken row.
 *
 * Counts are bounded (test/helpers/scale.ts: CI runs the full counts).
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
import { Client, eventually, payoutBody, ref, Res } from '../helpers/client';
import { type FakerJob, OpenApiSchemas, type Schema, seeded } from '../helpers/openapi-requests';
import { scaled } from '../helpers/scale';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const BUSINESS = [404, 409, 422];
const STRICT = process.env.CONFORMANCE_STRICT !== '0'; // every module is converted: an operation without operationId fails
/** Fixed, so runs repeat; CONFORMANCE_SEED tries another. */
const SEED = Number(process.env.CONFORMANCE_SEED ?? 20240601);
/** json-schema-faker's bodies per operation, and CSV files for the batch upload. */
const FAKED_BODIES = scaled(8);
const CSV_FILES = scaled(4);

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
  /** A batch item's break: answered 201 with an invalid batch naming this row's `param` (or 400 naming the list, for the item itself). */
  rowError?: { list: string; param: string };
}

let srv: TestServer;
let c: Client;
let doc: Schema;
let schemas: OpenApiSchemas;
const report = new Map<string, { requests: number; failures: string[]; converted: boolean; notes: string[] }>();
const totals = { requests: 0 };

jest.setTimeout(600_000);

beforeAll(async () => {
  // No webhook delivery: the endpoints made here point at a closed port, and attempting (and
  // rescheduling) every event to each of them was a quarter of this file's CPU. The answers of
  // the webhook routes do not depend on it.
  srv = await startServer({ env: { WEBHOOK_DELIVERY: '0' } });
  c = await srv.merchant();
  const res = await c.get('/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  schemas = new OpenApiSchemas(doc, seeded(SEED));
  // json-schema-faker, once: every string schema, FAKED_BODIES bodies per operation, the batch upload's rows.
  const jobs: FakerJob[] = operations().flatMap((o, i): FakerJob[] => {
    const body = bodySchema(o.op);
    return body ? [{ key: `body:${o.key}`, schema: body, count: FAKED_BODIES, seed: SEED + i * 1000 }] : [];
  });
  jobs.push({ key: 'csv-rows', schema: { $ref: '#/components/schemas/CreatePayoutIntent' }, count: CSV_FILES * 3, seed: SEED + 999_999 });
  await schemas.prepare(jobs, SEED + 500_000);
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

const newLink = async () =>
  (await ok(await c.post('/v1/payment_links', { amount: '1000', currency: 'THB', country: 'TH' }, { idempotencyKey: randomUUID() }), 'create payment link'))
    .id as string;
const newReportRun = async () =>
  (
    await ok(
      await c.post(
        '/v1/report_runs',
        { report_type: 'payments.itemized', interval_start: '2020-01-01T00:00:00Z', interval_end: '2099-01-01T00:00:00Z' },
        { idempotencyKey: randomUUID() },
      ),
      'create report run',
    )
  ).id as string;
/** A run whose file is ready (the scheduler makes it); a pending one if it takes too long (its 422 is documented too). */
const readyReportRun = async () => {
  const id = await newReportRun();
  await eventually(async () => (await c.get(`/v1/report_runs/${id}`)).body?.status === 'succeeded', 15_000, 200).catch(() => undefined);
  return id;
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
  [/^\/payment_links\/\{id\}/, newLink],
  [/^\/report_runs\/\{id\}\/file/, readyReportRun],
  [/^\/report_runs\/\{id\}/, newReportRun],
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
  /** Parameters a parameter needs beside it (the operation's `x-dependentRequired`, e.g. discovery's amount needs currency). */
  const companions = (name: string): [string, string][] => {
    const needs: string[] = (o.op['x-dependentRequired'] as Record<string, string[]> | undefined)?.[name] ?? [];
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
  // Valid: json-schema-faker's bodies (those the document's schema accepts; the others are noted).
  if (body) {
    for (const [i, value] of schemas.faked(`body:${o.key}`).entries()) {
      if (!schemas.valid(body, value)) {
        notes.push('json-schema-faker made a body its schema refuses (not sent)');
        continue;
      }
      out.push({
        kind: 'valid',
        label: `body json-schema-faker #${i + 1}`,
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
    // A list whose items are checked row by row (`x-row-errors`): a break inside its first item is a row error.
    const rowList = Object.entries((schemas.resolve(body).properties ?? {}) as Record<string, Schema>).find(([, p]) => schemas.resolve(p)['x-row-errors'])?.[0];
    for (const v of schemas.violations(body, base, 'body')) {
      const inRow = rowList !== undefined && (v.param === rowList || v.param.startsWith(`${rowList}.0.`)) && v.rule !== 'maxItems';
      out.push({
        kind: 'invalid',
        label: `body ${v.rule} at ${v.param}`,
        path: sharedPath!,
        query: requiredQuery('full'),
        headers: headers(),
        body: v.value,
        param: v.param,
        ...(inRow ? { rowError: { list: rowList, param: v.param === rowList ? '' : v.param.slice(`${rowList}.0.`.length) } } : {}),
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
  // A bad query under a parent that does not exist is still 400 (the query is checked before the parent is looked up).
  const firstBadQuery = out.find((r) => r.kind === 'invalid' && r.param !== undefined && queryParams.some((q) => q.name === r.param));
  if (!isWrite && firstBadQuery && params(o.op, 'path').length > 0) {
    const unknownParent = params(o.op, 'path').reduce((p, x) => p.replace(`{${x.name}}`, 'zz_unknown_id'), o.template);
    out.push({ ...firstBadQuery, label: `${firstBadQuery.label}, under an unknown id`, path: unknownParent });
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

/** The params of the rules an operation's 400 answer lists ("`param`: rule"), which a schema-valid request may break. */
function rulesOf(op: Schema): string[] {
  const text = String(documented(op, 400)?.description ?? '');
  return [...text.matchAll(/`([^`]+)`:/g)].map((m) => m[1]);
}

function problems(o: Operation, req: Req, res: Res): string[] {
  const out: string[] = [];
  const said = `${res.status}${res.body?.error ? ` ${res.body.error.code}${res.body.error.param ? ` param=${res.body.error.param}` : ''}: ${res.body.error.message}` : ''}`;
  if (res.status >= 500) out.push(`5xx: ${said}`);
  const doc = documented(o.op, res.status);
  if (!doc) out.push(`status ${res.status} is not documented (${said})`);
  else {
    // The answer's media type must be one documented for its status.
    const media = Object.keys(doc.content ?? {});
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (media.length > 0 && !media.includes(type)) out.push(`${res.status} answered ${type || 'no content type'}, documented ${media.join(', ')}`);
    const schema = doc.content?.[type]?.schema;
    if (schema) {
      const value = type === 'application/json' ? res.body : res.text;
      if (value === undefined) out.push(`${res.status}: body is not JSON: ${res.text.slice(0, 120)}`);
      else {
        const validate = schemas.validator(schema);
        if (!validate(value)) {
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
    // A 400 for a request the schemas accept is fine only for a rule the operation's 400 answer lists ("`param`: rule").
    const listed = res.status === 400 && res.body?.error?.code === 'validation_error' && rulesOf(o.op).includes(res.body.error.param);
    const fine = (res.status >= 200 && res.status < 300) || (BUSINESS.includes(res.status) && doc !== undefined) || listed;
    if (!fine) out.push(`valid request refused for a reason the document does not state: ${said}`);
  } else if (req.rowError) {
    const row = req.rowError;
    const asRow =
      res.status === 201 && res.body?.status === 'invalid' && (res.body.errors ?? []).some((e: Schema) => e.row === 1 && e.param === (row.param || 'row'));
    const asList = res.status === 400 && res.body?.error?.code === 'validation_error' && res.body.error.param === row.list && row.param === '';
    if (!asRow && !asList)
      out.push(`expected 201 invalid with row 1 ${row.param || 'row'} (x-row-errors), got ${said} ${JSON.stringify(res.body?.errors ?? '')}`);
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
    `openapi conformance (seed ${SEED}): ${all.length} operations, ${totals.requests} requests, ${failures} failures (${convertedFailures} in converted operations, ${failures - convertedFailures} in operations without operationId)`,
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

// ------------------------------------------------------------------ rules in tool vocabulary

test('the document states its rules in the vocabulary tools read', () => {
  // Only standard formats: a format the document does not define means nothing to a tool.
  const formats = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const f = (v as Schema).format;
      if (typeof f === 'string') formats.add(f);
      Object.values(v).forEach(walk);
    }
  };
  walk(doc);
  expect([...formats].filter((f) => !['date-time', 'email', 'uri'].includes(f))).toEqual([]);
  // A currency the pattern accepts is a supported one; a made-up code is not.
  const currency = schemas.resolve(doc.components.schemas.CreatePayoutIntent).properties.currency;
  expect(['THB', ' usdc ', 'jpy'].map((v) => schemas.valid(currency, v))).toEqual([true, true, true]);
  expect(['UZbxYb', 'ABC', 'XXX'].map((v) => schemas.valid(currency, v))).toEqual([false, false, false]);
  const op = (path: string, method: string) => doc.paths[path][method] as Schema;
  expect(op('/payment_method_options', 'get')['x-dependentRequired']).toEqual({ amount: ['currency'] });
  const link = bodySchema(op('/payment_links', 'post'))!;
  expect(JSON.stringify(link.properties.allowed_methods)).toContain('"enum":["promptpay","bank_transfer","online_banking","direct_debit"]');
  const items = schemas.resolve(bodySchema(op('/payout_batches', 'post'))!.properties.items);
  expect(items.items).toEqual({ $ref: '#/components/schemas/CreatePayoutIntent' });
  expect(items['x-row-errors']).toMatch(/invalid/);
  const file = op('/report_runs/{id}/file', 'get').responses;
  expect(Object.keys(file['200'].content)).toEqual(['text/csv']);
  for (const status of ['400', '401', '404', '422']) expect(Object.keys(file[status].content)).toEqual(['application/json']);
  expect(rulesOf(op('/payment_links', 'post'))).toEqual(expect.arrayContaining(['customer_chooses.maximum', 'expires_at']));
  expect(rulesOf(op('/payment_links/{id}', 'post'))).toEqual(expect.arrayContaining(['expires_at']));
  expect(rulesOf(op('/report_runs', 'post'))).toEqual(['interval_end']);
  expect(rulesOf(op('/webhook_endpoints', 'post'))).toEqual(['url']);
  expect(rulesOf(op('/webhook_endpoints/{id}', 'post'))).toEqual(['url']);
  const cursor = params(op('/payout_intents', 'get'), 'query').find((p) => p.name === 'cursor')!;
  expect(cursor.description).toMatch(/Opaque.*next_cursor/);
});

// ------------------------------------------------------------------ the batch upload (multipart/form-data)

/** A row's value as CSV text. */
const cell = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
/** One CSV field, quoted as RFC 4180 says when it must be. */
const csvField = (v: string): string => (/[",\r\n]/.test(v) || v !== v.trim() ? `"${v.replace(/"/g, '""')}"` : v);

test('the batch upload answers as its document says (CSV files from the upload schema and json-schema-faker rows)', async () => {
  const o = operations().find((x) => x.method === 'post' && x.op.requestBody && schemas.resolve(x.op.requestBody).content?.['multipart/form-data']);
  expect(o).toBeDefined();
  const upload = schemas.resolve(schemas.resolve(o!.op.requestBody).content['multipart/form-data'].schema);
  const [field, fileSchema] = Object.entries(upload.properties as Record<string, Schema>).find(([, p]) => p.contentMediaType === 'text/csv')!;
  const columns = fileSchema['x-csv-columns'] as Record<string, string>;
  expect(Object.keys(columns).length).toBeGreaterThan(0);
  const rowSchema = { $ref: '#/components/schemas/CreatePayoutIntent' };
  const at = (row: unknown, dotted: string): unknown => dotted.split('.').reduce((v: any, k) => (v == null ? undefined : v[k]), row);
  const csvOf = (rows: unknown[]) =>
    [
      Object.keys(columns).join(','),
      ...rows.map((r) =>
        Object.values(columns)
          .map((p) => csvField(cell(at(r, p))))
          .join(','),
      ),
    ].join('\r\n') + '\r\n';
  const sendCsv = async (csv: string, name = field) => {
    const boundary = `----conformance${randomBytes(8).toString('hex')}`;
    const raw = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="batch.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
    return c.request('POST', `/v1${o!.template}`, {
      raw,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': randomUUID() },
    });
  };
  const failures: string[] = [];
  const answers: string[] = [];
  const check = (req: Req, res: Res) => {
    answers.push(
      `${req.label}: ${res.status}${res.body?.status ? ` ${res.body.status}` : ''}${res.body?.error ? ` ${res.body.error.code} ${res.body.error.param ?? ''}` : ''}`,
    );
    for (const p of problems(o!, req, res)) failures.push(`${req.label}: ${p}`);
  };
  // Rows a CSV can carry: json-schema-faker's, kept when valid and when every field it fills is a column.
  const faked = schemas.faked('csv-rows').filter((r) => schemas.valid(rowSchema, r));
  const full = schemas.sample(rowSchema, 'full');
  const rows = [full, ...faked];
  // The document's plain row alone (its examples: a currency the merchant holds), then json-schema-faker's rows, a few a file.
  const files = [[{ ...(full as Schema), merchant_reference: ref('csv') }], ...Array.from({ length: CSV_FILES }, (_, i) => rows.slice(1 + i * 3, 4 + i * 3))];
  for (const [i, file] of files.entries()) {
    if (file.length === 0) continue;
    check({ kind: 'valid', label: `CSV file #${i + 1} (${file.length} rows)`, path: o!.template, query: [], headers: {} }, await sendCsv(csvOf(file)));
  }
  // A broken row (one field of the first row, each rule the row schema states) makes an invalid batch naming its column.
  const reverse = Object.fromEntries(Object.entries(columns).map(([col, p]) => [p, col]));
  const broken = schemas.violations(rowSchema, full, 'row').filter((v) => reverse[v.param] !== undefined && typeof at(v.value, v.param) === 'string');
  expect(broken.length).toBeGreaterThan(0);
  for (const v of broken.slice(0, scaled(12))) {
    const value = at(v.value, v.param) as string;
    if (/[\r\n]/.test(value)) continue; // CSV cannot say it as one field
    const req: Req = {
      kind: 'invalid',
      label: `CSV row 1 ${v.rule} at ${reverse[v.param]}`,
      path: o!.template,
      query: [],
      headers: {},
      rowError: { list: 'items', param: reverse[v.param] },
    };
    check(req, await sendCsv(csvOf([{ ...(v.value as Schema), merchant_reference: v.param === 'merchant_reference' ? value : ref('csv') }])));
  }
  // The file part missing: 400 naming it.
  const missing = await sendCsv(csvOf([full]), 'not_the_file');
  check({ kind: 'invalid', label: 'no file part', path: o!.template, query: [], headers: {}, param: field }, missing);
  console.log(`batch upload: ${answers.length} requests\n  ${answers.join('\n  ')}`);
  expect(failures).toEqual([]);
  // The valid files reached the batch itself (not only a documented refusal), and the broken rows made invalid batches.
  expect(answers.filter((a) => a.startsWith('CSV file') && / 20[01] requires_approval/.test(a)).length).toBeGreaterThan(0);
  expect(answers.filter((a) => a.startsWith('CSV row') && / 201 invalid/.test(a)).length).toBeGreaterThan(0);
});
