/**
 * fast-check arbitraries of malformed requests for the fuzz test (test/contract/fuzz.test.ts):
 * REST over fetch and over a raw socket, GraphQL over HTTP, graphql-ws sessions.
 *
 * Every case is malformed by construction, so none can change anything: a POST always
 * carries a body that cannot be accepted (not JSON, not UTF-8, not an object, nested too
 * deep, a field of the wrong type, a required field missing, an unknown field) or a
 * refused Content-Type; a request that names a real record (a payout, a payment, a
 * webhook endpoint) only reads it, or carries such a body; DELETE and the checkout routes
 * name unknown ids and tokens only; GraphQL mutations get ids nobody has, or inputs that
 * do not coerce or validate. The test checks that too: nothing but stored refusals is
 * written.
 */
import fc from 'fast-check';
import { ErrorCode, STATUS_OF } from '../../src/domain/errors';

// ---------------------------------------------------------------- shared pieces

/** Real records of the fuzzed merchant, by path parameter. */
export interface Known {
  payout: string;
  payment: string;
  topup: string;
  endpoint: string;
  event: string;
  method: string;
}

export const CONTRACT_CODES = new Set(Object.keys(STATUS_OF) as ErrorCode[]);

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud83dz', '\udc00\ud800'];
/** The string with each unpaired surrogate replaced by U+FFFD (what can be percent-encoded). */
const wellFormed = (s: string) => s.replace(/\p{Cs}/gu, '\ufffd');

/** Strings that have broken services before: control characters, NUL, bidi, BOM, combining marks, lone surrogates, long. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\u202e\u2066evil',
    '\ufeffref',
    'e\u0301\u0301\u0301',
    '😀'.repeat(50),
    'ก'.repeat(300),
    '%00',
    '%s%n%x',
    '${jndi:ldap://x}',
    "'; DROP TABLE payout_intents; --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    'x'.repeat(5000),
    '1e999',
    '-0',
    'NaN',
    'Infinity',
    '0x10',
    '١٢٣',
    '１２３',
    'null',
    'true',
    '[]',
    '{}',
    ...LONE_SURROGATES,
  ),
);

/** JSON values of any shape, shallow. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  weirdString,
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.1, 12345678901234567890),
);

/** A value of a JSON type other than a string (every field this API takes is a string, an object or a list, never coerced). */
const notAString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);
/** Neither a boolean nor null (for `enabled`). */
const notABoolean: fc.Arbitrary<unknown> = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.array(fc.boolean(), { maxLength: 2 }), fc.constant({}));

/** Deeply nested JSON text: arrays, objects, or a mix, 33 to 6,000 levels, optionally inside a real-looking body. */
export const deepJson: fc.Arbitrary<string> = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 33, max: 100 }), fc.integer({ min: 100, max: 6000 })),
    shape: fc.constantFrom('array', 'object', 'mixed'),
    wrap: fc.constantFrom('bare', 'field'),
  })
  .map(({ depth, shape, wrap }) => {
    let open = '';
    let close = '';
    for (let i = 0; i < depth; i++) {
      const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
      open += array ? '[' : '{"a":';
      close = (array ? ']' : '}') + close;
    }
    const deep = `${open}1${close}`;
    return wrap === 'bare' ? deep : `{"amount":"100","currency":"THB","metadata":${deep}}`;
  });

/** A nested value (33 to 300 levels) for GraphQL variables: deep enough to be refused, shallow enough for JSON.stringify. */
const deepValue: fc.Arbitrary<unknown> = fc.integer({ min: 33, max: 300 }).map((depth) => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
});

/** Bytes that are not valid UTF-8, inside an otherwise JSON-looking body. */
const invalidUtf8: fc.Arbitrary<Buffer> = fc
  .record({
    bad: fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80]),
    at: fc.constantFrom('key', 'value'),
  })
  .map(({ bad, at }) => Buffer.concat([Buffer.from(at === 'key' ? '{"' : '{"holder_name":"'), Buffer.from(bad), Buffer.from(at === 'key' ? '":1}' : '"}')]));

/** JSON text that does not parse. */
const notJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"a":',
    '{"a":1,}',
    "{'a':1}",
    '[1,2',
    'nul',
    'tru',
    '{"a":01}',
    '{"a":1}{"b":2}',
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '/*c*/{}',
    '\u0000{}',
    '{"a":"unterminated',
  ),
  fc.string({ minLength: 1, maxLength: 60 }).filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return s.trim() !== '';
    }
  }),
  fc
    .jsonValue({ maxDepth: 2 })
    .map((v) => JSON.stringify(v))
    .filter((s) => s.length > 2)
    .map((s) => s.slice(0, -1))
    .filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
);

/** Sets `value` at `path` in a deep copy of `template`, or deletes it when `value` is the DELETE marker. */
const DELETE = Symbol('delete');
function withPath(template: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(template);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  if (value === DELETE) delete at[path[path.length - 1]];
  else at[path[path.length - 1]] = value;
  return copy;
}

/** Leaf paths of a template, with the leaf's type. */
function leaves(template: Record<string, unknown>, prefix: string[] = []): { path: string[]; kind: 'string' | 'boolean' | 'array' }[] {
  const out: { path: string[]; kind: 'string' | 'boolean' | 'array' }[] = [];
  for (const [key, value] of Object.entries(template)) {
    const path = [...prefix, key];
    if (typeof value === 'string') out.push({ path, kind: 'string' });
    else if (typeof value === 'boolean') out.push({ path, kind: 'boolean' });
    else if (Array.isArray(value)) out.push({ path, kind: 'array' });
    else if (value && typeof value === 'object') out.push(...leaves(value as Record<string, unknown>, path));
  }
  return out;
}

/**
 * Object bodies that fail validation, built from a valid `template`: one field of the wrong
 * type, a required field missing, or an unknown field; the other string fields are replaced
 * by weird strings half of the time (validated before or after the broken one).
 */
export function invalidObject(template: Record<string, unknown>, required: string[]): fc.Arbitrary<Record<string, unknown>> {
  const fields = leaves(template);
  const options: fc.Arbitrary<Record<string, unknown>>[] = [
    fc
      .record({
        key: fc.oneof(
          fc.string({ minLength: 1, maxLength: 12 }).map((s) => `x_${s}`),
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'AMOUNT', 'amount '),
        ),
        value: anyJson,
      })
      .map(({ key, value }) => ({ ...structuredClone(template), [key]: value })),
  ];
  if (fields.length > 0) {
    options.push(
      fc
        .record({
          field: fc.constantFrom(...fields),
          str: notAString,
          bool: notABoolean,
          arr: fc.oneof(weirdString, fc.integer(), fc.constant({})),
        })
        .map(({ field, str, bool, arr }) => withPath(template, field.path, field.kind === 'string' ? str : field.kind === 'boolean' ? bool : arr)),
    );
  }
  if (required.length > 0) options.push(fc.constantFrom(...required).map((key) => withPath(template, key.split('.'), DELETE)));
  const strings = fields.filter((f) => f.kind === 'string');
  return fc
    .tuple(fc.oneof(...options), fc.boolean(), fc.array(weirdString, { minLength: strings.length, maxLength: strings.length }))
    .map(([broken, spice, values]) => {
      if (!spice) return broken;
      // Spice the string fields that are still strings (the broken one stays broken).
      let out = broken;
      strings.forEach((f, i) => {
        let at: unknown = out;
        for (const key of f.path) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
        if (typeof at === 'string') out = withPath(out, f.path, values[i]);
      });
      return out;
    });
}

// ---------------------------------------------------------------- REST

export interface RestCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What makes it malformed, for the report. */
  kind: string;
}

export interface Route {
  method: string;
  url: string;
}

/** Valid bodies of the POST routes (templates the invalid ones are built from) and their required fields. */
export function bodyTemplates(): Record<string, { template: Record<string, unknown>; required: string[] }> {
  const recipient = { type: 'bank_account', bank_code: 'KBANK', account_number: '1234567890', holder_name: 'Somchai Jaidee' };
  return {
    '/v1/payout_intents': {
      template: { amount: '1000', currency: 'THB', country: 'TH', merchant_reference: 'fuzz-po', recipient },
      required: [
        'amount',
        'currency',
        'country',
        'merchant_reference',
        'recipient',
        'recipient.bank_code',
        'recipient.account_number',
        'recipient.holder_name',
      ],
    },
    '/v1/payment_intents': {
      template: {
        amount: '50000',
        currency: 'THB',
        country: 'TH',
        merchant_reference: 'fuzz-pi',
        customer: { name: 'Somchai Jaidee', email: 'somchai@example.com' },
        metadata: { order: 'A-1' },
      },
      required: ['amount', 'currency', 'country', 'merchant_reference', 'customer'],
    },
    '/v1/topup_intents': {
      template: { amount: '5000', currency: 'THB', country: 'TH', merchant_reference: 'fuzz-tu' },
      required: ['amount', 'currency', 'country', 'merchant_reference'],
    },
    '/v1/webhook_endpoints': { template: { url: 'https://example.com/hooks', enabled_events: ['payout_intent.*'] }, required: ['url'] },
    '/v1/payment_method_settings/:payment_method': { template: { enabled: true }, required: ['enabled'] },
    '/v1/payout_intents/:id/cancel': { template: { reason: 'fuzz' }, required: [] },
    '/v1/payment_intents/:id/cancel': { template: { reason: 'fuzz' }, required: [] },
    '/v1/test_helpers/payout_intents/:id/fail': { template: { failure_code: 'fuzz_failure', failure_message: 'fuzz' }, required: [] },
    '/v1/test_helpers/payment_intents/:id/fail': { template: { failure_code: 'fuzz_failure', failure_message: 'fuzz' }, required: [] },
    '/v1/test_helpers/topup_intents/:id/fail': { template: { failure_code: 'fuzz_failure', failure_message: 'fuzz' }, required: [] },
  };
}

/** Ids nobody has: near misses of real ones, other kinds, encodings, lengths. */
export function unknownId(known: Known): fc.Arbitrary<string> {
  const real = Object.values(known);
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(`zz${s}`)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((s) => encodeURIComponent(wellFormed(`zz${s}`))),
    fc.constantFrom(...real).map((id) => `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`),
    fc.constantFrom(...real).map((id) => `${id}x`),
    fc.constantFrom(...real).map((id) => encodeURIComponent(`${id}\u0000`)),
    fc.constantFrom(
      'po_',
      'po_00000000000000000000000000',
      'pi_zzzzzzzzzzzzzzzzzzzzzzzzzz',
      'x'.repeat(120),
      'x'.repeat(3000),
      '%00',
      '%ED%A0%80',
      '%ff',
      '%C0%AF',
      '%2e%2e',
      '..',
      '.',
      '%2F',
      'null',
      'undefined',
      '0',
      '-1',
      '1e999',
      '%F0%9F%98%80',
      '%E0%B8%81',
      '%20',
      '%25',
      'a%2Fb',
      '%zz',
    ),
  );
}

const QUERY_NAMES = [
  'limit',
  'cursor',
  'status',
  'created_gte',
  'created_lt',
  'merchant_reference',
  'amount',
  'currency',
  'country',
  'checkout_mode',
  'provider',
  'types',
  'type',
  'resource_id',
  'operation',
  'payment_intent',
  '__proto__',
  'constructor',
  'x',
];
const queryValue = fc.oneof(
  weirdString.map((s) => encodeURIComponent(wellFormed(s))),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '101',
    '1000000000000',
    '1e3',
    '1.5',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '9999-12-31T23:59:60Z',
    'TRUE',
    '%',
    '%zz',
    '%ff',
    '%00',
    '%ED%A0%80',
    'a%26b%3Dc',
    'x'.repeat(2000),
  ),
);

/** A malformed query string (possibly empty), always starting with `?` when present. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(fc.constantFrom(...QUERY_NAMES), queryValue), { minLength: 1, maxLength: 4 })
    .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  fc.constantFrom('?', '?&&&', '?=', '?limit', '?limit=1&limit=2', '?limit[]=1', '?limit[a]=1', '?%', '?%%%', '?a=%ZZ', '?;', '?#frag'),
);

/** Headers around a request: the credentials (mostly valid), the type, the key, the rest. */
export function headerSet(authorization: string, post: boolean): fc.Arbitrary<{ headers: Record<string, string>; kind: string }> {
  const auth = fc.oneof(
    { weight: 8, arbitrary: fc.constant(authorization) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          'Basic',
          'Basic ',
          'Bearer x',
          'Basic ===',
          `Basic ${Buffer.from('pk_test_x:sk_test_y').toString('base64')}`,
          `basic ${authorization.slice(6)}`,
          `${authorization}x`,
          `Basic ${Buffer.from(':').toString('base64')}`,
        ),
        fc.string({ maxLength: 40 }).map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
        fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      ),
    },
  );
  const type = post
    ? fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'application/json; charset=utf-8',
            'application/json; charset=latin1',
            'APPLICATION/JSON',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json-patch+json',
            'application/jsonx',
            '*/*',
            '',
            'application/json;;;',
            'application/json, text/plain',
          ),
        },
      )
    : fc.constant(undefined);
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', 'k'.repeat(256), 'tab\there', 'a, b', 'é'.normalize('NFD').slice(0, 1) + 'x') },
  );
  const extra = fc.dictionary(
    fc.constantFrom(
      'accept',
      'accept-encoding',
      'accept-language',
      'x-request-id',
      'request-id',
      'x-forwarded-for',
      'origin',
      'sec-fetch-site',
      'user-agent',
      'cookie',
      'if-none-match',
      'range',
      'x-http-method-override',
      'forwarded',
    ),
    fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
      fc.constantFrom('*/*', 'gzip, br', 'cross-site', 'null', 'DELETE', 'bytes=0-1', 'x'.repeat(4000)),
    ),
    { maxKeys: 3 },
  );
  return fc.tuple(auth, type, key, extra).map(([a, t, k, x]) => {
    const headers: Record<string, string> = { ...x, authorization: a };
    if (t !== undefined) headers['content-type'] = t;
    if (k !== undefined) headers['idempotency-key'] = k;
    const kind = [
      a === authorization ? null : 'bad-auth',
      t !== undefined && t !== 'application/json' ? 'content-type' : null,
      k !== undefined ? 'idempotency-key' : null,
      Object.keys(x).length ? 'extra-headers' : null,
    ]
      .filter(Boolean)
      .join('+');
    return { headers, kind };
  });
}

/** Creates whose every field is optional: an empty body is a valid call there (a full API key). */
const ALL_OPTIONAL_CREATES = new Set(['/v1/api_keys']);

/** A present body that no POST route accepts: every alternative is refused before anything runs, or fails validation. */
function postBody(path: string, templates: ReturnType<typeof bodyTemplates>, realId: boolean): fc.Arbitrary<{ body: string | Buffer; kind: string }> {
  const t = templates[path];
  const options: fc.Arbitrary<{ body: string | Buffer; kind: string }>[] = [
    notJson.map((body) => ({ body, kind: 'bad-json' })),
    invalidUtf8.map((body) => ({ body, kind: 'invalid-utf8' })),
    deepJson.map((body) => ({ body, kind: 'deep' })),
    fc
      .oneof(fc.constant(null), fc.array(anyJson, { maxLength: 3 }), fc.integer(), fc.string({ maxLength: 10 }), fc.boolean())
      .map((v) => ({ body: JSON.stringify(v), kind: 'not-an-object' })),
    fc.constantFrom(...LONE_SURROGATES).map((s) => ({ body: `{"merchant_reference":${JSON.stringify(s)},"x_unknown":1}`, kind: 'lone-surrogate' })),
  ];
  if (t) options.push(invalidObject(t.template, t.required).map((v) => ({ body: JSON.stringify(v), kind: 'invalid-object' })));
  else
    options.push(
      fc
        .dictionary(
          fc.string({ minLength: 1, maxLength: 8 }).map((s) => `x_${s}`),
          anyJson,
          { minKeys: 1, maxKeys: 3 },
        )
        .map((v) => ({ body: JSON.stringify(v), kind: 'unknown-fields' })),
    );
  // An empty body is an absent body: refused by the create routes (fields required), but an action
  // on a real record would run; only on ids nobody has, and not on the creates whose fields are all optional.
  if (!realId && !ALL_OPTIONAL_CREATES.has(path)) options.push(fc.constantFrom('', '   ', '\n').map((body) => ({ body, kind: 'empty' })));
  return fc.oneof(...options);
}

function fillPath(url: string, ids: Record<string, string>): string {
  return url.replace(/:([A-Za-z_]+)/g, (_, name: string) => ids[name]);
}

/** Which real record a path parameter of `url` names. */
function realIdFor(url: string, known: Known): string | undefined {
  if (url.includes(':payment_method')) return known.method;
  if (url.includes('/payout_intents/')) return known.payout;
  if (url.includes('/payment_intents/')) return known.payment;
  if (url.includes('/topup_intents/')) return known.topup;
  if (url.includes('/webhook_endpoints/')) return known.endpoint;
  if (url.includes('/events/')) return known.event;
  return undefined;
}

/** Every REST route of the live server (from its route table), malformed. */
export function restCase(routes: Route[], known: Known, authorization: string): fc.Arbitrary<RestCase> {
  const templates = bodyTemplates();
  return fc.constantFrom(...routes).chain((route) => {
    const hasParam = route.url.includes(':');
    const real = realIdFor(route.url, known);
    // A real record may be named by reads, and by POSTs whose body is refused; never by DELETE, never on the checkout pages.
    const mayUseReal = real !== undefined && route.method !== 'DELETE' && !route.url.startsWith('/checkout');
    const idArb = hasParam ? (mayUseReal ? fc.oneof(fc.constant(real), unknownId(known)) : unknownId(known)) : fc.constant('');
    const post = route.method === 'POST';
    return fc.tuple(idArb, queryString, headerSet(authorization, post)).chain(([id, query, { headers, kind: headerKind }]) => {
      const path = fillPath(route.url, { id, token: id, payment_method: id }) + query;
      const base = { method: route.method, path, headers };
      const describe = (what: string) =>
        [route.method, route.url, what, headerKind, query ? 'query' : '', id === real ? 'real-id' : hasParam ? 'unknown-id' : ''].filter(Boolean).join(' ');
      if (!post) {
        // DELETE may carry a body too (it is never a real record).
        if (route.method === 'DELETE') {
          return fc.option(fc.oneof(notJson, deepJson), { nil: undefined }).map((body) => ({
            ...base,
            body,
            headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            kind: describe(body === undefined ? 'no-body' : 'body'),
          }));
        }
        return fc.constant({ ...base, kind: describe('') });
      }
      return postBody(route.url, templates, id === real).map(({ body, kind }) => ({ ...base, body, kind: describe(kind) }));
    });
  });
}

/** Requests Node's HTTP parser or the plumbing sees before any route: raw bytes over a socket. */
export function rawCase(host: string, authorization: string, known: Known): fc.Arbitrary<{ bytes: Buffer; kind: string }> {
  const CRLF = '\r\n';
  const line = (method: string, target: string, version = 'HTTP/1.1') => Buffer.from(`${method} ${target} ${version}${CRLF}`, 'latin1');
  const head = (headers: [string, string | Buffer][]) =>
    Buffer.concat(
      headers.map(([k, v]) => Buffer.concat([Buffer.from(`${k}: `, 'latin1'), Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1'), Buffer.from(CRLF)])),
    );
  const std = (extra: [string, string | Buffer][] = []): [string, string | Buffer][] => [
    ['Host', host],
    ['Authorization', authorization],
    ['Connection', 'close'],
    ...extra,
  ];
  const bytesIn = fc.constantFrom(
    Buffer.from([0xff, 0xfe]),
    Buffer.from([0xc3, 0x28]),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from([0x00]),
    Buffer.from([0x80, 0x81]),
    Buffer.from('é', 'utf8'),
    Buffer.from([0x1b, 0x5b, 0x33, 0x31, 0x6d]),
  );
  const target = fc.constantFrom(
    '/v1/payout_intents',
    `/v1/payout_intents/${known.payout}`,
    '/v1/balances',
    '/graphql',
    '/v1/events',
    '/healthz',
    '/v1/openapi.json',
    '/checkout/x',
  );
  const req = (parts: Buffer[], kind: string) => ({ bytes: Buffer.concat(parts), kind: `raw ${kind}` });
  return fc.oneof(
    // Raw bytes in the path and query.
    fc
      .tuple(target, bytesIn, fc.boolean())
      .map(([t, b, inQuery]) =>
        req([Buffer.from(`GET ${t}${inQuery ? '?q=' : '/'}`, 'latin1'), b, Buffer.from(` HTTP/1.1${CRLF}`), head(std()), Buffer.from(CRLF)], 'bytes-in-path'),
      ),
    // Raw bytes in header values: the credentials, the key, the type, any header.
    fc.tuple(fc.constantFrom('Authorization', 'Idempotency-Key', 'Content-Type', 'X-Fuzz', 'Accept', 'Host'), bytesIn).map(([name, b]) => {
      const all: [string, string | Buffer][] = [
        ...std().filter(([k]) => k !== name),
        [name, Buffer.concat([Buffer.from('a'), b])],
        ['Content-Type', 'application/json'],
        ['Content-Length', '2'],
      ];
      const once = all.filter(([k], i) => all.findIndex(([o]) => o === k) === i);
      return req([line('POST', '/v1/payout_intents'), head(once), Buffer.from(CRLF), Buffer.from('{}')], `bytes-in-header ${name}`);
    }),
    // Invalid UTF-8 and NUL bytes in bodies, with the JSON type.
    fc.tuple(fc.constantFrom('/v1/payout_intents', '/v1/webhook_endpoints', '/graphql', `/v1/payout_intents/${known.payout}/cancel`), bytesIn).map(([t, b]) => {
      // The unknown field makes even a well-formed body a refusal (an action on a real record would run).
      const body = Buffer.concat([Buffer.from('{"reason":"'), b, Buffer.from('","x_unknown":1}')]);
      return req(
        [
          line('POST', t),
          head(
            std([
              ['Content-Type', 'application/json'],
              ['Content-Length', String(body.length)],
              ['Idempotency-Key', `raw-${b.toString('hex')}`],
            ]),
          ),
          Buffer.from(CRLF),
          body,
        ],
        'bytes-in-body',
      );
    }),
    // Repeated single headers, a missing Host, HTTP/1.0, odd versions and methods, odd targets.
    fc.constantFrom(
      req([line('GET', '/v1/balances'), head([...std(), ['Authorization', 'Basic eDp5']]), Buffer.from(CRLF)], 'two-authorizations'),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Idempotency-Key', 'a'], ['Idempotency-Key', 'b'], ['Content-Type', 'application/json'], ['Content-Length', '2']]),
          Buffer.from(CRLF),
          Buffer.from('{}'),
        ],
        'two-keys',
      ),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Content-Type', 'text/plain'], ['Content-Length', '2']]),
          Buffer.from(CRLF),
          Buffer.from('{}'),
        ],
        'two-types',
      ),
      req([line('GET', '/v1/balances'), head([...std(), ['Host', 'other.example']]), Buffer.from(CRLF)], 'two-hosts'),
      req([line('GET', '/v1/balances'), head(std().filter(([k]) => k !== 'Host')), Buffer.from(CRLF)], 'no-host'),
      req([line('GET', '/v1/balances', 'HTTP/1.0'), head(std().filter(([k]) => k !== 'Host')), Buffer.from(CRLF)], 'http-1.0'),
      req([line('GET', '/v1/balances', 'HTTP/2.0'), head(std()), Buffer.from(CRLF)], 'http-2.0'),
      req([line('GET', '/v1/balances', 'HTTP/1.1 x'), head(std()), Buffer.from(CRLF)], 'bad-version'),
      req([line('BREW', '/v1/balances'), head(std()), Buffer.from(CRLF)], 'unknown-method'),
      req([line('GET', '*'), head(std()), Buffer.from(CRLF)], 'asterisk'),
      req([line('OPTIONS', '*'), head(std()), Buffer.from(CRLF)], 'options-asterisk'),
      req([line('GET', 'http://evil.example/v1/balances'), head(std()), Buffer.from(CRLF)], 'absolute-target'),
      req([line('GET', '//v1//balances'), head(std()), Buffer.from(CRLF)], 'double-slashes'),
      req([line('GET', '/v1/../v1/balances'), head(std()), Buffer.from(CRLF)], 'dot-segments'),
      req([line('GET', '/v1/balances'), head([...std(), ['X-Folded', 'a']]), Buffer.from(` b${CRLF}${CRLF}`)], 'obs-fold'),
      req([line('GET', '/v1/balances'), head([...std(), ['Bad Header', 'x']]), Buffer.from(CRLF)], 'bad-header-name'),
      req([line('GET', '/v1/balances'), head([...std(), ['X-Big', 'x'.repeat(20000)]]), Buffer.from(CRLF)], 'header-too-large'),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Content-Length', '2'], ['Transfer-Encoding', 'chunked']]),
          Buffer.from(CRLF),
          Buffer.from(`2${CRLF}{}${CRLF}0${CRLF}${CRLF}`),
        ],
        'cl-and-te',
      ),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']]),
          Buffer.from(CRLF),
          Buffer.from(`zz${CRLF}{}${CRLF}0${CRLF}${CRLF}`),
        ],
        'bad-chunk',
      ),
      req(
        [line('POST', '/v1/payout_intents'), head([...std(), ['Content-Type', 'application/json'], ['Content-Length', '-1']]), Buffer.from(CRLF)],
        'negative-length',
      ),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Content-Length', '1, 2']]),
          Buffer.from(CRLF),
          Buffer.from('{}'),
        ],
        'two-lengths',
      ),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Content-Length', '99999999']]),
          Buffer.from(CRLF),
          Buffer.from('{}'),
        ],
        'length-over-limit',
      ),
      req(
        [
          line('POST', '/v1/payout_intents'),
          head([...std(), ['Content-Type', 'application/json'], ['Expect', 'teapot'], ['Content-Length', '2']]),
          Buffer.from(CRLF),
          Buffer.from('{}'),
        ],
        'expect',
      ),
      req(
        [line('GET', '/graphql'), head([...std(), ['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', '13']]), Buffer.from(CRLF)],
        'bad-upgrade',
      ),
      req([Buffer.from(`GET /v1/balances HTTP/1.1\n${head(std()).toString('latin1').replace(/\r\n/g, '\n')}\n`, 'latin1')], 'bare-lf'),
      req([Buffer.from('\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03', 'latin1')], 'tls-hello'),
      req([Buffer.from(`PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`, 'latin1')], 'h2-preface'),
    ),
  );
}

// ---------------------------------------------------------------- GraphQL over HTTP

export interface GqlCase {
  method: 'GET' | 'POST';
  /** GET: the query string; POST: the body text. */
  payload: string | Buffer;
  headers: Record<string, string>;
  kind: string;
}

const SUBSCRIPTION = 'subscription { events { id type } }';
/** Valid documents whose variables (or literals) are what breaks them. */
const DOCUMENTS = {
  viewer: '{ viewer { merchant { id } environment } }',
  payout: 'query($id: ID!) { payoutIntent(id: $id) { id status amount recipient { holderName accountLast4 } } }',
  payouts:
    'query($first: Int, $after: String, $filter: PayoutIntentFilter) { payoutIntents(first: $first, after: $after, filter: $filter) { nodes { id } pageInfo { hasNextPage endCursor } } }',
  events: 'query($first: Int, $after: String, $filter: EventFilter) { events(first: $first, after: $after, filter: $filter) { nodes { id type } } }',
  options:
    'query($amount: String, $currency: String, $country: String, $mode: CheckoutMode, $provider: String) { paymentMethodOptions(amount: $amount, currency: $currency, country: $country, checkoutMode: $mode, provider: $provider) { nodes { paymentMethod } } }',
  attempts: 'query($id: ID!, $first: Int) { webhookAttempts(webhookEndpointId: $id, first: $first) { nodes { id } } }',
  audit: 'query($first: Int, $filter: AuditLogFilter) { auditLog(first: $first, filter: $filter) { nodes { id } } }',
  createPayout: 'mutation($input: CreatePayoutIntentInput!) { createPayoutIntent(input: $input) { id } }',
  createPayment: 'mutation($input: CreatePaymentIntentInput!) { createPaymentIntent(input: $input) { id } }',
  createTopup: 'mutation($input: CreateTopupIntentInput!) { createTopupIntent(input: $input) { id } }',
  createEndpoint: 'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id secret } }',
  approve: 'mutation($id: ID!) { approvePayoutIntent(id: $id) { id } }',
  cancelPayout: 'mutation($id: ID!, $reason: String) { cancelPayoutIntent(id: $id, reason: $reason) { id } }',
  cancelPayment: 'mutation($id: ID!, $reason: String) { cancelPaymentIntent(id: $id, reason: $reason) { id } }',
  deleteEndpoint: 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) { id } }',
  setting: 'mutation($m: String!, $e: Boolean!) { updatePaymentMethodSetting(paymentMethod: $m, enabled: $e) { paymentMethod } }',
};

/** Amounts the contract refuses (never 0-padded valid ones: "0001" is a valid 1). */
const BAD_AMOUNTS = ['0', '-1', 'abc', '1.5', '', ' ', '１２３', '1'.repeat(31), '1e3', '100x', '0x10', '00'];

/** Variables for each document that cannot be accepted: wrong types, unknown ids, refused values. */
function badVariables(known: Known): fc.Arbitrary<{ doc: keyof typeof DOCUMENTS; variables: unknown }> {
  const id = unknownId(known).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  const realOrUnknown = fc.oneof(fc.constantFrom(known.payout, known.payment, known.endpoint, known.event), id);
  const anyVar = fc.oneof(anyJson, notAString);
  const recipient = fc.record({
    bankCode: fc.oneof(fc.constant('KBANK'), weirdString),
    accountNumber: fc.oneof(fc.constant('1234567890'), weirdString),
    holderName: fc.oneof(fc.constant('Somchai'), weirdString),
  });
  const createIntent = (extra: Record<string, fc.Arbitrary<unknown>>) =>
    fc.record({
      amount: fc.constantFrom(...BAD_AMOUNTS),
      currency: fc.oneof(fc.constant('THB'), weirdString),
      country: fc.oneof(fc.constant('TH'), weirdString),
      merchantReference: weirdString,
      ...extra,
    });
  return fc.oneof(
    fc.record({ doc: fc.constant('viewer' as const), variables: fc.oneof(anyVar, fc.constant(undefined)) }),
    fc.record({
      doc: fc.constantFrom('payout' as const, 'attempts' as const),
      variables: fc.record(
        {
          id: fc.oneof(realOrUnknown, anyVar),
          first: fc.oneof(fc.integer(), fc.constantFrom(2 ** 31, -(2 ** 31) - 1, 1e100, 0, 101), anyVar),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      doc: fc.constantFrom('payouts' as const, 'events' as const, 'audit' as const),
      variables: fc.record(
        {
          first: fc.oneof(fc.integer(), fc.constantFrom(2 ** 31, 1e100, 0, 101, -1), anyVar),
          after: fc.oneof(weirdString, anyVar),
          filter: fc.oneof(
            anyVar,
            fc.record(
              {
                status: fc.oneof(weirdString, fc.array(weirdString, { maxLength: 2 })),
                createdGte: weirdString,
                merchantReference: weirdString,
                types: fc.array(weirdString, { maxLength: 3 }),
                resourceId: weirdString,
              },
              { requiredKeys: [] },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({
      doc: fc.constant('options' as const),
      variables: fc.record(
        {
          amount: fc.oneof(weirdString, fc.constantFrom(...BAD_AMOUNTS), anyVar),
          currency: weirdString,
          country: weirdString,
          mode: fc.oneof(weirdString, fc.constantFrom('HOSTED', 'hosted', 'DIRECT ')),
          provider: weirdString,
        },
        { requiredKeys: [] },
      ),
    }),
    // Creates: the amount is always refused, the rest of any quality.
    fc.record({
      doc: fc.constant('createPayout' as const),
      variables: fc.oneof(fc.record({ input: createIntent({ recipient }) }), fc.record({ input: anyVar })),
    }),
    fc.record({
      doc: fc.constant('createPayment' as const),
      variables: fc.oneof(
        fc.record({
          input: createIntent({
            customer: fc.record({ name: weirdString, email: weirdString }, { requiredKeys: [] }),
            metadata: fc.oneof(anyVar, deepValue),
          }),
        }),
        fc.record({ input: anyVar }),
      ),
    }),
    fc.record({
      doc: fc.constant('createTopup' as const),
      variables: fc.oneof(fc.record({ input: createIntent({}) }), fc.record({ input: anyVar })),
    }),
    fc.record({
      doc: fc.constant('createEndpoint' as const),
      variables: fc.record({
        input: fc.oneof(
          fc.record({
            url: fc.oneof(
              weirdString,
              fc.constantFrom(
                'ftp://example.com/',
                'http://10.0.0.1/hook',
                'http://169.254.169.254/latest',
                'http://[::ffff:10.0.0.1]/',
                'javascript:alert(1)',
                'http://',
                'https://exa mple.com/',
              ),
            ),
            enabledEvents: fc.oneof(
              fc
                .array(
                  weirdString.filter((s) => s !== '*'),
                  { minLength: 1, maxLength: 3 },
                )
                .map((a) => [...a, 'nope.event']),
              anyVar,
            ),
          }),
          anyVar,
        ),
      }),
    }),
    // Actions on records: ids nobody has (an approve of the real payout would run).
    fc.record({ doc: fc.constantFrom('approve' as const, 'deleteEndpoint' as const), variables: fc.record({ id: fc.oneof(id, anyVar) }) }),
    fc.record({
      doc: fc.constantFrom('cancelPayout' as const, 'cancelPayment' as const),
      variables: fc.oneof(
        fc.record({ id, reason: fc.oneof(weirdString, anyVar) }),
        fc.record({ id: fc.constantFrom(known.payout, known.payment), reason: notAString }),
      ),
    }),
    fc.record({
      doc: fc.constant('setting' as const),
      variables: fc.oneof(fc.record({ m: weirdString.map((s) => `zz${s}`), e: fc.boolean() }), fc.record({ m: fc.constant(known.method), e: notABoolean })),
    }),
  );
}

const GQL_TOKENS = [
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ':',
  '$',
  '!',
  '=',
  '@',
  '...',
  '|',
  '&',
  'query',
  'mutation',
  'subscription',
  'fragment',
  'on',
  'viewer',
  'payoutIntent',
  'payoutIntents',
  'approvePayoutIntent',
  'createPayoutIntent',
  'events',
  'id',
  'nodes',
  'input',
  'first',
  '__typename',
  '__schema',
  'types',
  'name',
  '"x"',
  '"""block"""',
  '1',
  '-1',
  '1.5e10',
  'true',
  'null',
  'ENUM',
  '#c\n',
  ',',
  '\u0000',
  '\ufeff',
  'x'.repeat(300),
];

/** GraphQL documents that do not parse, do not validate or exceed a limit. */
const brokenDocument: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.constantFrom(...GQL_TOKENS), { minLength: 1, maxLength: 30 }).map((t) => t.join(' ')),
  fc
    .tuple(fc.constantFrom(...Object.values(DOCUMENTS), SUBSCRIPTION), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([d, at]) => d.slice(0, Math.max(1, Math.floor(d.length * at))))
    .filter((d) => d.length > 0),
  fc.string({ maxLength: 60 }),
  fc.integer({ min: 11, max: 60 }).map((n) => `{ ${'payoutIntents { nodes { '.repeat(n)} id ${'} } '.repeat(n)}}`),
  fc.integer({ min: 700, max: 3000 }).map((n) => `{ ${'__typename '.repeat(n)}}`),
  fc.integer({ min: 16, max: 200 }).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`),
  fc.integer({ min: 21, max: 100 }).map((n) => `{ __typename ${'@include(if: true) '.repeat(n)}}`),
  fc.constantFrom(
    SUBSCRIPTION,
    '{ viewer {',
    '{ viewer }',
    '{ nope }',
    'query A { __typename } query A { __typename }',
    'fragment F on Query { ...F } { ...F }',
    '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } } }',
    '{ payoutIntents(first: 999999999999) { nodes { id } } }',
    '{ payoutIntent(id: 1) { id } }',
    '{ payoutIntent { id } }',
    'mutation { approvePayoutIntent(id: "po_nobody") }',
    'mutation { __typename }',
    `query { payoutIntent(id: "${'\\u0000'}") { id } }`,
    '{ viewer { merchant { id } } } extra',
    '{ a: viewer { id } a: balances { currency } }',
    'query($x: Int = "s") { __typename }',
    'query($x: Nope) { __typename }',
    '{ __typename @skip(if: $undefined) }',
    'query { ...on Mutation { __typename } }',
  ),
);

/** Every malformed GraphQL-over-HTTP request shape. */
export function gqlCase(known: Known, authorization: string): fc.Arbitrary<GqlCase> {
  const headers = fc
    .record({
      auth: fc.oneof({ weight: 9, arbitrary: fc.constant(authorization) }, { weight: 1, arbitrary: fc.constantFrom('', 'Basic eDp5', 'Bearer t') }),
      key: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: fc.constantFrom('', 'k'.repeat(256)) },
      ),
      type: fc.oneof(
        { weight: 9, arbitrary: fc.constant('application/json') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'text/plain',
            'application/graphql',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-16',
            'multipart/form-data',
          ),
        },
      ),
      preflight: fc.boolean(),
    })
    .map(({ auth, key, type, preflight }) => {
      const h: Record<string, string> = { authorization: auth, 'content-type': type };
      if (key !== undefined) h['idempotency-key'] = key;
      if (preflight) h['apollo-require-preflight'] = 'true';
      return h;
    });
  const envelope = fc.oneof(
    // A valid document with variables that are refused.
    badVariables(known).map(({ doc, variables }) => ({ payload: { query: DOCUMENTS[doc], variables }, kind: `variables:${doc}` })),
    // A broken document, with or without variables.
    fc.tuple(brokenDocument, fc.option(anyJson, { nil: undefined })).map(([query, variables]) => ({ payload: { query, variables }, kind: 'document' })),
    // A broken envelope.
    fc
      .oneof(
        fc.record({ query: notAString }, { requiredKeys: [] }),
        fc.record({
          query: fc.constant(DOCUMENTS.viewer),
          variables: fc.oneof(fc.string(), fc.array(anyJson), fc.integer(), fc.boolean()),
        }),
        fc.record({ query: fc.constant(DOCUMENTS.viewer), operationName: notAString }),
        fc.record({
          query: fc.constant('query A { __typename } query B { __typename }'),
          operationName: fc.oneof(weirdString, fc.constant(undefined)),
        }),
        fc.record({
          query: fc.option(fc.constant(DOCUMENTS.viewer), { nil: undefined }),
          extensions: fc.oneof(
            anyJson,
            fc.record({
              persistedQuery: fc.oneof(
                anyJson,
                fc.record({
                  version: fc.oneof(fc.constant(1), anyJson),
                  sha256Hash: fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), weirdString),
                }),
              ),
            }),
          ),
        }),
        fc.array(fc.record({ query: fc.constant(DOCUMENTS.viewer) }), { minLength: 0, maxLength: 3 }),
        fc.constant(SUBSCRIPTION).map((query) => ({ query })),
      )
      .map((payload) => ({ payload, kind: 'envelope' })),
  );
  const post = fc
    .tuple(
      envelope,
      headers,
      fc.oneof({ weight: 9, arbitrary: fc.constant('json') }, { weight: 1, arbitrary: fc.constantFrom('not-json', 'deep', 'invalid-utf8') }),
      notJson,
      deepJson,
      invalidUtf8,
    )
    .map(([{ payload, kind }, h, form, nj, deep, bad]): GqlCase => {
      const text = form === 'json' ? JSON.stringify(payload) : form === 'not-json' ? nj : form === 'deep' ? deep : bad;
      return { method: 'POST', payload: text, headers: h, kind: `POST ${form === 'json' ? kind : form}` };
    });
  const get = fc.tuple(envelope, headers).map(([{ payload, kind }, h]): GqlCase => {
    const p = payload as Record<string, unknown>;
    const params = new URLSearchParams();
    if (Array.isArray(payload)) params.set('query', JSON.stringify(payload));
    else for (const [k, v] of Object.entries(p)) if (v !== undefined) params.set(k, typeof v === 'string' ? wellFormed(v) : (JSON.stringify(v) ?? ''));
    const { 'content-type': _type, ...rest } = h;
    return { method: 'GET', payload: params.toString(), headers: rest, kind: `GET ${kind}` };
  });
  const getRaw = fc
    .constantFrom(
      '',
      'query',
      'query=',
      'query=%7B',
      'variables=%7B',
      'query=%7B__typename%7D&variables=%7B',
      'query=%7B__typename%7D&extensions=x',
      'query=mutation%7B__typename%7D',
      'query=%7B__typename%7D&query=%7Bviewer%7Bid%7D%7D',
      'query=%ff',
      'query=%ED%A0%80',
      'query=%00',
    )
    .map((q): GqlCase => ({ method: 'GET', payload: q, headers: { authorization }, kind: 'GET raw-params' }));
  return fc.oneof({ weight: 6, arbitrary: post }, { weight: 3, arbitrary: get }, { weight: 1, arbitrary: getRaw });
}

// ---------------------------------------------------------------- graphql-ws

export type WsFrame = { text: string } | { binary: Buffer };

export interface WsCase {
  protocol: string | undefined;
  frames: WsFrame[];
  kind: string;
}

/**
 * A graphql-ws session that goes wrong: an init (usually valid, waited for), then messages
 * the server answers and survives (subscribes with bad documents or variables, completes,
 * pings), then at most one it closes the connection for (not JSON, not a message, binary,
 * too big, a type only servers send, a second init, a bad or repeated subscribe id).
 */
export function wsCase(known: Known, authorization: string): fc.Arbitrary<WsCase> {
  const j = (v: unknown) => ({ text: JSON.stringify(v) });
  const validInit = j({ type: 'connection_init', payload: { authorization } });
  const badInit = fc
    .oneof(
      fc.constant(undefined),
      anyJson,
      fc.record({ authorization: fc.oneof(notAString, weirdString, fc.constantFrom('Basic eDp5', `${authorization}x`, '')) }),
    )
    .map((payload) => j({ type: 'connection_init', payload }));
  const subscribePayload = fc.oneof(
    fc.record({ query: brokenDocument }),
    fc.record({
      query: fc.constantFrom(DOCUMENTS.viewer, DOCUMENTS.createPayout, DOCUMENTS.approve),
      variables: fc.constant({ id: 'po_nobody', input: {} }),
    }),
    fc.record({
      query: fc.constant('subscription($t: [String!], $a: String) { events(types: $t, after: $a) { id } }'),
      variables: fc.record(
        {
          t: fc.oneof(fc.array(weirdString, { maxLength: 3 }), anyJson),
          a: fc.oneof(weirdString, fc.constantFrom(`${known.event}x`, known.payout), anyJson),
        },
        { requiredKeys: [] },
      ),
    }),
    fc.record({ query: fc.constant(SUBSCRIPTION), operationName: fc.oneof(weirdString, notAString) }),
    fc.record({ query: fc.constant('subscription A { events { id } } subscription B { events { id } }') }),
  );
  const subId = fc.oneof(
    fc.constantFrom('s1', 's2', 's3'),
    weirdString.filter((s) => s !== ''),
  );
  const survivable = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(subId, subscribePayload).map(([id, payload]) => j({ type: 'subscribe', id, payload })) },
    { weight: 1, arbitrary: subId.map((id) => j({ type: 'complete', id })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('ping', 'pong'),
          fc.oneof(
            fc.constant(undefined),
            anyJson.filter((v) => v === null || (typeof v === 'object' && !Array.isArray(v))),
          ),
        )
        .map(([type, payload]) => j({ type, payload })),
    },
  );
  const fatal = fc.oneof(
    notJson.map((text) => ({ text })),
    fc.oneof(anyJson, fc.record({ type: anyJson })).map((v) => j(v)),
    deepJson.map((text) => ({ text })),
    fc.uint8Array({ minLength: 0, maxLength: 64 }).map((b) => ({ binary: Buffer.from(b) })),
    fc.constant({ text: 'x'.repeat(70 * 1024) }),
    fc.constantFrom('connection_ack', 'next', 'error', 'nope', '', 'SUBSCRIBE').map((type) => j({ type, id: 's1', payload: {} })),
    fc.constant(validInit),
    fc.tuple(fc.oneof(notAString, fc.constant('')), subscribePayload).map(([id, payload]) => j({ type: 'subscribe', id, payload })),
    fc.constant(j({ type: 'subscribe', id: 'dup', payload: { query: SUBSCRIPTION } })).map((f) => [f, f]),
  );
  return fc
    .tuple(
      fc.oneof({ weight: 12, arbitrary: fc.constant('graphql-transport-ws') }, { weight: 1, arbitrary: fc.constantFrom(undefined, 'graphql-ws', 'nope') }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant([validInit]) },
        { weight: 1, arbitrary: badInit.map((f) => [f]) },
        { weight: 1, arbitrary: fc.constant([] as WsFrame[]) },
      ),
      fc.array(survivable, { minLength: 0, maxLength: 6 }),
      fc.option(fatal, { nil: undefined, freq: 2 }),
    )
    .map(([protocol, start, middle, end]) => {
      const last = end === undefined ? [] : Array.isArray(end) ? end : [end];
      const frames = [...start, ...middle, ...last];
      const kind = `${protocol ?? 'no-protocol'} ${start.length === 0 ? 'no-init' : start[0] === validInit ? 'init' : 'bad-init'}${last.length ? ' fatal' : ''}`;
      return { protocol, frames: frames.length ? frames : [j({ type: 'ping' })], kind };
    });
}
