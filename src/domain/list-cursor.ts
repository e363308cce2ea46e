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
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors';
import type { Scope } from './scope';

export interface KeysetPosition {
  t: number;
  id: string;
}

let keys: Buffer[] = [];

/** The cursor keys, current first (the data key ring's, derived for this purpose). */
export function useCursorKeys(derived: Buffer[]): void {
  keys = derived;
}

function mac(key: Buffer, resource: string, scope: Scope, pos: KeysetPosition): Buffer {
  return createHmac('sha256', key)
    .update(JSON.stringify([resource, scope.merchantId, scope.environment, pos.t, pos.id]))
    .digest()
    .subarray(0, 16);
}

export function encodeCursor(resource: string, scope: Scope, pos: KeysetPosition): string {
  if (keys.length === 0) throw new Error('no cursor key: useCursorKeys was not called');
  return Buffer.from(JSON.stringify([2, resource, pos.t, pos.id, mac(keys[0], resource, scope, pos).toString('base64url')])).toString('base64url');
}

/** An encoder for one page's cursors. */
export function cursorEncoder(resource: string, scope: Scope): (pos: KeysetPosition) => string {
  return (pos) => encodeCursor(resource, scope, pos);
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
  const [version, res, t, id, signature] = parsed as unknown[];
  if (version !== 2 || res !== resource || !Number.isSafeInteger(t) || typeof id !== 'string' || typeof signature !== 'string') throw invalid();
  const pos = { t: t as number, id };
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== 16 || !keys.some((key) => timingSafeEqual(presented, mac(key, resource, scope, pos)))) throw invalid();
  return pos;
}
