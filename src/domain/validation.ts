/**
 * A small reader over untrusted JSON objects. Each accessor validates one field and
 * throws `validation_error` naming the field's full path (`recipient.bank_code`);
 * `end()` rejects fields nobody read, so typos are caught instead of ignored.
 */
import { ApiError } from './errors';
import { parseAmount } from './money';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const COUNTRY = /^[A-Z]{2}$/;
export const CURRENCY = /^[A-Z]{3,6}$/;

/** Fields accepted anywhere and ignored: the API key alone decides the environment. */
const IGNORED_ROOT_FIELDS = new Set(['environment']);

export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Length in Unicode code points, which is what "characters" means to a person. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

interface StringRule {
  max?: number;
  min?: number;
  pattern?: RegExp;
  /** Applied before the pattern check; its result is what the caller gets. */
  normalise?: (v: string) => string;
  describe?: string;
}

export class FieldReader {
  private readonly seen = new Set<string>();

  private constructor(
    private readonly obj: JsonObject,
    private readonly prefix: string,
  ) {}

  static body(value: unknown): FieldReader {
    if (!isPlainObject(value)) throw ApiError.validation('body', 'The request body must be a JSON object.');
    return new FieldReader(value, '');
  }

  /** An optional body: absent (`undefined`) reads as `{}`; present, it must be an object (`null` is refused). */
  static optionalBody(value: unknown): FieldReader {
    return FieldReader.body(value === undefined ? {} : value);
  }

  path(name: string): string {
    return this.prefix ? `${this.prefix}.${name}` : name;
  }

  has(name: string): boolean {
    return this.obj[name] !== undefined && this.obj[name] !== null;
  }

  raw(name: string): Json | undefined {
    this.seen.add(name);
    return this.obj[name];
  }

  optionalString(name: string, rule: StringRule = {}): string | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    return this.check(name, value, rule);
  }

  string(name: string, rule: StringRule = {}): string {
    const value = this.raw(name);
    if (value === undefined || value === null) throw ApiError.validation(this.path(name), `${this.path(name)} is required.`);
    return this.check(name, value, rule);
  }

  object(name: string): FieldReader {
    const value = this.raw(name);
    if (value === undefined || value === null) throw ApiError.validation(this.path(name), `${this.path(name)} is required.`);
    return this.nested(name, value);
  }

  optionalObject(name: string): FieldReader | undefined {
    const value = this.raw(name);
    if (value === undefined || value === null) return undefined;
    return this.nested(name, value);
  }

  /** A flat map of string keys to string values (metadata). */
  optionalStringMap(name: string, limits = { keys: 50, keyLength: 40, valueLength: 500 }): Record<string, string> | undefined {
    const reader = this.optionalObject(name);
    if (!reader) return undefined;
    const entries = Object.entries(reader.obj);
    if (entries.length > limits.keys) throw ApiError.validation(this.path(name), `${this.path(name)} has more than ${limits.keys} keys.`);
    const out: Record<string, string> = {};
    for (const [key, value] of entries) {
      const p = `${this.path(name)}.${key}`;
      if (charLength(key) > limits.keyLength || key.length === 0) throw ApiError.validation(p, `Metadata keys must be 1 to ${limits.keyLength} characters.`);
      if (typeof value !== 'string') throw ApiError.validation(p, `${p} must be a string.`);
      if (charLength(value) > limits.valueLength) throw ApiError.validation(p, `${p} must be at most ${limits.valueLength} characters.`);
      out[key] = value;
    }
    return out;
  }

  /** Rejects every field that no accessor read. */
  end(): void {
    for (const key of Object.keys(this.obj)) {
      if (this.seen.has(key)) continue;
      if (this.prefix === '' && IGNORED_ROOT_FIELDS.has(key)) continue;
      throw ApiError.validation(this.path(key), `Unknown field ${this.path(key)}.`);
    }
  }

  private nested(name: string, value: Json): FieldReader {
    if (!isPlainObject(value)) throw ApiError.validation(this.path(name), `${this.path(name)} must be an object.`);
    return new FieldReader(value, this.path(name));
  }

  private check(name: string, value: Json, rule: StringRule): string {
    const p = this.path(name);
    if (typeof value !== 'string') throw ApiError.validation(p, `${p} must be a string.`);
    const v = rule.normalise ? rule.normalise(value) : value;
    const len = charLength(v);
    const min = rule.min ?? 1;
    if (len < min) throw ApiError.validation(p, min === 1 ? `${p} must not be empty.` : `${p} must be at least ${min} characters.`);
    if (rule.max !== undefined && len > rule.max) throw ApiError.validation(p, `${p} must be at most ${rule.max} characters.`);
    if (rule.pattern && !rule.pattern.test(v)) {
      throw ApiError.validation(p, `${p} is malformed${rule.describe ? `: expected ${rule.describe}` : ''}.`);
    }
    return v;
  }
}

export const upper = (v: string): string => v.trim().toUpperCase();

export const countryRule: StringRule = { pattern: COUNTRY, normalise: upper, describe: 'an ISO 3166-1 alpha-2 code such as "TH"' };
export const currencyRule: StringRule = { pattern: CURRENCY, normalise: upper, describe: 'an ISO 4217 code or token symbol of 3 to 6 letters such as "THB"' };
export const merchantReferenceRule: StringRule = { max: 256 };

/** The fields every intent create body starts with, validated in this order. */
export interface IntentBasics {
  amount: bigint;
  currency: string;
  country: string;
  merchantReference: string;
}

export function readIntentBasics(body: FieldReader): IntentBasics {
  const amount = body.raw('amount');
  if (amount === undefined || amount === null) throw ApiError.validation('amount', 'amount is required.');
  return {
    amount: parseAmount(amount),
    currency: body.string('currency', currencyRule),
    country: body.string('country', countryRule),
    merchantReference: body.string('merchant_reference', merchantReferenceRule),
  };
}

export interface TestFailure {
  failure_code: string;
  failure_message: string;
}

export const CANCEL_REASON_MAX = 512;
