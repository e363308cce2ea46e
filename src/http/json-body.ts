/**
 * Request bodies sent as JSON, REST and /graphql alike: what is refused before any route
 * runs. The body must be UTF-8 (bytes that are not were silently replaced with U+FFFD,
 * so a name was stored other than sent); its strings and keys must be well-formed Unicode
 * (a lone surrogate escape such as `"\ud800"` parses, but no database column can hold it:
 * UTF-8 has no encoding for it, and the driver stored U+FFFD instead); and it may nest at
 * most MAX_JSON_DEPTH levels (the deepest body any operation takes is four). A body
 * nested 5,000 levels deep used to overflow the stack of the recursive walks that follow
 * (the Idempotency-Key fingerprint's canonical JSON: a 500). JSON.parse itself is
 * iterative; the check below is too, and runs once per body.
 *
 * A key may appear once per object. JSON.parse keeps the last of two equal keys, so
 * `{"amount":"100",...,"amount":"999999"}` would pay what a reviewer of the first field did
 * not see; such a body is a validation_error naming the key (`param`: its path).
 */
import { ApiError } from '../domain/errors';

export const MAX_JSON_DEPTH = 32;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body's value; `undefined` for an empty body (read as an absent body). Throws the contract's errors. */
export function parseJsonBody(raw: Buffer | string): unknown {
  let text: string;
  if (typeof raw === 'string') {
    text = raw;
  } else {
    try {
      text = UTF8.decode(raw);
    } catch {
      throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
    }
  }
  text = text.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  checkJsonValue(value);
  if (value !== null && typeof value === 'object') {
    const repeated = firstRepeatedKey(text);
    if (repeated !== undefined) throw ApiError.validation(repeated, `${repeated} appears more than once in its object; send each field once.`);
  }
  return value;
}

interface Container {
  /** An object's keys so far; null for an array. */
  keys: Set<string> | null;
  path: string;
  /** The key (object) or index (array) whose value comes next. */
  at: string;
  index: number;
}

/**
 * The path of the first key that an object of `text` (valid JSON: JSON.parse accepted it)
 * holds twice, or undefined. One pass over the text, iterative like the parse.
 */
export function firstRepeatedKey(text: string): string | undefined {
  const stack: Container[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return join(top.path, key);
        top.keys.add(key);
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      const path = parent ? join(parent.path, parent.keys ? parent.at : String(parent.index)) : '';
      stack.push({ keys: ch === 0x7b ? new Set() : null, path, at: '', index: 0 });
      expectKey = ch === 0x7b;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      stack.pop();
    } else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top.keys) expectKey = true;
      else top.index++;
    }
  }
  return undefined;
}

/** A lone surrogate: with the `u` flag a pair is one code point, so only an unpaired half is a surrogate (Cs). */
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (s: string) => !LONE_SURROGATE.test(s);

const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

/**
 * Refuses a value nested deeper than MAX_JSON_DEPTH, or holding a string or key with an
 * unpaired surrogate; `param` names where (a string in a list is reported as the list).
 */
export function checkJsonValue(value: unknown): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (!wellFormed(v))
        throw ApiError.validation(
          path || 'body',
          `${path || 'The body'} is not valid Unicode: it holds an unpaired surrogate (an escape from \\ud800 to \\udfff without its pair).`,
        );
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw ApiError.validation('body', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++)
        stack.push({ value: v[i], path: typeof v[i] === 'object' && v[i] !== null ? join(path, String(i)) : path, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (!wellFormed(key)) throw ApiError.validation(path || 'body', `A key of ${path || 'the body'} is not valid Unicode: it holds an unpaired surrogate.`);
      stack.push({ value: (v as Record<string, unknown>)[key], path: join(path, key), depth: depth + 1 });
    }
  }
}
