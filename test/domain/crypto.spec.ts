/** FieldCipher (AES-256-GCM field encryption) and digest comparison (src/domain/crypto.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { FieldCipher, digestEquals, sha256 } from '../../src/domain/crypto';

const KEY = randomBytes(32).toString('base64');
const cipher = FieldCipher.fromBase64(KEY);

/** Replaces part `index` of a sealed value (version.keyid.iv.tag.ciphertext). */
function withPart(sealed: string, index: number, change: (part: Buffer) => Buffer): string {
  const parts = sealed.split('.');
  parts[index] = change(Buffer.from(parts[index], 'base64url')).toString('base64url');
  return parts.join('.');
}
const flipFirstBit = (b: Buffer) => {
  const c = Buffer.from(b);
  c[0] ^= 1;
  return c;
};

describe('round trip', () => {
  test.each(['1234567890', '', 'สมชาย ใจดี', '😀'.repeat(100), 'x'.repeat(10000)])('%#: decrypt(encrypt(x)) is x', (plain) => {
    expect(cipher.decrypt(cipher.encrypt(plain))).toBe(plain);
  });

  test('the sealed form is v2.<key id>.<iv>.<tag>.<ciphertext>, base64url, without the plaintext', () => {
    const sealed = cipher.encrypt('1234567890');
    const [version, keyId, iv, tag, ct] = sealed.split('.');
    expect(version).toBe('v2');
    expect(keyId).toBe(cipher.keyId);
    expect(keyId).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(sealed.startsWith(cipher.currentPrefix)).toBe(true);
    expect(Buffer.from(iv, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64url')).toHaveLength(16);
    expect(Buffer.from(ct, 'base64url')).toHaveLength(10);
    expect(sealed).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(sealed).not.toContain('1234567890');
  });

  test('a fresh IV every time: the same plaintext seals differently', () => {
    const a = cipher.encrypt('same');
    const b = cipher.encrypt('same');
    expect(a).not.toBe(b);
    expect(cipher.decrypt(a)).toBe(cipher.decrypt(b));
  });
});

describe('tamper detection', () => {
  const sealed = cipher.encrypt('1234567890');

  test('a changed ciphertext, tag or IV is refused', () => {
    expect(() => cipher.decrypt(withPart(sealed, 4, flipFirstBit))).toThrow();
    expect(() => cipher.decrypt(withPart(sealed, 3, flipFirstBit))).toThrow();
    expect(() => cipher.decrypt(withPart(sealed, 2, flipFirstBit))).toThrow();
  });

  test('a truncated ciphertext is refused', () => {
    expect(() => cipher.decrypt(withPart(sealed, 4, (b) => b.subarray(0, 5)))).toThrow();
  });

  // Without { authTagLength: 16 } Node accepts a GCM tag cut to 4..15 bytes, and a forger
  // would need to match only 4 bytes.
  test('a tag cut to its first 8 or 4 bytes is refused', () => {
    expect(() => cipher.decrypt(withPart(sealed, 3, (b) => b.subarray(0, 8)))).toThrow();
    expect(() => cipher.decrypt(withPart(sealed, 3, (b) => b.subarray(0, 4)))).toThrow();
  });

  test('another key cannot open it', () => {
    const other = FieldCipher.fromBase64(randomBytes(32).toString('base64'));
    expect(() => other.decrypt(sealed)).toThrow();
  });

  test('unknown formats are refused', () => {
    for (const bad of ['', 'v3' + sealed.slice(2), sealed.split('.').slice(0, 4).join('.'), 'v1..x.y', 'v2.........', 'plain text']) {
      expect(() => cipher.decrypt(bad)).toThrow();
    }
  });
});

describe('keys', () => {
  test('fromBase64 needs exactly 32 bytes', () => {
    expect(() => FieldCipher.fromBase64(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => FieldCipher.fromBase64(randomBytes(33).toString('base64'))).toThrow(/32 bytes/);
    expect(() => FieldCipher.fromBase64('')).toThrow(/32 bytes/);
  });

  test('load: the given key wins; production without a key is refused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-spec-'));
    try {
      const sealed = cipher.encrypt('x');
      expect(FieldCipher.load({ base64: KEY, dataDir: dir, production: true }).decrypt(sealed)).toBe('x');
      expect(() => FieldCipher.load({ dataDir: dir, production: true })).toThrow(/DATA_ENCRYPTION_KEY/);
      expect(fs.existsSync(path.join(dir, 'encryption.key'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('load outside production generates a 0600 key file once and reuses it', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-spec-')), 'nested');
    try {
      const first = FieldCipher.load({ dataDir: dir, production: false });
      const file = path.join(dir, 'encryption.key');
      expect(Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const second = FieldCipher.load({ dataDir: dir, production: false });
      expect(second.decrypt(first.encrypt('kept'))).toBe('kept');
    } finally {
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});

describe('rotation: the current key seals, every configured key opens', () => {
  const OLD = randomBytes(32).toString('base64');
  const NEW = randomBytes(32).toString('base64');
  const before = FieldCipher.fromBase64(OLD);
  const during = FieldCipher.fromBase64(NEW, [OLD]);
  const after = FieldCipher.fromBase64(NEW);

  test('a value sealed by the old key opens while the old key is still configured', () => {
    const sealed = before.encrypt('1234567890');
    expect(during.decrypt(sealed)).toBe('1234567890');
    expect(sealed.startsWith(during.currentPrefix)).toBe(false);
  });

  test('new values are sealed by the new key and open without the old one', () => {
    const sealed = during.encrypt('0987654321');
    expect(sealed.startsWith(after.currentPrefix)).toBe(true);
    expect(after.decrypt(sealed)).toBe('0987654321');
  });

  test('once the old key is dropped, its values name the missing key instead of failing obscurely', () => {
    expect(() => after.decrypt(before.encrypt('x'))).toThrow(new RegExp(`data key ${before.keyId}.*not configured`));
  });

  test('values sealed before key ids (v1) open with whichever configured key fits', () => {
    // The v1 layout: v1.<iv>.<tag>.<ciphertext>, made here from a v2 value by dropping the key id.
    const v1 = (sealed: string) => {
      const [, , iv, tag, ct] = sealed.split('.');
      return ['v1', iv, tag, ct].join('.');
    };
    expect(during.decrypt(v1(before.encrypt('old')))).toBe('old');
    expect(during.decrypt(v1(during.encrypt('new')))).toBe('new');
    expect(() => after.decrypt(v1(before.encrypt('old')))).toThrow(/none of the configured data keys/);
  });

  test('a previous key of the wrong size is refused at start', () => {
    expect(() => FieldCipher.fromBase64(NEW, ['short'])).toThrow(/DATA_ENCRYPTION_KEYS_PREVIOUS/);
  });
});

test('digestEquals compares hex digests exactly', () => {
  const a = sha256('a').toString('hex');
  expect(sha256('a')).toHaveLength(32);
  expect(digestEquals(a, a)).toBe(true);
  expect(digestEquals(a, sha256('b').toString('hex'))).toBe(false);
  expect(digestEquals(a, a.slice(0, 62))).toBe(false);
  expect(digestEquals(a, a.toUpperCase())).toBe(true);
});
