/**
 * Passwords, TOTP codes and the random secrets of sign-in.
 *
 * Passwords: argon2id (the `argon2` package: the reference implementation, hashing on libuv's
 * thread pool, off the event loop), by default with OWASP's first recommended setting (19 MiB,
 * 2 passes, 1 lane; PASSWORD_HASH_MEMORY_KIB / PASSWORD_HASH_PASSES raise it). A hash carries
 * its own parameters, so raising them later still verifies older hashes. An unknown email, or
 * a person who has not chosen a password yet, is verified against a dummy hash made with the
 * same parameters, so the answer takes as long as a wrong password.
 *
 * TOTP: RFC 6238 through `otpauth` (SHA-1, 6 digits, 30 s steps: what authenticator apps
 * expect), one step of clock drift either way; a step once used is never accepted again.
 * Tokens, setup links and recovery codes are random (>= 128 bits for tokens), stored only as
 * SHA-256 digests: a fast hash suits high-entropy secrets.
 */
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import * as OTPAuth from 'otpauth';
import { ApiError } from '../../domain/errors';
import { sha256 } from '../../domain/crypto';

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 200;
const TOTP_PERIOD_S = 30;
const ISSUER = 'Payments Gateway';

export function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || [...password].length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw ApiError.validation('password', `A password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long.`);
  }
  return password;
}

export interface PasswordHashing {
  memoryKib: number;
  passes: number;
}

export class Passwords {
  private dummy?: Promise<string>;

  constructor(private readonly params: PasswordHashing) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id, memoryCost: this.params.memoryKib, timeCost: this.params.passes, parallelism: 1 });
  }

  /** Whether `password` matches `hash`; with no hash, verifies against a dummy one (same cost) and answers false. */
  async verify(hash: string | null, password: string): Promise<boolean> {
    this.dummy ??= this.hash(randomBytes(18).toString('base64'));
    try {
      const ok = await argon2.verify(hash ?? (await this.dummy), password);
      return ok && hash !== null;
    } catch {
      return false;
    }
  }
}

/** A random token (URL-safe base64) and its digest, the only thing stored. */
export function newToken(bytes = 32): { token: string; hash: string } {
  const token = randomBytes(bytes).toString('base64url');
  return { token, hash: tokenHash(token) };
}

export function tokenHash(token: string): string {
  return sha256(token).toString('hex');
}

/** Recovery codes: 10 codes of 10 base32 characters (50 bits), shown as `xxxxx-xxxxx`. */
export function newRecoveryCodes(count = 10): string[] {
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code as typed (any case, with or without the dash) -> its digest. */
export function recoveryCodeHash(code: string): string {
  return tokenHash(code.trim().toLowerCase().replace(/[\s-]/g, ''));
}

export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function totpUri(secret: string, email: string): string {
  return new OTPAuth.TOTP({ issuer: ISSUER, label: email, secret: OTPAuth.Secret.fromBase32(secret), period: TOTP_PERIOD_S }).toString();
}

/** The 30-second step `code` is valid for (one step of drift either way), or null. */
export function totpStep(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), period: TOTP_PERIOD_S });
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : Math.floor(now / 1000 / TOTP_PERIOD_S) + delta;
}

/** The current code of `secret` (tests and the CLI's checks). */
export function totpCode(secret: string, now = Date.now()): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), period: TOTP_PERIOD_S }).generate({ timestamp: now });
}
