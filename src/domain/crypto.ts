/**
 * Field encryption (AES-256-GCM) for data the API must never return, such as full bank
 * account numbers, with a keyring for rotation, and constant-time secret comparison.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** One data key and its id: the first 8 characters of base64url(sha256(key)), which names the key without revealing it. */
interface DataKey {
  id: string;
  key: Buffer;
}

function dataKey(b64: string, name: string): DataKey {
  const key = Buffer.from(b64.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${name} must be base64 of exactly 32 bytes`);
  return { id: createHash('sha256').update(key).digest('base64url').slice(0, 8), key };
}

/**
 * A keyring: the current key seals, every key opens. Sealed values name their key
 * (`v2.<key id>.<iv>.<tag>.<ciphertext>`), so rotating the data key is: make the new key
 * current, keep the old one in DATA_ENCRYPTION_KEYS_PREVIOUS, run `cli data-key rewrap`,
 * then drop the old key (docs/operations.md). Values sealed before key ids existed
 * (`v1.<iv>.<tag>.<ciphertext>`) are opened by trying each key; GCM's tag tells which fits.
 */
export class FieldCipher {
  private readonly byId: Map<string, DataKey>;

  private constructor(private readonly keys: DataKey[]) {
    this.byId = new Map(keys.map((k) => [k.id, k]));
  }

  static fromBase64(b64: string, previous: string[] = []): FieldCipher {
    const keys = [dataKey(b64, 'DATA_ENCRYPTION_KEY'), ...previous.map((p) => dataKey(p, 'each of DATA_ENCRYPTION_KEYS_PREVIOUS'))];
    return new FieldCipher(keys.filter((k, i) => keys.findIndex((o) => o.id === k.id) === i));
  }

  /**
   * The key from DATA_ENCRYPTION_KEY; outside production, a key generated once into
   * `<dataDir>/encryption.key` (mode 0600) so a newcomer's start needs no set-up.
   */
  static load(opts: { base64?: string; previous?: string[]; dataDir: string; production: boolean }): FieldCipher {
    if (opts.base64) return FieldCipher.fromBase64(opts.base64, opts.previous);
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
    return FieldCipher.fromBase64(fs.readFileSync(file, 'utf8').trim(), opts.previous);
  }

  /**
   * Keys for `purpose` derived from the keyring (HKDF-SHA256), current first: a rotation of the
   * data key rotates them too, and the previous keys still verify what they signed.
   */
  derivedKeys(purpose: string): Buffer[] {
    return this.keys.map(({ key }) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `payments-gateway ${purpose}`, 32)));
  }

  /** The id of the key that seals. */
  get keyId(): string {
    return this.keys[0].id;
  }

  /** The prefix every value sealed by the current key starts with. */
  get currentPrefix(): string {
    return `v2.${this.keyId}.`;
  }

  encrypt(plaintext: string): string {
    const { id, key } = this.keys[0];
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v2', id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const key = this.byId.get(parts[1]);
      if (!key) throw new Error(`a value is sealed with data key ${parts[1]}, which is not configured (DATA_ENCRYPTION_KEYS_PREVIOUS)`);
      return open(key.key, parts[2], parts[3], parts[4]);
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      for (const { key } of this.keys) {
        try {
          return open(key, parts[1], parts[2], parts[3]);
        } catch {
          // not this key
        }
      }
      throw new Error('a value sealed before key ids (v1) opens with none of the configured data keys');
    }
    throw new Error('unknown ciphertext format');
  }
}

function open(key: Buffer, iv: string, tag: string, ct: string): string {
  // The full 16-byte tag only: without authTagLength, GCM would accept a tag cut to 4 bytes.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
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
