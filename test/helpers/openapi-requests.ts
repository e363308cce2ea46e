/**
 * Requests generated from an OpenAPI 3.1 document, for the outside conformance test
 * (test/contract/openapi-conformance.test.ts). Everything here reads the document only:
 *
 *  - `sample(schema, mode)`: a value the schema accepts. Modes: `min` (required fields
 *    only, shortest strings, lowest numbers), `full` (every field, plain values), `max`
 *    (every field, longest strings and highest numbers), `random` (every field, random
 *    values from a seeded generator). Strings with a `pattern` come from randexp; every
 *    candidate is checked with Ajv against its own schema before it is used.
 *  - `violations(schema, base)`: one broken copy of `base` per rule of the schema, each
 *    with the dot path the answer's `param` must name: a missing required field, a wrong
 *    type, too long, too short, a pattern break, a bad enum, an unknown field, a number
 *    out of range.
 *
 * Combinators the generator cannot break precisely (oneOf/anyOf with several object
 * branches, not) are reported in `unchecked` so the test can print them: nothing is
 * skipped silently.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { COUNTRIES, CURRENCY_MINOR_UNITS } from '../../src/domain/iso-codes';
import RandExp from 'randexp';

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

/**
 * A RandExp for `pattern`, one per pattern and character range (`ascii`: printable ASCII only,
 * else randexp's default range), with each character set expanded once: randexp expands a set
 * (`\S`, `[^...]`) against the whole range again for every character it draws, which was most
 * of the conformance test's time. The expansion depends only on the set and the range, so the
 * strings drawn are the same.
 */
const generators = new Map<string, RandExp>();
function randExpFor(pattern: string, ascii: boolean): RandExp {
  const key = `${ascii ? 'ascii' : 'wide'} ${pattern}`;
  let r = generators.get(key);
  if (!r) {
    r = new RandExp(pattern);
    const internals = r as unknown as { defaultRange: { subtract(a: number, b: number): void }; _expand(token: object): unknown };
    if (ascii) {
      internals.defaultRange.subtract(0, 31);
      internals.defaultRange.subtract(127, 0xffff);
    }
    const expand = internals._expand.bind(r);
    const expanded = new Map<object, unknown>();
    internals._expand = (token) => {
      if (!expanded.has(token)) expanded.set(token, expand(token));
      return expanded.get(token);
    };
    generators.set(key, r);
  }
  return r;
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
  readonly unchecked = new Set<string>();

  constructor(
    readonly doc: Schema,
    private readonly rng: () => number = seeded(9),
  ) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    // The service's own formats: codes from its supported tables, matched as it normalises them.
    this.ajv.addFormat('currency-code', { type: 'string', validate: (v: string) => CURRENCY_MINOR_UNITS.has(v.trim().toUpperCase()) });
    this.ajv.addFormat('text', { type: 'string', validate: (v: string) => !/[\u0000-\u001f\u007f-\u009f]/.test(v) });
    this.ajv.addFormat('country-code', { type: 'string', validate: (v: string) => COUNTRIES.has(v.trim().toUpperCase()) });
    this.ajv.addSchema({ $id: this.base, components: doc.components ?? {} });
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
    const key = JSON.stringify(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile(this.absolute(schema) as Schema);
      this.cache.set(key, fn);
    }
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
    else if (s.format === 'currency-code') candidates.push('THB', 'USD', 'JPY', ' thb ', 'USDC');
    else if (s.format === 'country-code') candidates.push('TH', 'ID', ' th ');
    else if (s.pattern) {
      const gen = (randInt: (a: number, b: number) => number, repeat: number) => {
        const r = randExpFor(s.pattern as string, true);
        r.max = repeat;
        (r as unknown as { randInt: typeof randInt }).randInt = randInt;
        return r.gen();
      };
      candidates.push(
        gen((a) => a, 0),
        gen((a, b) => Math.min(b, a + 1), 1),
        gen((_a, b) => b, max),
      );
      for (let i = 0; i < 12; i++) candidates.push(gen((a, b) => a + Math.floor(this.rng() * (b - a + 1)), 4));
      // Unanchored patterns match longer strings too.
      if (!s.pattern.endsWith('$')) candidates.push(...candidates.map((c) => c + 'x'.repeat(Math.max(0, max - c.length))));
      if (!s.pattern.startsWith('^')) candidates.push(...candidates.map((c) => 'x'.repeat(Math.max(0, max - c.length)) + c));
    } else {
      candidates.push(FILL.repeat(max).slice(0, min), 'value', FILL.repeat(max).slice(0, max), 'x'.repeat(Math.max(min, 1)));
    }
    let ok = [...new Set(candidates)].filter((c) => this.valid(s, c));
    if (ok.length === 0 && s.pattern) {
      // A pattern outside printable ASCII (Thai script): let randexp use the whole range.
      const r = randExpFor(s.pattern as string, false);
      const wide = Array.from({ length: 20 }, () => r.gen());
      ok = [...new Set(wide)].filter((c) => this.valid(s, c));
    }
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
        const candidates = ['!', '  ', '', 'x y', '#$%&', '-', '\u00e9', 'A'.repeat(40), '1', 'zz', seedText + '!', '!' + seedText];
        const broken = candidates.find((c) => [...c].length >= (s.minLength ?? 0) && [...c].length <= limit && !new RegExp(s.pattern, 'u').test(c));
        if (broken !== undefined) put('pattern', broken);
        else this.unchecked.add(`${param}: no string breaking ${s.pattern}`);
      }
      if (s.format === 'text') put('format', `${seedText}\u0000`);
      else if (s.format && s.format !== 'uri' && s.format !== 'email') put('format', 'not-a-' + s.format);
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
  const obj = (value && typeof value === 'object' ? { ...(value as Record<string, unknown>) } : {}) as Record<string, unknown>;
  obj[head] = setAt(obj[head], rest, leaf);
  return obj;
}
