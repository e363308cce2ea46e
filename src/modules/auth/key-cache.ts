/**
 * API keys kept in this process's memory for a moment, so a request does not read its key
 * from the database (that read was half the statements of every read request).
 *
 * A revoked key is still refused within a second everywhere:
 *  - in this process, at once: a revocation, a roll (it sets the old key's `expires_at`) or
 *    any other change of a key's row calls `forget(id)` after its commit, before answering;
 *  - in the other processes, through Redis: they hear the revocation announced on
 *    REVOCATION_CHANNEL (revocation-watcher.ts) and forget the key;
 *  - whatever announcement is missed (Redis down or not configured, a change written by
 *    hand): an entry is used for at most `ttlMs` (API_KEY_CACHE_MS, default 500) from the
 *    moment the read it came from began.
 *
 * A generation counter, bumped by every `forget`, keeps a read that began before a forget
 * from storing the row it read, which may predate the change.
 *
 * An entry holds what authentication needs: the key's id, scope and principal, the digest of
 * its secret (never the secret), and its revocation and expiry, which authentication checks
 * at each use. Unknown public keys are not kept: a key created elsewhere works at once.
 */
import type { Environment } from './api-key.entity';
import type { Principal } from '../../domain/permissions';

/** What authentication needs of a key row. */
export interface KnownKey {
  id: string;
  merchantId: string;
  environment: Environment;
  /** SHA-256 of the secret, hex. */
  secretHash: string;
  revoked: boolean;
  /** Epoch ms after which the key is refused (a rolled key), or null. */
  expiresAt: number | null;
  principal: Principal;
}

/** Taken when a read begins; `store` keeps the row it read only if nothing was forgotten since. */
export interface ReadTicket {
  generation: number;
  startedAt: number;
}

/** Entries kept at most; past it the oldest goes (a deployment has far fewer keys in use). */
const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { key: KnownKey; until: number }>();
  private generation = 0;

  /** `ttlMs` 0: nothing is kept (every request reads its key). The gateway's is API_KEY_CACHE_MS, 500 by default: well inside a second. */
  constructor(readonly ttlMs: number) {}

  /** The key with this public key, if one was read less than `ttlMs` ago and not forgotten since. */
  get(publicKey: string, now = Date.now()): KnownKey | undefined {
    const entry = this.entries.get(publicKey);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(publicKey);
      return undefined;
    }
    return entry.key;
  }

  /** Call just before reading a key row; hand the ticket to `store` with what was read. */
  startRead(): ReadTicket {
    return { generation: this.generation, startedAt: Date.now() };
  }

  /** Keeps `key` until `ttlMs` after its read began, unless a key was forgotten since that read began. */
  store(publicKey: string, key: KnownKey, ticket: ReadTicket): void {
    if (this.ttlMs === 0 || ticket.generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(publicKey, { key, until: ticket.startedAt + this.ttlMs });
  }

  /** The key's row changed (or may have): drop it, and refuse whatever reads are in flight. */
  forget(apiKeyId: string): void {
    this.generation++;
    // Rare (revocations and rolls), and the map is small: a walk beats a second index.
    for (const [publicKey, entry] of this.entries) {
      if (entry.key.id === apiKeyId) this.entries.delete(publicKey);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
