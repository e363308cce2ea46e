/**
 * API key management: list, create, roll and revoke the keys of the caller's merchant and
 * environment. A key's secret is in the create and roll answers only; the row holds its
 * SHA-256 digest, nothing in a log names it, and the pipeline seals the stored answer that
 * an Idempotency-Key replays (src/modules/idempotency/idempotency.service.ts), as it does a
 * webhook endpoint's new secret.
 *
 * A roll makes a new key pair with the same permissions and gives the old key an end
 * (`expires_at`, at most 7 days on): authentication and the revocation watcher refuse it from
 * then on, so its open sockets close as a revoked key's do. A revocation closes them at once
 * (`AuthService.revoked`, after the commit).
 *
 * Authentication keeps keys in memory for a moment (key-cache.ts): after the commit of a roll
 * or a revocation this process forgets the key before answering, so its next request reads
 * the new row. Other processes hear of a revocation through Redis; a roll's new `expires_at`
 * (at least an hour on, or now when it is a revocation) reaches them when their copy lapses.
 */
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { isoInstant } from '../../domain/instant';
import { covers, FULL_ACCESS, grantsOf, personOf, RESOURCES, type Access, type Principal, type Resource } from '../../domain/permissions';
import { grantList, parseGrants, permissionDenied } from '../../domain/access';
import type { Done } from '../../domain/operation';
import type { RequestContext, Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { findManyInScope } from '../../db/scoped-reads';
import { lockedOne } from '../../db/locking-read';
import type { Tx } from '../../db/tx';
import { ApiKey } from './api-key.entity';
import { keyPrincipal, newKeyRow, type AuthService } from './auth.service';
import type { LastUse } from './last-use';
import type { ApiKeyStatus, ApiKeyWire } from './api-key.schemas';

const HOUR_MS = 60 * 60 * 1000;

export function keyStatus(key: ApiKey, now = Date.now()): ApiKeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt) return key.expiresAt.getTime() <= now ? 'expired' : 'expiring';
  return 'active';
}

export function apiKeyToWire(key: ApiKey, now = Date.now()): ApiKeyWire {
  return {
    object: 'api_key',
    id: key.id,
    environment: key.environment,
    name: key.name ?? null,
    public_key: key.publicKey,
    restricted: key.permissions !== null,
    permissions: key.permissions === null ? null : key.permissions ? key.permissions.split(',') : [],
    status: keyStatus(key, now),
    created_at: isoInstant(key.createdAt),
    last_used_at: key.lastUsedAt ? isoInstant(key.lastUsedAt) : null,
    expires_at: key.expiresAt ? isoInstant(key.expiresAt) : null,
    revoked_at: key.revokedAt ? isoInstant(key.revokedAt) : null,
  };
}

/** Throws permission_denied naming the first grant of `grants` that `principal` does not hold itself (no key can do more than its maker). */
function mayGrant(principal: Principal, grants: Readonly<Record<Resource, Access>>): void {
  const own = grantsOf(principal);
  for (const r of RESOURCES) {
    const wanted = grants[r];
    if (wanted !== 'none' && !covers(own[r], wanted)) throw permissionDenied(`${r}:${wanted}`);
  }
}

export interface CreateKeyInput {
  /** Null: a full key. */
  permissions: string[] | null;
  /** Null: no name. */
  name: string | null;
}

export interface RollKeyInput {
  id: string;
  overlapHours: number;
}

export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly auth: Pick<AuthService, 'forget' | 'revoked'>,
    private readonly lastUse?: Pick<LastUse, 'flush'>,
  ) {}

  /** Every key of the scope, newest first (a merchant has a handful). */
  async list(scope: Scope): Promise<ApiKeyWire[]> {
    // This process's uses noted since the last write show at once.
    await this.lastUse?.flush();
    const rows = await this.db.read((em) =>
      em
        .createQueryBuilder(ApiKey, 'k')
        .where('k.merchant_id = :merchantId AND k.environment = :environment', { merchantId: scope.merchantId, environment: scope.environment })
        .orderBy('k.created_at', 'DESC')
        .addOrderBy('k.id', 'DESC')
        .getMany(),
    );
    const now = Date.now();
    return rows.map((k) => apiKeyToWire(k, now));
  }

  /** Several keys of `scope` by id (a DataLoader's batch), with their last use as `list` shows it. */
  async getMany(scope: Scope, ids: readonly string[]): Promise<Map<string, ApiKeyWire>> {
    await this.lastUse?.flush();
    const rows = await findManyInScope(this.db, ApiKey, 'apiKey', scope, ids);
    const now = Date.now();
    return new Map([...rows].map(([id, row]) => [id, apiKeyToWire(row, now)]));
  }

  async create(tx: Tx, ctx: RequestContext, input: CreateKeyInput): Promise<Done<ApiKeyWire>> {
    const parsed = input.permissions === null ? null : parseGrants(input.permissions);
    mayGrant(ctx.principal, parsed ?? FULL_ACCESS);
    const grants = parsed ? grantList(parsed) : null;
    // The new key counts as the person who made it (approvals count people, not keys).
    const { row, secretKey } = newKeyRow(ctx.merchantId, ctx.environment, grants, new Date(), personOf(ctx.principal));
    row.name = input.name;
    await tx.insert(ApiKey, row);
    return { outcome: 'created', value: { ...apiKeyToWire(row), secret_key: secretKey } };
  }

  /** A new pair with the same permissions; the old key works for `overlapHours` more, then never. */
  async roll(tx: Tx, ctx: RequestContext, { id, overlapHours }: RollKeyInput): Promise<Done<ApiKeyWire>> {
    const old = await this.lock(tx, ctx, id);
    if (old.revokedAt || old.expiresAt) {
      throw new ApiError('invalid_state', `The key ${old.id} is already ${old.revokedAt ? 'revoked' : 'rolled'}; roll its replacement instead.`);
    }
    mayGrant(ctx.principal, grantsOf(keyPrincipal(old)));
    const now = new Date();
    const expiresAt = new Date(now.getTime() + overlapHours * HOUR_MS);
    await tx.update(ApiKey, { id: old.id }, { expiresAt });
    // The replacement is the same key's successor: it counts as the person the old key counted as.
    const permissions = old.permissions === null ? null : old.permissions.split(',').filter(Boolean);
    const { row, secretKey } = newKeyRow(ctx.merchantId, ctx.environment, permissions, now, old.createdBy ?? old.id);
    row.name = old.name;
    await tx.insert(ApiKey, row);
    tx.afterCommit(() => {
      // No overlap: the old key's sockets close now, not at the watcher's next poll.
      if (overlapHours === 0) void this.auth.revoked(old.id);
      else this.auth.forget(old.id);
    });
    return { outcome: 'created', value: { ...apiKeyToWire(row), secret_key: secretKey } };
  }

  /**
   * Revoked from the commit on; its sockets close once it committed. A revoked key is answered
   * as it is. As with a roll, a caller may revoke only a key within their own grants: a
   * developer may not take away the merchant's full-access key.
   */
  async revoke(tx: Tx, ctx: RequestContext, id: string): Promise<Done<ApiKeyWire>> {
    const key = await this.lock(tx, ctx, id);
    mayGrant(ctx.principal, grantsOf(keyPrincipal(key)));
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await tx.update(ApiKey, { id: key.id }, { revokedAt: key.revokedAt });
      tx.afterCommit(() => void this.auth.revoked(key.id));
    }
    return { outcome: 'done', value: apiKeyToWire(key) };
  }

  private async lock(tx: Tx, scope: Scope, id: string): Promise<ApiKey> {
    const key = isId('apiKey', id)
      ? await lockedOne(
          tx,
          tx.createQueryBuilder(ApiKey, 'k').where('k.id = :id AND k.merchant_id = :merchantId AND k.environment = :environment', {
            id,
            merchantId: scope.merchantId,
            environment: scope.environment,
          }),
        )
      : null;
    if (!key) throw ApiError.notFound('API key');
    return key;
  }
}
