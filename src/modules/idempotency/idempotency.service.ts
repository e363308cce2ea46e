/**
 * Idempotency keys, in the database so that every gateway process shares them.
 *
 * Phases (after Brandur Leach's "atomic phases"):
 *  1. Lock: INSERT the (api key, Idempotency-Key) row as `in_flight` in its own short
 *     transaction. The unique index decides the race: a loser finds the row and answers
 *     409 (in flight or different fingerprint) or replays the stored response.
 *  2. Execute: the handler's transaction also marks the row `done` with the response, so
 *     the domain change and the stored response commit together. A crash before that
 *     commit leaves no change and an `in_flight` row whose lease expires, after which a
 *     retry takes the key over and runs afresh.
 *  3. A 4xx is stored in a short transaction of its own; a 5xx deletes the row (releases
 *     the key) so the retry reaches a fresh handler.
 *
 * The release only ever deletes an `in_flight` row under this request's lease: a unit of
 * work whose COMMIT was cut by a database deadline may have committed after all, and then
 * its row is `done` and the retry replays it. When the database is out, the release cannot
 * run; it is kept and done as soon as the database answers again (Db.onAvailable, the
 * `idempotency.release` job, and a retry of the same key in this process), so a key whose
 * request committed nothing is not blocked for IDEMPOTENCY_LOCK_TIMEOUT_MS. Only a process
 * that dies before it could release leaves the key to the lease timeout.
 *
 * Claimed in the transaction (MariaDB): phases 1 and 2 are one transaction when nothing
 * runs between them. The first phase's transaction starts with the key's INSERT (`in_flight`)
 * under a lock wait of zero (`SET STATEMENT innodb_lock_wait_timeout = 0`): a concurrent
 * request with the same key, in any process, finds the uncommitted row locked and answers
 * 409 at once (in flight), or finds it committed and replays or answers 409 as above. When
 * the operation ends in that first phase the row is marked `done` in it, so the request
 * costs one transaction and one commit; when a provider call follows, the first phase
 * commits the row `in_flight` before the call, exactly as phase 1 did. A failure before that
 * commit rolls the row back with everything else: the key is free again (nothing to
 * release), and a refusal (4xx) is then stored as a `done` row in a short transaction. On
 * MySQL (no SET STATEMENT) and SQLite, phase 1 stays a transaction of its own.
 *
 * The operation pipeline (src/ops/pipeline.ts) drives these phases for every state-changing
 * call, REST or GraphQL; this service owns the key rows.
 *
 * Stored answers are sealed with the data encryption key (AES-256-GCM, `FieldCipher`): an
 * answer can carry what must never rest in clear (a webhook endpoint's `whsec_` signing
 * secret, shown once by its create call) and personal data (holder names, customers). A
 * replay opens the seal and answers the same bytes. Migration 1733200000000 sealed the rows
 * an earlier version wrote in clear; a row in clear (written by a process of that version
 * during a rolling upgrade) is still read as it is, until it expires.
 */
import type { EntityManager } from 'typeorm';
import type { FieldCipher } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { mayHaveReachedDatabase, type Db } from '../../db/db';
import { exactlyOneRow, late } from '../../db/late';
import { IdempotencyKey } from './idempotency-key.entity';
import type { RequestContext } from '../auth/request-context';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Releases kept for later at most (a bound on memory in a very long outage; the lease timeout covers the rest). */
const MAX_PENDING_RELEASES = 10_000;
const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;
/** A sealed value (`FieldCipher.encrypt`: `v1.` or `v2.<key id>.`); a stored JSON answer never starts with a `v`. */
const SEALED = /^v\d+\./;

/** A stored answer, replayed byte for byte: the status and the exact bytes first sent. */
export interface Replay {
  status: number;
  body: string;
}

export function validateIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (!PRINTABLE_ASCII.test(key)) {
    throw ApiError.validation('Idempotency-Key', 'Idempotency-Key must be 1 to 255 printable ASCII characters (0x20-0x7E); a UUID v4 is suggested.');
  }
  return key;
}

/** Fault injection for tests. */
export interface IdempotencyHooks {
  /** Runs once the key is held (`in_flight` committed), before the handler's transaction opens. */
  beforeExecute?: (operation: string) => Promise<void>;
  /** Runs inside the handler's transaction, before it commits. */
  beforeCommit?: (operation: string) => Promise<void>;
}

/** Thrown in the first phase's transaction when the key is already committed: the caller falls back to `acquire`. */
export class KeyAlreadyStored extends Error {
  constructor() {
    super('the Idempotency-Key already has a row');
  }
}

const ER_LOCK_WAIT_TIMEOUT = 1205;
/**
 * A claim that met another transaction's gap lock (not this key's row) is tried again with a
 * lock wait of this many seconds: such locks are held by short units of work.
 */
const CLAIM_GAP_WAIT_S = 1;
/** The 409s `claimIn` answers for another request's key: never stored as this key's answer. */
const claimConflicts = new WeakSet<Error>();
export function isClaimConflict(err: unknown): boolean {
  return err instanceof Error && claimConflicts.has(err);
}
const CLAIM_COLUMNS = 'id, api_key_id, idem_key, fingerprint, state, response_status, response_body, request_id, locked_at, created_at, expires_at';

export class IdempotencyService {
  readonly hooks: IdempotencyHooks = {};
  /** Releases that could not run (the database was out): row id -> the lease (locked_at ms) it must still hold. */
  private readonly pendingReleases = new Map<string, number>();
  private flushing?: Promise<number>;

  constructor(
    private readonly db: Db,
    private readonly lockTimeoutMs: number,
    private readonly cipher: FieldCipher,
    /** Whether keys are claimed inside the first phase's transaction: on MariaDB (src/app.ts asks the server once, at start). */
    readonly claimsInline = false,
  ) {
    db.onAvailable(() => void this.flushReleases().catch(() => undefined));
  }

  /** Releases still waiting for the database (tests, metrics). */
  get pendingReleaseCount(): number {
    return this.pendingReleases.size;
  }

  /** A stored answer as the client first received it (sealed rows are opened; rows in clear are read as they are). */
  private open(stored: string | null): string {
    if (stored === null) return 'null';
    return SEALED.test(stored) ? this.cipher.decrypt(stored) : stored;
  }

  /** A new key row for this request (`in_flight`, leased from now). */
  newRow(ctx: RequestContext, key: string, fp: string): IdempotencyKey {
    const now = new Date();
    return Object.assign(new IdempotencyKey(), {
      id: newId('idempotencyKey'),
      apiKeyId: ctx.apiKeyId,
      idemKey: key,
      fingerprint: fp,
      state: 'in_flight' as const,
      responseStatus: null,
      responseBody: null,
      requestId: ctx.requestId,
      lockedAt: now,
      createdAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    });
  }

  /**
   * Phase 1 inside the first phase's transaction (MariaDB): INSERTs the row `in_flight`
   * without waiting for a lock. A row another transaction holds uncommitted is a request in
   * flight: 409. A committed row: KeyAlreadyStored (the caller rolls back and `acquire`s).
   */
  async claimIn(em: EntityManager, row: IdempotencyKey): Promise<void> {
    const values = [row.id, row.apiKeyId, row.idemKey, row.fingerprint, row.requestId, row.lockedAt.getTime(), row.createdAt.getTime(), row.expiresAt.getTime()];
    for (let waitSeconds = 0; ; waitSeconds = CLAIM_GAP_WAIT_S) {
      try {
        await em.query(`SET STATEMENT innodb_lock_wait_timeout = ${waitSeconds} FOR INSERT INTO idempotency_keys (${CLAIM_COLUMNS}) VALUES (?, ?, ?, ?, 'in_flight', NULL, NULL, ?, ?, ?, ?)`, values);
        return;
      } catch (err) {
        if (this.db.isUniqueViolation(err)) throw new KeyAlreadyStored();
        if ((err as { errno?: number }).errno !== ER_LOCK_WAIT_TIMEOUT) throw err;
        // The lock met is this key's (another request holds the row uncommitted: in flight), or
        // a gap lock another transaction holds on the index range the new key falls in (a
        // locking read of an absent key); the two look alike to the INSERT. A shared read of
        // this key, also without waiting, tells them apart: it waits for the row's lock but not
        // for a gap lock (gap locks never conflict with one another). Measured: under 20
        // connections of one merchant, about 1 fresh key in 5,000 met a gap lock and was
        // answered a false 409 "in progress" before this check.
        if (waitSeconds === 0 && !(await this.heldByAnother(em, row))) continue;
        const conflict = new ApiError('idempotency_conflict', 'A request with this Idempotency-Key is still in progress. Retry after it completes.');
        claimConflicts.add(conflict);
        throw conflict;
      }
    }
  }

  /** Whether another transaction holds this key's row uncommitted (true), or nothing does (false); a committed row: KeyAlreadyStored. */
  private async heldByAnother(em: EntityManager, row: IdempotencyKey): Promise<boolean> {
    try {
      const found: unknown[] = await em.query(
        'SET STATEMENT innodb_lock_wait_timeout = 0 FOR SELECT id FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ? LOCK IN SHARE MODE',
        [row.apiKeyId, row.idemKey],
      );
      if (found.length > 0) throw new KeyAlreadyStored();
      return false;
    } catch (err) {
      if ((err as { errno?: number }).errno === ER_LOCK_WAIT_TIMEOUT) return true;
      throw err;
    }
  }

  /**
   * Stores a refusal (4xx) as a new `done` row in a short transaction: the key's first
   * answer when its claim was rolled back with the request. False when the key already has
   * a row (another request took it meanwhile; its answer stands).
   */
  async insertRefusal(row: IdempotencyKey, err: ApiError): Promise<boolean> {
    try {
      await this.db.tx((em) => em.insert(IdempotencyKey, Object.assign(new IdempotencyKey(), row, {
        state: 'done' as const, responseStatus: err.status, responseBody: this.cipher.encrypt(JSON.stringify(err.toBody())),
      })));
      return true;
    } catch (failure) {
      if (this.db.isUniqueViolation(failure)) return false;
      throw failure;
    }
  }

  /** Deletes expired keys; run by the scheduler. */
  async purgeExpired(now = Date.now()): Promise<number> {
    // The expired ids are read first (no lock) and deleted by id: a range DELETE may scan
    // (and, under REPEATABLE READ, lock) the whole table and its gaps for its duration, and
    // every key claimed meanwhile would wait on it (or, claimed in the transaction with a
    // zero lock wait, be answered 409 in flight).
    let purged = 0;
    for (;;) {
      const rows = await this.db.read((em) =>
        em.createQueryBuilder(IdempotencyKey, 'k').select('k.id', 'id').where('k.expires_at <= :now', { now }).orderBy('k.expires_at', 'ASC').limit(500).getRawMany<{ id: string }>(),
      );
      if (rows.length === 0) return purged;
      const result = await this.db.tx((em) =>
        em.createQueryBuilder().delete().from(IdempotencyKey).where('id IN (:...ids) AND expires_at <= :now', { ids: rows.map((r) => r.id), now }).execute(),
      );
      purged += result.affected ?? 0;
      if (rows.length < 500) return purged;
    }
  }

  /**
   * Phase 1: takes the key for this request (`in_flight`), or answers with what the key
   * already holds: a replay of the stored answer, or idempotency_conflict.
   */
  async acquire(ctx: RequestContext, key: string, fp: string): Promise<{ row: IdempotencyKey } | { replay: Replay }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = this.newRow(ctx, key, fp);
      const now = row.createdAt;
      try {
        // In a transaction, not autocommitted: the COMMIT is sent only once the INSERT has
        // answered. An INSERT that a stalled connection delivers late, after this request gave
        // up, then never commits (the server rolls it back with the connection), and a release
        // kept for it waits on its row lock; autocommitted, it would leave an in_flight row that
        // nothing completes or releases (test/db/outage.test.ts caught that on MySQL 8).
        await this.db.tx((em) => em.insert(IdempotencyKey, row));
        return { row };
      } catch (err) {
        // The INSERT may have committed before the database went away: release it later.
        if (mayHaveReachedDatabase(err)) this.keepRelease(row.id, now.getTime());
        if (!this.db.isUniqueViolation(err)) throw err;
      }
      const existing = await this.db.read((em) => em.findOneBy(IdempotencyKey, { apiKeyId: ctx.apiKeyId, idemKey: key }));
      if (!existing) continue;
      if (existing.state === 'in_flight' && this.pendingReleases.get(existing.id) === existing.lockedAt.getTime()) {
        // This process's own request, refused while the database was out, still holds the key: release it now.
        await this.releaseNow(existing.id, existing.lockedAt.getTime());
        continue;
      }
      if (existing.expiresAt.getTime() <= now.getTime()) {
        await this.db.tx((em) =>
          em.createQueryBuilder().delete().from(IdempotencyKey)
            .where('id = :id AND expires_at <= :now', { id: existing.id, now: now.getTime() }).execute(),
        );
        continue;
      }
      if (existing.fingerprint !== fp) {
        throw new ApiError('idempotency_conflict', 'This Idempotency-Key was already used with a different request. Use a new key for a new request.');
      }
      if (existing.state === 'done') {
        return { replay: { status: existing.responseStatus ?? 200, body: this.open(existing.responseBody) } };
      }
      if (now.getTime() - existing.lockedAt.getTime() < this.lockTimeoutMs) {
        throw new ApiError('idempotency_conflict', 'A request with this Idempotency-Key is still in progress. Retry after it completes.');
      }
      // The holder's lease ran out (it crashed): take the key over. Its change never committed,
      // because a committed change marks the row done in the same transaction.
      const takenOver = await this.db.tx((em) =>
        em.createQueryBuilder().update(IdempotencyKey)
          .set({ lockedAt: now, requestId: ctx.requestId })
          .where('id = :id AND state = :state AND locked_at = :old', { id: existing.id, state: 'in_flight', old: existing.lockedAt.getTime() })
          .execute(),
      ).catch((err: unknown) => {
        if (mayHaveReachedDatabase(err)) this.keepRelease(existing.id, now.getTime());
        throw err;
      });
      if (takenOver.affected === 1) return { row: Object.assign(existing, { lockedAt: now, requestId: ctx.requestId }) };
    }
    throw new ApiError('idempotency_conflict', 'A request with this Idempotency-Key is still in progress. Retry after it completes.');
  }

  /**
   * Marks the row done with the answer (sealed), in the transaction of the change it
   * answers, guarded by the lease so that a taken-over holder cannot also commit.
   */
  async complete(em: EntityManager, row: IdempotencyKey, status: number, body: string): Promise<void> {
    if (this.db.kind === 'mysql') {
      // Plain SQL on the hot path (no query building), sent with the unit's last statements
      // (src/db/late.ts), guarded: a lease lost to a retry stops the query before its COMMIT.
      await late(em, exactlyOneRow(em, {
        sql: "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE id = ? AND state = 'in_flight' AND locked_at = ?",
        params: [status, this.cipher.encrypt(body), row.id, row.lockedAt.getTime()],
      }, async () => {
        throw new ApiError('idempotency_conflict', 'This Idempotency-Key was taken over by a retry; this attempt was rolled back.');
      }));
      return;
    }
    const result = await em.createQueryBuilder().update(IdempotencyKey)
      .set({ state: 'done', responseStatus: status, responseBody: this.cipher.encrypt(body) })
      .where('id = :id AND state = :state AND locked_at = :lease', { id: row.id, state: 'in_flight', lease: row.lockedAt.getTime() })
      .execute();
    if (result.affected !== 1) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was taken over by a retry; this attempt was rolled back.');
    }
  }

  /** Stores a refusal (4xx) as the key's answer, in a short transaction of its own. */
  async storeError(row: IdempotencyKey, err: ApiError): Promise<void> {
    await this.db.tx((em) => this.complete(em, row, err.status, JSON.stringify(err.toBody())));
  }

  /**
   * Deletes the row (a 5xx) if it is still this request's and in flight: the retry reaches a
   * fresh handler. Never throws: when the database is out, the release is kept for later.
   */
  async release(row: IdempotencyKey): Promise<void> {
    try {
      await this.releaseNow(row.id, row.lockedAt.getTime());
    } catch {
      this.keepRelease(row.id, row.lockedAt.getTime());
    }
  }

  /** Keeps the release for later and tries it in the background now: the caller does not wait for a database that just failed. */
  releaseSoon(row: IdempotencyKey): void {
    this.keepRelease(row.id, row.lockedAt.getTime());
    void this.flushReleases().catch(() => undefined);
  }

  /**
   * Runs the releases kept while the database was out; stops at the first that fails.
   * Returns how many ran. A scheduler job (`idempotency.release`) and the end of an outage call it.
   */
  flushReleases(): Promise<number> {
    if (this.pendingReleases.size === 0) return Promise.resolve(0);
    this.flushing ??= (async () => {
      let done = 0;
      try {
        for (const [id, lease] of [...this.pendingReleases]) {
          await this.releaseNow(id, lease);
          done++;
        }
      } finally {
        this.flushing = undefined;
      }
      return done;
    })();
    return this.flushing;
  }

  private async releaseNow(id: string, lease: number): Promise<void> {
    await this.db.tx((em) =>
      em.createQueryBuilder().delete().from(IdempotencyKey)
        .where('id = :id AND locked_at = :lease AND state = :state', { id, lease, state: 'in_flight' }).execute(),
    );
    if (this.pendingReleases.get(id) === lease) this.pendingReleases.delete(id);
  }

  private keepRelease(id: string, lease: number): void {
    if (this.pendingReleases.size < MAX_PENDING_RELEASES) this.pendingReleases.set(id, lease);
  }
}
