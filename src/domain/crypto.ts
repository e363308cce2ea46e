/**
 * Field encryption (AES-256-GCM) for data the API must never return, such as full bank
 * account numbers, and constant-time secret comparison.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export class FieldCipher {
  private constructor(private readonly key: Buffer) {}

  static fromBase64(b64: string): FieldCipher {
    const key = Buffer.from(b64, 'base64');
    if (key.length !== 32) throw new Error('DATA_ENCRYPTION_KEY must be base64 of exactly 32 bytes');
    return new FieldCipher(key);
  }

  /**
   * The key from DATA_ENCRYPTION_KEY; outside production, a key generated once into
   * `<dataDir>/encryption.key` (mode 0600) so a newcomer's start needs no set-up.
   */
  static load(opts: { base64?: string; dataDir: string; production: boolean }): FieldCipher {
    if (opts.base64) return FieldCipher.fromBase64(opts.base64);
    if (opts.production) throw new Error('DATA_ENCRYPTION_KEY is required when NODE_ENV=production');
    const file = path.join(opts.dataDir, 'encryption.key');
    if (!fs.existsSync(file)) {
      fs.mkdirSync(opts.dataDir, { recursive: true });
      try {
        fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return FieldCipher.fromBase64(fs.readFileSync(file, 'utf8').trim());
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unknown ciphertext format');
    // The full 16-byte tag only: without authTagLength, GCM would accept a tag cut to 4 bytes.
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares two hex digests in constant time. */
export function digestEquals(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
