/**
 * The keyset cursor of every list: a position (created_at, id) tagged with its resource and
 * with a hash of the API key's scope, so that a cursor of another list or another merchant is
 * refused. Opaque to clients: base64url of `[1, resource, scopeTag, t, id]`.
 */
import { ApiError } from './errors';
import type { Scope } from './scope';
import { sha256Hex } from './canonical';

export interface KeysetPosition {
  t: number;
  id: string;
}

/** Recent scope tags: a list request decodes one cursor and encodes one, both with its scope's tag. */
const scopeTags = new Map<string, string>();
const SCOPE_TAG_CACHE = 1024;

function scopeTag(scope: Scope): string {
  const key = `${scope.merchantId}/${scope.environment}`;
  let tag = scopeTags.get(key);
  if (tag === undefined) {
    tag = sha256Hex(key).slice(0, 16);
    if (scopeTags.size >= SCOPE_TAG_CACHE) scopeTags.delete(scopeTags.keys().next().value as string);
    scopeTags.set(key, tag);
  }
  return tag;
}

function encodeWithTag(resource: string, tag: string, pos: KeysetPosition): string {
  return Buffer.from(JSON.stringify([1, resource, tag, pos.t, pos.id])).toString('base64url');
}

export function encodeCursor(resource: string, scope: Scope, pos: KeysetPosition): string {
  return encodeWithTag(resource, scopeTag(scope), pos);
}

/** An encoder for one page's cursors: the scope's tag is looked up once. */
export function cursorEncoder(resource: string, scope: Scope): (pos: KeysetPosition) => string {
  const tag = scopeTag(scope);
  return (pos) => encodeWithTag(resource, tag, pos);
}

export function decodeCursor(resource: string, scope: Scope, cursor: string, param = 'cursor'): KeysetPosition {
  const invalid = () => ApiError.validation(param, `${param} is not a cursor returned by this list for this API key.`);
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw invalid();
  const [version, res, tag, t, id] = parsed as unknown[];
  if (version !== 1 || res !== resource || tag !== scopeTag(scope) || !Number.isSafeInteger(t) || typeof id !== 'string') {
    throw invalid();
  }
  return { t: t as number, id };
}
