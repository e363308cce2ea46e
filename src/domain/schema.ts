/**
 * Request schemas (TypeBox, i.e. JSON Schema) are the single description of what an
 * operation accepts: the same schema validates REST bodies and query strings, the GraphQL
 * inputs that map to the operation, and is published in the OpenAPI document. This file
 * turns a schema into a check that answers in the contract's shape: `validation_error`
 * with `param` naming the offending field (`recipient.bank_code`), query parameter or
 * `body`. Ajv compiles each schema once; the first error wins.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { ApiError } from './errors';

/** Where the value came from: the name of the root in error answers. */
export type Part = 'body' | 'query' | 'path';

// maxLength and minLength count code points (what a person calls characters), Ajv's default.
// Only the standard formats: every rule of our own is a pattern the published document carries.
const ajv = addFormats(new Ajv({ allErrors: false, strict: false, verbose: true, coerceTypes: false, useDefaults: false }), ['date-time', 'email', 'uri']);
/** Control characters (C0, DEL, C1): no free-text field (`x-text`) holds them. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const compiled = new WeakMap<TSchema, ValidateFunction>();

function validatorFor(schema: TSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  return fn;
}

/**
 * Query strings and path parameters are text. A parameter documented as an integer is
 * read as one only when it is plain decimal digits ("25"; not " 5", "1e2" or "0x10"),
 * otherwise it stays text and fails its type.
 */
function readIntegers(schema: TSchema, value: Record<string, unknown>): Record<string, unknown> {
  const out = { ...value };
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  for (const [name, property] of Object.entries(properties)) {
    const v = out[name];
    if (property.type === 'integer' && typeof v === 'string' && /^[0-9]{1,15}$/.test(v)) out[name] = Number(v);
  }
  return out;
}

/** Validates `value` against `schema`; returns it typed, or throws the contract's 400. */
export function check<T extends TSchema>(schema: T, value: unknown, part: Part): Static<T> {
  const fn = validatorFor(schema);
  if (part !== 'body' && value !== null && typeof value === 'object') value = readIntegers(schema, value as Record<string, unknown>);
  if (fn(value)) return value;
  throw toApiError((fn.errors ?? [])[0], part);
}

/** `table[name]` when `name` is the table's own key: never a prototype's member (`toString`, `constructor`, `__proto__`). */
function own(table: Record<string, string> | undefined, name: string): string | undefined {
  return table !== undefined && Object.hasOwn(table, name) && typeof table[name] === 'string' ? table[name] : undefined;
}

function joinPath(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

function toApiError(e: ErrorObject | undefined, part: Part): ApiError {
  if (!e) return ApiError.validation(part, `The ${part} is invalid.`);
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // An item of a list of values is reported as the list (`enabled_events`); a field inside an item keeps its index.
  const item = segments.length > 1 && /^[0-9]+$/.test(segments[segments.length - 1]) && !['required', 'additionalProperties'].includes(e.keyword);
  if (item) segments.pop();
  const at = segments.join('.');
  const p = at || (part === 'body' ? 'body' : part);
  const schema = e.parentSchema as
    | {
        description?: string;
        'x-expected'?: string;
        'x-messages'?: Record<string, string>;
        'x-unknown'?: Record<string, string>;
        'x-param'?: string;
        'x-text'?: string;
      }
    | undefined;
  const params = e.params as Record<string, unknown>;
  // A rule spanning fields (`not`, `if`/`then`) names what it wants in `x-messages`, by keyword,
  // and may name the field it reports (`x-param`) rather than the object holding them.
  const custom = own(schema?.['x-messages'], e.keyword);
  if (custom) return ApiError.validation(schema?.['x-param'] ? joinPath(at, schema['x-param']) : p, custom);
  // A property name that fails `propertyNames` (metadata keys): Ajv reports the name's own error first.
  const propertyName = (e as ErrorObject & { propertyName?: string }).propertyName;
  if (propertyName !== undefined && e.keyword !== 'propertyNames') {
    if (CONTROL.test(propertyName)) return ApiError.validation(p, `${p} keys must not contain control characters (U+0000 to U+001F, U+007F to U+009F).`);
    const q = joinPath(at, propertyName);
    return ApiError.validation(q, `${q}: key is not allowed${schema?.['x-expected'] ? ` (${schema['x-expected']})` : ''}.`);
  }
  switch (e.keyword) {
    case 'required': {
      const q = joinPath(at, String(params.missingProperty));
      return ApiError.validation(q, `${q} is required.`);
    }
    case 'dependencies':
    case 'dependentRequired': {
      // `{ dependencies: { amount: ['currency'] } }`: the missing field is the offending one.
      const q = joinPath(at, String(params.missingProperty));
      return ApiError.validation(q, `${q} is required when ${joinPath(at, String(params.property))} is given.`);
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      // A name is never echoed with control characters in it (a log line or a terminal would act on them).
      if (CONTROL.test(name)) return ApiError.validation(p, `${p} has a field whose name contains control characters.`);
      const q = joinPath(at, name);
      // `x-unknown` explains a field that is known to be sent by mistake (a discovery record's field sent back).
      const hint = own(schema?.['x-unknown'], name);
      return ApiError.validation(q, hint ?? (part === 'query' ? `Unknown query parameter ${q}.` : `Unknown field ${q}.`));
    }
    case 'type': {
      if (!at && part === 'body') return ApiError.validation('body', 'The request body must be a JSON object.');
      if (part === 'query' && Array.isArray(e.data)) return ApiError.validation(p, `${p} must be given once.`);
      return ApiError.validation(p, `${p}${item ? ' items' : ''} must be ${article(String(params.type))}.`);
    }
    case 'minLength':
      return ApiError.validation(p, params.limit === 1 ? `${p} must not be empty.` : `${p} must be at least ${String(params.limit)} characters.`);
    case 'maxLength':
      return ApiError.validation(p, `${p} must be at most ${String(params.limit)} characters.`);
    case 'pattern':
    case 'format': {
      // Free text (`x-text`) holding a control character: say that rather than the field's other rule.
      if (e.keyword === 'pattern' && schema?.['x-text'] && typeof e.data === 'string' && CONTROL.test(e.data))
        return ApiError.validation(p, `${p} must not contain control characters (U+0000 to U+001F, U+007F to U+009F).`);
      const expected = schema?.['x-expected'];
      return ApiError.validation(
        p,
        `${p} is malformed${expected ? `: expected ${expected}` : e.keyword === 'format' ? `: expected ${article(String(params.format))}` : ''}.`,
      );
    }
    case 'enum':
      return ApiError.validation(p, `${p} must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`);
    case 'const':
      return ApiError.validation(p, `${p} must be ${JSON.stringify(params.allowedValue)}.`);
    case 'minimum':
    case 'maximum':
      return ApiError.validation(p, `${p} must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(params.limit)}.`);
    case 'minItems':
      return ApiError.validation(p, `${p} must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}.`);
    case 'maxItems':
      return ApiError.validation(p, `${p} must have at most ${String(params.limit)} items.`);
    case 'maxProperties':
      return ApiError.validation(p, `${p} has more than ${String(params.limit)} keys.`);
    case 'minProperties':
      return ApiError.validation(p, `${p} must have at least ${String(params.limit)} field${params.limit === 1 ? '' : 's'}.`);
    case 'propertyNames': {
      if (CONTROL.test(String(params.propertyName)))
        return ApiError.validation(p, `${p} keys must not contain control characters (U+0000 to U+001F, U+007F to U+009F).`);
      const q = joinPath(at, String(params.propertyName));
      return ApiError.validation(q, `${q}: key is not allowed${schema?.['x-expected'] ? ` (${schema['x-expected']})` : ''}.`);
    }
    default:
      return ApiError.validation(p, `${p} is invalid.`);
  }
}

function article(type: string): string {
  if (type === 'integer') return 'an integer';
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  return `a ${type}`;
}
