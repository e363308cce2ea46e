import { KeyCache, type KnownKey } from '../../src/modules/auth/key-cache';
import { keyPrincipal } from '../../src/modules/auth/auth.service';

const key = (id: string): KnownKey => ({
  id,
  merchantId: 'mer_1',
  environment: 'test',
  secretHash: 'digest',
  revoked: false,
  expiresAt: null,
  principal: keyPrincipal({ id, permissions: null }),
});

test('a kept key is served until ttlMs after its read began, then read again', () => {
  const cache = new KeyCache(500);
  const ticket = cache.startRead();
  cache.store('pk_a', key('key_a'), ticket);
  expect(cache.get('pk_a', ticket.startedAt + 499)?.id).toBe('key_a');
  expect(cache.get('pk_a', ticket.startedAt + 500)).toBeUndefined();
  expect(cache.size).toBe(0);
});

test('forget drops the key at once, and a read that began before it does not store what it read', () => {
  const cache = new KeyCache(500);
  cache.store('pk_a', key('key_a'), cache.startRead());
  cache.store('pk_b', key('key_b'), cache.startRead());
  const inFlight = cache.startRead();
  cache.forget('key_a');
  expect(cache.get('pk_a')).toBeUndefined();
  expect(cache.get('pk_b')?.id).toBe('key_b');
  // The row this read found may be from before the revocation: not kept.
  cache.store('pk_a', key('key_a'), inFlight);
  expect(cache.get('pk_a')).toBeUndefined();
  // A read begun after the forget is kept.
  cache.store('pk_a', key('key_a'), cache.startRead());
  expect(cache.get('pk_a')?.id).toBe('key_a');
});

test('ttlMs 0 keeps nothing', () => {
  const cache = new KeyCache(0);
  cache.store('pk_a', key('key_a'), cache.startRead());
  expect(cache.get('pk_a')).toBeUndefined();
});
