/**
 * Merchants and API keys. Secrets are random 32-byte values, stored only as SHA-256
 * digests (a fast hash is right for high-entropy machine secrets) and compared in
 * constant time. Every failure is the same 401: the message never says which part failed.
 * A key read from the database is kept in memory for a moment (key-cache.ts); every change
 * of a key made here or through ApiKeyService calls `forget` after its commit.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { digestEquals, sha256 } from '../../domain/crypto';
import { compiledSelect } from '../../db/compiled-select';
import type { Db } from '../../db/db';
import { ApiKey, Environment } from './api-key.entity';
import { Merchant } from './merchant.entity';
import type { AuthenticatedKey } from '../../domain/scope';
import { FULL_ACCESS, type Access, type Principal, type Resource } from '../../domain/permissions';
import { grantList, parseGrants } from '../../domain/access';
import { BoundedMemo } from '../../domain/bounded-memo';
import type { LastUse } from './last-use';
import { KeyCache, type KnownKey } from './key-cache';

export interface IssuedKey {
  merchant_id: string;
  api_key_id: string;
  environment: Environment;
  public_key: string;
  secret_key: string;
  /** A restricted key's grants (`["balances:read", ...]`); absent for a full key. */
  permissions?: string[];
}

const PUBLIC_KEY = /^pk_(test|live)_[A-Za-z0-9]{16,64}$/;
/** `sk_`: a full secret key; `rk_`: a restricted one. */
const SECRET_KEY = /^(?:sk|rk)_(test|live)_[A-Za-z0-9]{16,96}$/;
/** Parsed grants by stored list (a handful of distinct lists per deployment). */
const GRANTS = new BoundedMemo<Readonly<Record<Resource, Access>>>(1024);

/** The principal a key row authenticates as. */
export function keyPrincipal(key: Pick<ApiKey, 'id' | 'permissions'> & { createdBy?: string | null }): Principal {
  const person = key.createdBy ?? key.id;
  if (key.permissions === null) return { type: 'api_key', id: key.id, restricted: false, grants: FULL_ACCESS, person };
  const stored = key.permissions;
  return { type: 'api_key', id: key.id, restricted: true, grants: GRANTS.get(stored, () => parseGrants(stored ? stored.split(',') : [])), person };
}
/**
 * A new key row and its secret (the row holds only the secret's SHA-256 digest): `rk_` with
 * `permissions` (a restricted key), `sk_` without. The secret is for the caller to show once.
 * `createdBy`: the person the key counts as (null: the operator's key, which counts as itself).
 */
export function newKeyRow(
  merchantId: string,
  environment: Environment,
  permissions: readonly string[] | null,
  now = new Date(),
  createdBy: string | null = null,
): { row: ApiKey; secretKey: string } {
  const publicKey = `pk_${environment}_${alnum(18).slice(0, 24)}`;
  const secretKey = `${permissions ? 'rk' : 'sk'}_${environment}_${alnum(40).slice(0, 48)}`;
  const row = Object.assign(new ApiKey(), {
    id: newId('apiKey', now.getTime()),
    merchantId,
    environment,
    publicKey,
    secretHash: sha256(secretKey).toString('hex'),
    createdAt: now,
    revokedAt: null,
    permissions: permissions ? permissions.join(',') : null,
    name: null,
    expiresAt: null,
    lastUsedAt: null,
    createdBy,
  });
  return { row, secretKey };
}

/** What the CLI prints of a new key: the only time its secret is seen. */
export function issued(row: ApiKey, secretKey: string): IssuedKey {
  return {
    merchant_id: row.merchantId,
    api_key_id: row.id,
    environment: row.environment,
    public_key: row.publicKey,
    secret_key: secretKey,
    ...(row.permissions !== null ? { permissions: row.permissions ? row.permissions.split(',') : [] } : {}),
  };
}

/** A digest nobody's secret has, compared against when the public key is unknown so timing tells nothing. */
const DUMMY_DIGEST = sha256('no such key').toString('hex');

function unauthorized(): ApiError {
  return new ApiError(
    'unauthorized',
    'Invalid API credentials. Send HTTP Basic auth with your public key as the username and your secret key as the password.',
  );
}

function alnum(bytes: number): string {
  // base62 without modulo bias is not needed for secrecy here: 32 random bytes of base64 stripped of symbols keeps > 190 bits.
  return randomBytes(bytes)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '');
}

/** Why credentials were refused: for the server's log and metrics only, never told to the client. */
export type RefusalReason = 'missing' | 'malformed' | 'unknown_key' | 'wrong_secret' | 'revoked' | 'environment_mismatch';

/** Where refusals are logged (pino's Logger fits). */
export interface RefusalLog {
  warn(obj: object, msg: string): void;
}

/** What a committed revocation is told to (the revocation watcher). */
export interface RevocationNotice {
  revoked(apiKeyId: string): Promise<void> | void;
}

export class AuthService {
  /** Credentials refused by this process, by reason (the metric auth_refused_total). */
  readonly refused: Record<RefusalReason, number> = {
    missing: 0,
    malformed: 0,
    unknown_key: 0,
    wrong_secret: 0,
    revoked: 0,
    environment_mismatch: 0,
  };

  constructor(
    private readonly db: Db,
    private readonly log?: RefusalLog,
    /** Notes each authenticated key's use (last_used_at, written at most once a minute per key). */
    private readonly lastUse?: LastUse,
    /** Keys read recently (by public key); the default keeps none. */
    private readonly keys = new KeyCache(0),
    /** Told of each committed revocation: closes the key's open sockets, on every process. */
    private readonly revocations?: RevocationNotice,
  ) {}

  /**
   * A key's row changed (revoked, rolled, ...): this process stops using what it kept of it
   * at once. Other processes hear of revocations through Redis, or let their copy lapse.
   */
  forget(apiKeyId: string): void {
    this.keys.forget(apiKeyId);
  }

  /**
   * A revocation has committed: this process forgets the key, and the revocation watcher closes
   * its open graphql-ws sockets here and tells the other processes. A watcher that fails is
   * left to its poll, which finds the revoked row.
   */
  async revoked(apiKeyId: string): Promise<void> {
    this.forget(apiKeyId);
    try {
      await this.revocations?.revoked(apiKeyId);
    } catch {
      /* the watcher's poll still finds it */
    }
  }

  /**
   * Counts and logs one refusal (one line: the reason, the key id when the public key is
   * known, else the public key's first characters when it has the public key's form; never
   * the secret) and returns the client's 401, which says none of it.
   */
  private refuse(reason: RefusalReason, publicKey?: string, apiKeyId?: string): ApiError {
    this.refused[reason]++;
    const publicKeyPrefix = publicKey && PUBLIC_KEY.test(publicKey) ? `${publicKey.slice(0, 12)}...` : undefined;
    this.log?.warn({ reason, apiKeyId, publicKeyPrefix }, 'request refused: credentials');
    return unauthorized();
  }

  /** Parses `Authorization: Basic base64(pk:sk)` and returns the key's scope, or throws 401. */
  async authenticate(header: string | undefined): Promise<AuthenticatedKey> {
    if (!header) throw this.refuse('missing');
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!m) throw this.refuse('malformed');
    const decoded = Buffer.from(m[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw this.refuse('malformed');
    const publicKey = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    const pk = PUBLIC_KEY.exec(publicKey);
    const sk = SECRET_KEY.exec(secret);
    const key = pk ? await this.keyByPublicKey(publicKey) : null;
    const presented = sha256(secret).toString('hex');
    const matches = digestEquals(presented, key?.secretHash ?? DUMMY_DIGEST);
    if (!pk || !sk) throw this.refuse('malformed', publicKey);
    if (!key) throw this.refuse('unknown_key', publicKey);
    if (!matches) throw this.refuse('wrong_secret', publicKey, key.id);
    if (pk[1] !== sk[1] || key.environment !== pk[1]) throw this.refuse('environment_mismatch', publicKey, key.id);
    // Checked at each use, so a kept key stops at its expiry to the millisecond.
    if (key.revoked || (key.expiresAt !== null && key.expiresAt <= Date.now())) throw this.refuse('revoked', publicKey, key.id);
    this.lastUse?.note(key.id);
    return { apiKeyId: key.id, merchantId: key.merchantId, environment: key.environment, principal: key.principal };
  }

  /** The key with this public key: from memory if read less than API_KEY_CACHE_MS ago, else from the database. */
  private async keyByPublicKey(publicKey: string): Promise<KnownKey | null> {
    const kept = this.keys.get(publicKey);
    if (kept) return kept;
    const ticket = this.keys.startRead();
    const [row] = await this.db.read((em) =>
      compiledSelect(em, 'apiKey.byPublicKey', { publicKey }, () =>
        em.createQueryBuilder(ApiKey, 'k').where('k.public_key = :publicKey', { publicKey }).limit(1),
      ),
    );
    if (!row) return null;
    const key: KnownKey = {
      id: row.id,
      merchantId: row.merchantId,
      environment: row.environment,
      secretHash: row.secretHash,
      revoked: row.revokedAt !== null,
      expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
      principal: keyPrincipal(row),
    };
    this.keys.store(publicKey, key, ticket);
    return key;
  }

  async createMerchant(name: string): Promise<Merchant> {
    const trimmed = name.trim();
    if (!trimmed || trimmed.length > 200) throw ApiError.validation('name', 'Merchant name must be 1 to 200 characters.');
    return this.db.tx(async (em) => {
      const merchant = em.create(Merchant, { id: newId('merchant'), name: trimmed, createdAt: new Date() });
      await em.insert(Merchant, merchant);
      return merchant;
    });
  }

  async listMerchants(): Promise<Merchant[]> {
    return this.db.read((em) => em.find(Merchant, { order: { createdAt: 'ASC', id: 'ASC' } }));
  }

  /** Finds a merchant by id or by name. */
  async findMerchant(idOrName: string): Promise<Merchant | null> {
    return this.db.read(async (em) => (await em.findOneBy(Merchant, { id: idOrName })) ?? em.findOneBy(Merchant, { name: idOrName }));
  }

  /**
   * A new key pair; with `grants`, a restricted key (`rk_` secret) holding them. `expiresAt`
   * is for rolls only. The secret is returned here and never again.
   */
  async issueKey(merchantId: string, environment: Environment, grants?: Readonly<Record<Resource, Access>>): Promise<IssuedKey> {
    const { row, secretKey } = newKeyRow(merchantId, environment, grants ? grantList(grants) : null);
    await this.db.tx((em) => em.insert(ApiKey, row));
    return issued(row, secretKey);
  }

  /**
   * Revokes by public key or key id. Returns false when no such key exists. This process
   * refuses the key from the commit on; other processes once they hear of it through Redis,
   * or their kept copy lapses (API_KEY_CACHE_MS). Open graphql-ws sockets are closed by the
   * revocation watcher (`revoked`).
   */
  async revokeKey(publicKeyOrId: string): Promise<boolean> {
    const id = await this.db.tx(async (em) => {
      // Write first, read after: on SQLite a transaction that reads and then writes cannot
      // wait for another process's write (the CLI beside a running server); one that
      // starts with its write waits (busy_timeout) like any writer.
      await em
        .createQueryBuilder()
        .update(ApiKey)
        .set({ revokedAt: new Date() })
        .where('(public_key = :key OR id = :key) AND revoked_at IS NULL', { key: publicKeyOrId })
        .execute();
      const key = (await em.findOneBy(ApiKey, { publicKey: publicKeyOrId })) ?? (await em.findOneBy(ApiKey, { id: publicKeyOrId }));
      return key?.id;
    });
    if (!id) return false;
    await this.revoked(id);
    return true;
  }

  async merchantsByIds(ids: readonly string[]): Promise<Map<string, Merchant>> {
    const rows = await this.db.read((em) =>
      em
        .createQueryBuilder(Merchant, 'm')
        .where('m.id IN (:...ids)', { ids: [...ids] })
        .getMany(),
    );
    return new Map(rows.map((m) => [m.id, m]));
  }
}
