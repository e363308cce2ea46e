/**
 * Requests generated from an OpenAPI 3.1 document, for the outside conformance test
 * (test/contract/openapi-conformance.test.ts). Everything here reads the document only:
 *
 *  - `sample(schema, mode)`: a value the schema accepts. Modes: `min` (required fields
 *    only, shortest strings, lowest numbers), `full` (every field, plain values), `max`
 *    (every field, longest strings and highest numbers), `random` (every field, random
 *    values). Strings come from json-schema-faker (npm, run in a child process by `prepare`:
 *    test/helpers/schema-faker.child.ts) with a fixed seed, besides the document's `examples`
 *    and plain boundary values; every candidate is checked with Ajv against its own schema
 *    before it is used. `faked(key)` gives whole values json-schema-faker made of a schema.
 *  - `violations(schema, base)`: one broken copy of `base` per rule of the schema, each
 *    with the dot path the answer's `param` must name: a missing required field, a wrong
 *    type, too long, too short, a pattern break, a bad enum, an unknown field, a number
 *    out of range.
 *
 * Combinators the generator cannot break precisely (oneOf/anyOf with several object
 * branches, not) are reported in `unchecked` so the test can print them: nothing is
 * skipped silently.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export type Schema = Record<string, any>;
export type Mode = 'min' | 'full' | 'max' | 'random';

export interface Violation {
  /** What was broken, for the report: `maxLength`, `required`, `type`... */
  rule: string;
  /** The dot path of the offending field (`recipient.bank_code`), or `body` for the root. */
  param: string;
  value: unknown;
}

const UNKNOWN = 'zz_unknown_field';
/** Characters of strings with no pattern: not all ASCII, so lengths are counted in characters. */
const FILL = 'กx';
/** json-schema-faker's samples of each string schema of the document. */
const STRING_SAMPLES = 12;

/** A job for json-schema-faker: `count` samples of `schema`, seeds from `seed` on. */
export interface FakerJob {
  key: string;
  schema: unknown;
  count: number;
  seed: number;
}

/** Runs json-schema-faker on `jobs` in a child process (it is ESM-only); `$ref`s resolve against `root`. */
export function runFaker(root: Schema, jobs: FakerJob[]): Promise<{ samples: Record<string, unknown[]>; errors: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(__dirname, 'schema-faker.child.js')],
      { maxBuffer: 512 * 1024 * 1024, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`json-schema-faker failed: ${err.message} ${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
    child.stdin!.end(JSON.stringify({ root, jobs }));
  });
}

/** A small seeded generator (mulberry32), so runs are reproducible. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class OpenApiSchemas {
  readonly ajv: Ajv2020;
  private readonly base = 'https://conformance.invalid/openapi.json';
  private readonly cache = new Map<string, ReturnType<Ajv2020['compile']>>();
  private readonly bySchema = new WeakMap<Schema, ReturnType<Ajv2020['compile']>>();
  readonly unchecked = new Set<string>();

  constructor(
    readonly doc: Schema,
    private readonly rng: () => number = seeded(9),
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    // Only the standard formats: a format the document does not define is an error here.
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: this.base, components: doc.components ?? {} });
  }

  /** Whole values and strings json-schema-faker made (`prepare`), by key. */
  private readonly generated = new Map<string, unknown[]>();
  readonly fakerErrors = new Map<string, string>();

  /**
   * Asks json-schema-faker (once, in a child process) for samples of every string schema of
   * the document and for `jobs` (whole bodies and parameters, by the caller's keys).
   */
  async prepare(jobs: FakerJob[], seed: number): Promise<void> {
    const strings = new Map<string, Schema>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        const o = v as Schema;
        if (o.type === 'string' || (Array.isArray(o.type) && o.type.includes('string'))) strings.set(JSON.stringify(o), o);
        Object.values(o).forEach(walk);
      }
    };
    walk(this.doc);
    const all: FakerJob[] = [
      ...jobs,
      ...[...strings].map(([key, schema], i) => ({ key: `string:${key}`, schema, count: STRING_SAMPLES, seed: seed + i * 100 })),
    ];
    const { samples, errors } = await runFaker({ components: this.doc.components ?? {} }, all);
    for (const [key, list] of Object.entries(samples)) this.generated.set(key, list);
    for (const [key, message] of Object.entries(errors)) this.fakerErrors.set(key, message);
  }

  /** json-schema-faker's samples for a key given to `prepare`. */
  faked(key: string): unknown[] {
    return this.generated.get(key) ?? [];
  }

  /** `schema` with `#/...` references made absolute to the document. */
  private absolute(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.absolute(s));
    if (!schema || typeof schema !== 'object') return schema;
    const out: Schema = {};
    for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? this.base + v : this.absolute(v);
    return out;
  }

  validator(schema: Schema): ReturnType<Ajv2020['compile']> {
    // By the schema object first: writing a large schema out as the key was a tenth of this
    // file's CPU, for every candidate value checked.
    let fn = this.bySchema.get(schema);
    if (fn) return fn;
    const key = JSON.stringify(schema);
    fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(this.absolute(schema) as Schema);
      this.cache.set(key, fn);
    }
    this.bySchema.set(schema, fn);
    return fn;
  }

  valid(schema: Schema, value: unknown): boolean {
    return this.validator(schema)(value) as boolean;
  }

  /** Follows `$ref`s (the referring schema's own keywords win) and merges `allOf`. */
  resolve(schema: Schema | undefined): Schema {
    let s: Schema = schema ?? {};
    for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
      const { $ref, ...rest } = s;
      const target = $ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
      if (!target) throw new Error(`unresolved reference ${$ref}`);
      s = { ...target, ...rest };
    }
    if (Array.isArray(s.allOf)) {
      const parts = s.allOf.map((p: Schema) => this.resolve(p));
      const { allOf: _allOf, ...rest } = s;
      s = parts.reduce(
        (acc: Schema, p: Schema) => ({
          ...acc,
          ...p,
          properties: { ...(acc.properties ?? {}), ...(p.properties ?? {}) },
          required: [...(acc.required ?? []), ...(p.required ?? [])],
        }),
        rest,
      );
    }
    return s;
  }

  /** The types a schema allows (`type` may be a list); undefined when it says nothing. */
  static types(s: Schema): string[] | undefined {
    if (Array.isArray(s.type)) return s.type;
    if (typeof s.type === 'string') return [s.type];
    if (s.enum)
      return [
        ...new Set(
          s.enum.map((v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v)),
        ),
      ] as string[];
    if ('const' in s) return [s.const === null ? 'null' : typeof s.const];
    if (s.properties) return ['object'];
    return undefined;
  }

  /** The branches of an anyOf/oneOf, null branches last. */
  private branches(s: Schema): Schema[] | undefined {
    const list = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (!list) return undefined;
    const resolved = list.map((b) => this.resolve(b));
    return [
      ...resolved.filter((b) => !OpenApiSchemas.types(b)?.every((t) => t === 'null')),
      ...resolved.filter((b) => OpenApiSchemas.types(b)?.every((t) => t === 'null')),
    ];
  }

  // ------------------------------------------------------------------ valid values

  sample(schema: Schema | undefined, mode: Mode, where = ''): unknown {
    const s = this.resolve(schema);
    const value = this.sampleResolved(s, mode, where);
    return value;
  }

  private sampleResolved(s: Schema, mode: Mode, where: string): unknown {
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) {
      const choices = s.enum.filter((v: unknown) => v !== null);
      if (choices.length === 0) return null;
      return mode === 'max' ? choices[choices.length - 1] : mode === 'random' ? choices[Math.floor(this.rng() * choices.length)] : choices[0];
    }
    if ('default' in s && mode === 'full') return s.default;
    const branches = this.branches(s);
    if (branches) return this.sample(branches[0], mode, where);
    const types = OpenApiSchemas.types(s)?.filter((t) => t !== 'null');
    const type = types?.[0];
    switch (type) {
      case 'object':
        return this.sampleObject(s, mode, where);
      case 'array': {
        const n = mode === 'min' ? (s.minItems ?? 0) : Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 2, mode === 'max' ? (s.maxItems ?? 2) : 1));
        return Array.from({ length: n }, (_, i) => this.sample(s.items, mode, `${where}[${i}]`));
      }
      case 'integer':
      case 'number':
        return this.sampleNumber(s, mode, type);
      case 'boolean':
        return mode !== 'min';
      case 'string':
        return this.sampleString(s, mode, where);
      case undefined:
        // No constraint at all (for example a field "accepted and ignored"): any JSON value.
        return mode === 'min' ? undefined : 'x';
      default:
        return null;
    }
  }

  private sampleObject(s: Schema, mode: Mode, where: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set<string>(s.required ?? []);
    for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      if (mode === 'min' && !required.has(name)) continue;
      const v = this.sample(prop, mode, where ? `${where}.${name}` : name);
      if (v !== undefined) out[name] = v;
    }
    const extra = s.additionalProperties;
    if (extra && typeof extra === 'object' && mode !== 'min' && !s.properties) {
      const names = s.propertyNames ? this.sampleString(this.resolve(s.propertyNames), 'full', `${where} key`) : 'key_1';
      out[names] = this.sample(extra, mode, `${where}.${names}`);
    }
    return this.valid(s, out) ? out : this.repairObject(s, out, required, where);
  }

  /**
   * Rules across fields (`not`, `if`/`then`: "at least one of", "omit X when Y") are not
   * sampled field by field: drop one optional field, or add one, until the object is valid.
   */
  private repairObject(s: Schema, out: Record<string, unknown>, required: Set<string>, where: string): Record<string, unknown> {
    const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
    for (const [name] of props) {
      if (required.has(name) || !(name in out)) continue;
      const copy = { ...out };
      delete copy[name];
      if (this.valid(s, copy)) return copy;
    }
    for (const [name, prop] of props) {
      if (name in out) continue;
      const copy = { ...out, [name]: this.sample(prop, 'full', where ? `${where}.${name}` : name) };
      if (this.valid(s, copy)) return copy;
    }
    this.unchecked.add(`${where || 'body'}: no object found satisfying the rules across its fields`);
    return out;
  }

  private sampleNumber(s: Schema, mode: Mode, type: string): number {
    const step = type === 'integer' ? 1 : 0.5;
    const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + step : 0);
    const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - step : Math.max(lo, 1000));
    if (mode === 'min') return lo;
    if (mode === 'max') return hi;
    if (mode === 'full') return Math.min(hi, Math.max(lo, 1));
    const v = lo + this.rng() * (hi - lo);
    return type === 'integer' ? Math.round(v) : v;
  }

  /** A string the schema accepts: the shortest (`min`), longest (`max`), plainest or a random one. */
  sampleString(s: Schema, mode: Mode, where: string): string {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? (s.pattern ? 64 : Math.max(min, 24));
    const candidates: string[] = [];
    // A value that depends on the clock or on another field ("in the future", "after
    // interval_start") documents `examples`: those are the valid values to send.
    if (Array.isArray(s.examples) && s.examples.length > 0) candidates.push(...(s.examples as string[]));
    else if (s.format === 'date-time') candidates.push(new Date().toISOString(), '2020-01-01T00:00:00Z', '2031-12-31T23:59:59.999Z');
    else if (s.format === 'date') candidates.push('2024-02-29');
    else if (s.format === 'email') candidates.push('a@example.com', 'somchai.jaidee@example.co.th');
    else if (s.format === 'uri' || s.format === 'url') candidates.push('https://example.com/hooks', 'https://example.com/a');
    else if (s.format === 'uuid') candidates.push('0f8fad5b-d9cb-469f-a165-70867728950e');
    else if (!s.pattern) candidates.push(FILL.repeat(max).slice(0, min), 'value', FILL.repeat(max).slice(0, max), 'x'.repeat(Math.max(min, 1)));
    // json-schema-faker's strings for this schema (it follows patterns and formats).
    const faked = this.faked(`string:${JSON.stringify(s)}`).filter((v): v is string => typeof v === 'string');
    candidates.push(...faked);
    const ok = [...new Set(candidates)].filter((c) => this.valid(s, c));
    if (ok.length === 0) {
      this.unchecked.add(
        `${where || 'value'}: no string found for ${JSON.stringify({ pattern: s.pattern, format: s.format, minLength: s.minLength, maxLength: s.maxLength })}`,
      );
      return 'x'.repeat(Math.max(min, 1));
    }
    const byLength = [...ok].sort((a, b) => [...a].length - [...b].length);
    if (mode === 'min') return byLength[0];
    if (mode === 'max') return byLength[byLength.length - 1];
    if (mode === 'full') return ok.find((c) => c.trim() === c && c.length > 0) ?? ok[0];
    return ok[Math.floor(this.rng() * ok.length)];
  }

  // ------------------------------------------------------------------ violations

  /** One broken copy of `base` (a valid value of `schema`) per rule; `root` names the whole value. */
  violations(schema: Schema | undefined, base: unknown, root: string): Violation[] {
    const out: Violation[] = [];
    this.breakAt(this.resolve(schema), [], base, root, out);
    return out;
  }

  private breakAt(s: Schema, path: string[], base: unknown, root: string, out: Violation[]): void {
    const param = path.length ? path.join('.') : root;
    const put = (rule: string, value: unknown) => out.push({ rule, param, value: setAt(base, path, value) });
    const wrongTypeFor = (types: string[] | undefined): unknown => {
      if (!types) return undefined;
      if (!types.includes('string')) return 'not-a-' + types[0];
      if (!types.includes('integer') && !types.includes('number')) return 12345;
      if (!types.includes('object')) return { not: 'this' };
      return undefined;
    };

    const branches = this.branches(s);
    if (branches) {
      const allowed = branches.flatMap((b) => OpenApiSchemas.types(b) ?? ['any']);
      const wrong = allowed.includes('any') ? undefined : wrongTypeFor(allowed);
      if (wrong !== undefined) put('type', wrong);
      const first = branches[0];
      const rest = branches.slice(1);
      // Ajv reports the first branch's first error: break inside it only when the others are null.
      if (rest.every((b) => OpenApiSchemas.types(b)?.every((t) => t === 'null'))) this.breakAt(first, path, base, root, out);
      else this.unchecked.add(`${param}: ${s.anyOf ? 'anyOf' : 'oneOf'} with several non-null branches, only its type is broken`);
      return;
    }
    if (s.not) this.unchecked.add(`${param}: "not" is not broken`);
    if (Array.isArray(s.enum) || 'const' in s) {
      const allowed = Array.isArray(s.enum) ? s.enum : [s.const];
      if (!allowed.includes('zz_not_a_value')) put(Array.isArray(s.enum) ? 'enum' : 'const', 'zz_not_a_value');
      return;
    }
    const types = OpenApiSchemas.types(s);
    if (!types) return; // anything goes
    const wrong = wrongTypeFor(types);
    if (wrong !== undefined) put('type', wrong);
    if (types.includes('string')) {
      const valid = getAt(base, path);
      const seedText = typeof valid === 'string' && valid.length > 0 ? valid : 'x';
      if (s.maxLength !== undefined) {
        // Too long but otherwise as valid as possible: repeat the valid value's tail, or pad.
        const long = [seedText + seedText.slice(-1).repeat(s.maxLength), 'x'.repeat(s.maxLength + 1), '1'.repeat(s.maxLength + 1)].find(
          (c) => [...c].length > s.maxLength,
        );
        put('maxLength', long);
      }
      if ((s.minLength ?? 0) > 0) put('minLength', [...seedText].slice(0, s.minLength - 1).join(''));
      if (s.pattern) {
        const limit = s.maxLength ?? Infinity;
        const candidates = [
          '!',
          '  ',
          '',
          'x y',
          '#$%&',
          '-',
          '\u00e9',
          'A'.repeat(40),
          '1',
          'zz',
          seedText + '!',
          '!' + seedText,
          `${seedText}\u0000`,
          `${seedText}\t`,
        ];
        const broken = candidates.find((c) => [...c].length >= (s.minLength ?? 0) && [...c].length <= limit && !new RegExp(s.pattern, 'u').test(c));
        if (broken !== undefined) put('pattern', broken);
        else this.unchecked.add(`${param}: no string breaking ${s.pattern}`);
      }
      if (s.format && s.format !== 'uri' && s.format !== 'email') put('format', 'not-a-' + s.format);
      else if (s.format === 'email') put('format', 'not an email');
      else if (s.format === 'uri') put('format', 'not a uri');
    }
    if (types.includes('integer') || types.includes('number')) {
      if (s.minimum !== undefined) put('minimum', s.minimum - 1);
      if (s.maximum !== undefined) put('maximum', s.maximum + 1);
      if (s.exclusiveMinimum !== undefined) put('exclusiveMinimum', s.exclusiveMinimum);
      if (s.exclusiveMaximum !== undefined) put('exclusiveMaximum', s.exclusiveMaximum);
      if (types.includes('integer') && !types.includes('number')) put('type', 1.5);
    }
    if (types.includes('array') && s.maxItems !== undefined) {
      const v = getAt(base, path);
      const item = Array.isArray(v) && v.length ? v[0] : this.sample(s.items, 'full');
      put(
        'maxItems',
        Array.from({ length: s.maxItems + 1 }, () => item),
      );
    }
    if (types.includes('array') && s.items) {
      // Inside the first item. An object item keeps its index in `param` (`items.0.amount`); the item
      // itself, or an item that is a plain value, is reported as the list (`enabled_events`).
      const v = getAt(base, path);
      if (Array.isArray(v) && v.length > 0) {
        const inner: Violation[] = [];
        this.breakAt(this.resolve(s.items), [...path, '0'], base, root, inner);
        const itemParam = [...path, '0'].join('.');
        const objectItem = (OpenApiSchemas.types(this.resolve(s.items)) ?? []).includes('object');
        for (const x of inner) out.push(x.param === itemParam || !objectItem ? { ...x, param } : x);
      }
    }
    if (types.includes('object')) {
      const value = getAt(base, path);
      if (!value || typeof value !== 'object' || Array.isArray(value)) return;
      for (const name of s.required ?? []) {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[name];
        out.push({ rule: 'required', param: [...path, name].join('.'), value: setAt(base, path, copy) });
      }
      if (s.additionalProperties === false) {
        out.push({
          rule: 'additionalProperties',
          param: [...path, UNKNOWN].join('.'),
          value: setAt(base, path, { ...value, [UNKNOWN]: 'x' }),
        });
      }
      if (s.maxProperties !== undefined) this.unchecked.add(`${param}: maxProperties is not broken`);
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        if (!(name in value)) continue;
        this.breakAt(this.resolve(prop), [...path, name], base, root, out);
      }
    }
  }
}

function getAt(value: unknown, path: string[]): unknown {
  return path.reduce((v: any, k) => (v == null ? undefined : v[k]), value);
}

/** A copy of `value` with `path` set to `leaf` (deep copy along the path only). */
export function setAt(value: unknown, path: string[], leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const list = [...(value as unknown[])];
    list[Number(head)] = setAt(list[Number(head)], rest, leaf);
    return list;
  }
  const obj = (value && typeof value === 'object' ? { ...(value as Record<string, unknown>) } : {}) as Record<string, unknown>;
  obj[head] = setAt(obj[head], rest, leaf);
  return obj;
}
