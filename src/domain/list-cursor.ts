/**
 * The keyset cursor of every list: a position (created_at, id) and its resource, signed with
 * an HMAC over the resource, the API key's scope and the position. A cursor of another list,
 * merchant or environment, or one changed by hand, is refused: only the server makes
 * cursors. Opaque to clients: base64url of `[2, resource, t, id, mac]`.
 *
 * The HMAC keys come from the data key ring (FieldCipher.derivedKeys("list cursor")): the
 * current key signs, the previous ones still verify, so a rotation of the data key rotates
 * them without breaking the pages a client is reading. `useCursorKeys` installs them once,
 * when the application starts (src/app.ts).
 *
 * A list sorted by another key than created_at (GraphQL `sortKey`: `amount`, `status`) has
 * cursors of its own: `[3, resource, sort, key, id, mac]`, the sort and its key's value signed
 * with the rest. A cursor of one sort is refused under another (a created_at cursor, version
 * 2, under `amount`; an `amount` cursor under the default order), as a cursor of another list is.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors';
import type { Scope } from './scope';

export interface KeysetPosition {
  /** created_at (epoch ms); 0 in a position of another sort. */
  t: number;
  id: string;
  /** The sort key's value (an amount's minor units, a status) when the list is sorted by another key than created_at. */
  k?: string;
}

/** The default order's sort: created_at (version 2 cursors). */
export const DEFAULT_SORT = 'created_at';

let keys: Buffer[] = [];

/** The cursor keys, current first (the data key ring's, derived for this purpose). */
export function useCursorKeys(derived: Buffer[]): void {
  keys = derived;
}

function mac(key: Buffer, resource: string, scope: Scope, pos: KeysetPosition, sort: string = DEFAULT_SORT): Buffer {
  const signed =
    sort === DEFAULT_SORT
      ? [resource, scope.merchantId, scope.environment, pos.t, pos.id]
      : [resource, scope.merchantId, scope.environment, sort, pos.k ?? '', pos.id];
  return createHmac('sha256', key).update(JSON.stringify(signed)).digest().subarray(0, 16);
}

/** A cursor at `pos` of `resource`'s list in the order of `sort` (created_at: the REST lists' order). */
export function encodeCursor(resource: string, scope: Scope, pos: KeysetPosition, sort: string = DEFAULT_SORT): string {
  if (keys.length === 0) throw new Error('no cursor key: useCursorKeys was not called');
  const signature = mac(keys[0], resource, scope, pos, sort).toString('base64url');
  const body = sort === DEFAULT_SORT ? [2, resource, pos.t, pos.id, signature] : [3, resource, sort, pos.k ?? '', pos.id, signature];
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** An encoder for one page's cursors. */
export function cursorEncoder(resource: string, scope: Scope, sort: string = DEFAULT_SORT): (pos: KeysetPosition) => string {
  return (pos) => encodeCursor(resource, scope, pos, sort);
}

/**
 * The position a cursor names, if the service issued it for this list, this API key's
 * merchant and environment, and this sort; else a validation_error naming `param`.
 */
export function decodeCursor(resource: string, scope: Scope, cursor: string, param = 'cursor', sort: string = DEFAULT_SORT): KeysetPosition {
  const invalid = () => ApiError.validation(param, `${param} is not a cursor returned by this list for this API key.`);
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed)) throw invalid();
  let pos: KeysetPosition;
  let signature: unknown;
  if (sort === DEFAULT_SORT) {
    if (parsed.length !== 5) throw otherSort(parsed, param, invalid);
    const [version, res, t, id, sig] = parsed as unknown[];
    if (version !== 2 || res !== resource || !Number.isSafeInteger(t) || typeof id !== 'string') throw invalid();
    pos = { t: t as number, id };
    signature = sig;
  } else {
    if (parsed.length !== 6) throw otherSort(parsed, param, invalid);
    const [version, res, by, k, id, sig] = parsed as unknown[];
    if (version !== 3 || res !== resource || typeof k !== 'string' || k.length > 64 || typeof id !== 'string') throw invalid();
    if (by !== sort) throw otherSort(parsed, param, invalid);
    pos = { t: 0, id, k };
    signature = sig;
  }
  if (typeof signature !== 'string') throw invalid();
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== 16 || !keys.some((key) => timingSafeEqual(presented, mac(key, resource, scope, pos, sort)))) throw invalid();
  return pos;
}

/** A cursor of another sort of a list is refused with a message that says so (its signature is not checked: it is refused either way). */
function otherSort(parsed: unknown[], param: string, invalid: () => ApiError): ApiError {
  const sortOf =
    parsed.length === 5 && parsed[0] === 2
      ? DEFAULT_SORT
      : parsed.length === 6 && parsed[0] === 3 && typeof parsed[2] === 'string' && /^[a-z_]{1,32}$/.test(parsed[2])
        ? parsed[2]
        : undefined;
  if (sortOf === undefined) return invalid();
  return ApiError.validation(
    param,
    `${param} is a cursor of this list in another order (${sortOf}): a cursor works only with the sortKey it was issued under.`,
  );
}
