/** Canonical JSON and request fingerprints (src/domain/canonical.ts). */
import { createHash } from 'node:crypto';
import { canonicalJson, fingerprint, sha256Hex } from '../../src/domain/canonical';

describe('canonicalJson', () => {
  test('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
  });

  test('key order does not change the result; values do', () => {
    expect(canonicalJson({ amount: '1000', currency: 'THB' })).toBe(canonicalJson({ currency: 'THB', amount: '1000' }));
    expect(canonicalJson({ amount: '1000' })).not.toBe(canonicalJson({ amount: '1001' }));
    expect(canonicalJson({ amount: '1000' })).not.toBe(canonicalJson({ amount: 1000 }));
  });

  test('array order matters', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  test('undefined properties are dropped, undefined alone and in arrays is null', () => {
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });

  test('bigints become decimal strings; scalars are JSON', () => {
    expect(canonicalJson({ n: 123456789012345678901234567890n })).toBe('{"n":"123456789012345678901234567890"}');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(1.5)).toBe('1.5');
  });

  test('keys are sorted by code unit, not locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4 })).toBe('{"B":2,"a":3,"b":1,"é":4}');
  });
});

describe('fingerprint', () => {
  test('is sha256 over "<operation>\\n<canonical json>", lower-case hex', () => {
    const expected = createHash('sha256').update('payout.create\n{"a":1,"b":2}').digest('hex');
    expect(fingerprint('payout.create', { b: 2, a: 1 })).toBe(expected);
    expect(fingerprint('payout.create', { b: 2, a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });

  test('the same body under another operation has another fingerprint', () => {
    expect(fingerprint('payout.create', { a: 1 })).not.toBe(fingerprint('topup.create', { a: 1 }));
  });

  test('sha256Hex of the empty string', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('canonicalJson on deep values', () => {
  test('a value nested 100,000 levels deep does not overflow the stack (it is iterative)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { a: deep };
    // Built the same way as text: '{"a":' and '[' open, '}' and ']' close, from the inside out.
    let expected = '1';
    for (let i = 0; i < 100_000; i++) expected = i % 2 ? `[${expected}]` : `{"a":${expected}}`;
    expect(canonicalJson(deep)).toBe(expected);
  });
});
