/** Identifiers (src/domain/ids.ts): prefix + lower-case ULID, time-ordered and monotonic. */
import { ID_PREFIX, IdKind, newId, randomToken } from '../../src/domain/ids';

const ULID = /^[0-9a-hjkmnp-tv-z]{26}$/; // Crockford base32, lower-cased

test('every kind gets its own prefix and a lower-case ULID', () => {
  const prefixes = Object.values(ID_PREFIX);
  expect(new Set(prefixes).size).toBe(prefixes.length);
  for (const kind of Object.keys(ID_PREFIX) as IdKind[]) {
    const id = newId(kind);
    const [prefix, rest, more] = id.split('_');
    expect(prefix).toBe(ID_PREFIX[kind]);
    expect(more).toBeUndefined();
    expect(rest).toMatch(ULID);
  }
  expect(newId('payoutIntent')).toMatch(/^po_/);
  expect(newId('paymentIntent')).toMatch(/^pi_/);
  expect(newId('topupIntent')).toMatch(/^tu_/);
});

test('ids sort by creation time, also within one millisecond (monotonic)', () => {
  const now = Date.now();
  const sameMs = Array.from({ length: 200 }, () => newId('event', now));
  expect([...sameMs].sort()).toEqual(sameMs);
  expect(new Set(sameMs).size).toBe(sameMs.length);
  const later = newId('event', now + 1000);
  expect(later > sameMs[sameMs.length - 1]).toBe(true);
});

test('the time part encodes the given timestamp (later than every id made before: the factory is monotonic)', () => {
  const at = Date.now() + 10 * 86_400_000;
  const time = newId('payoutIntent', at).slice(3, 13).toUpperCase();
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let ms = 0;
  for (const ch of time) ms = ms * 32 + alphabet.indexOf(ch);
  expect(ms).toBe(at);
});

test('randomToken: URL-safe, of the requested entropy, different every time', () => {
  const t = randomToken();
  expect(t).toMatch(/^[A-Za-z0-9_-]+$/);
  expect(Buffer.from(t, 'base64url')).toHaveLength(24);
  expect(Buffer.from(randomToken(32), 'base64url')).toHaveLength(32);
  const many = new Set(Array.from({ length: 100 }, () => randomToken()));
  expect(many.size).toBe(100);
});
