/**
 * Idempotency keys, in the database so that every gateway process shares them. This service
 * owns the key rows; how a request takes its key is a `KeyClaim` (src/ops/key-claim.ts), one per way
 * the database allows, and the operation pipeline (src/ops/pipeline.ts) runs every
 * state-changing call, REST or GraphQL, under one.
 *
 * Phases (after Brandur Leach's "atomic phases"):
 *  1. Lock: INSERT the (api key, Idempotency-Key) row as `in_flight` (`acquire`, in its own
 *     short transaction; on MariaDB in the first phase's, ./claim-inline.ts). The unique index
 *     decides the race: a loser finds the row and answers 409 (in flight or different
 *     fingerprint) or replays the stored response.
 *  2. Execute: the handler's last transaction also marks the row `done` with the response
 *     (`complete`), so the domain change and the stored response commit together. A crash
 *     before that commit leaves no change and an `in_flight` row whose lease expires, after
 *     which a retry takes the key over and runs afresh.
 *  3. A 4xx is stored in a short transaction of its own (`storeError`); a 5xx deletes the row
 *     (releases the key, ./releases.ts) so the retry reaches a fresh handler.
 *
 * Stored answers are sealed with the data encryption key (AES-256-GCM, `FieldCipher`): an
 * answer can carry what must never rest in clear (a webhook endpoint's `whsec_` signing
 * secret, shown once by its create call) and personal data (holder names, customers). A
 * replay opens the seal and answers the same bytes. Migration 1733200000000 sealed the rows
 * an earlier version wrote in clear; a row in clear (written by a process of that version
 * during a rolling upgrade) is still read as it is, until it expires.
 */
import type { FieldCipher } from '../../domain/crypto';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { exactlyOneRow, type EndWork } from '../../db/batch';
import { mayHaveReachedDatabase, type Db } from '../../db/db';
import type { Tx } from '../../db/tx';
import { IdempotencyKey } from './idempotency-key.entity';
import type { RequestContext } from '../../domain/scope';
import type { IdempotencyHooks, Replay } from '../../ops/key-claim';
import { KeyReleases } from './releases';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A sealed value (`FieldCipher.encrypt`: `v1.` or `v2.<key id>.`); a stored JSON answer never starts with a `v`. */
const SEALED = /^v\d+\./;

/** Seconds a client is asked to wait before sending a request again whose key is still in flight. */
const IN_FLIGHT_RETRY_AFTER_S = 1;

/**
 * 409 idempotency_conflict while the first request with the key is still running, with
 * Retry-After: the same request sent again later replays that request's answer.
 */
export class KeyInFlight extends ApiError {
  /** Sent with the answer (src/http/error-replies.ts `headersOf`). */
  readonly headers = { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_S) };

  constructor() {
    super('idempotency_conflict', 'A request with this Idempotency-Key is still in progress. Retry after it completes.');
  }
}

export class IdempotencyService {
  readonly hooks: IdempotencyHooks = {};
  /** Releases of keys after a failure, kept for later while the database is out. */
  readonly releases: KeyReleases;

  constructor(
    readonly db: Db,
    private readonly lockTimeoutMs: number,
    private readonly cipher: FieldCipher,
    /** Whether keys are claimed inside the first phase's transaction: on MariaDB (src/app.ts asks the server once, at start). */
    readonly claimsInline = false,
  ) {
    this.releases = new KeyReleases(db);
  }

  /** Releases still waiting for the database (tests, metrics). */
  get pendingReleaseCount(): number {
    return this.releases.count;
  }

  /** Runs the releases kept while the database was out (the `idempotency.release` job). */
  flushReleases(): Promise<number> {
    return this.releases.flush();
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
   * Stores a refusal (4xx) as a new `done` row in a short transaction: the key's first
   * answer when its claim was rolled back with the request. False when the key already has
   * a row (another request took it meanwhile; its answer stands).
   */
  async insertRefusal(row: IdempotencyKey, err: ApiError): Promise<boolean> {
    try {
      await this.db.tx((tx) =>
        tx.insert(
          IdempotencyKey,
          Object.assign(new IdempotencyKey(), row, {
            state: 'done' as const,
            responseStatus: err.status,
            responseBody: this.cipher.encrypt(JSON.stringify(err.toBody())),
          }),
        ),
      );
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
        em
          .createQueryBuilder(IdempotencyKey, 'k')
          .select('k.id', 'id')
          .where('k.expires_at <= :now', { now })
          .orderBy('k.expires_at', 'ASC')
          .limit(500)
          .getRawMany<{ id: string }>(),
      );
      if (rows.length === 0) return purged;
      const result = await this.db.tx((em) =>
        em
          .createQueryBuilder()
          .delete()
          .from(IdempotencyKey)
          .where('id IN (:...ids) AND expires_at <= :now', { ids: rows.map((r) => r.id), now })
          .execute(),
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
        if (mayHaveReachedDatabase(err)) this.releases.keep(row.id, now.getTime());
        if (!this.db.isUniqueViolation(err)) throw err;
      }
      const existing = await this.db.read((em) => em.findOneBy(IdempotencyKey, { apiKeyId: ctx.apiKeyId, idemKey: key }));
      if (!existing) continue;
      if (existing.state === 'in_flight' && this.releases.isPending(existing.id, existing.lockedAt.getTime())) {
        // This process's own request, refused while the database was out, still holds the key: release it now.
        await this.releases.now(existing.id, existing.lockedAt.getTime());
        continue;
      }
      if (existing.expiresAt.getTime() <= now.getTime()) {
        await this.db.tx((em) =>
          em.createQueryBuilder().delete().from(IdempotencyKey).where('id = :id AND expires_at <= :now', { id: existing.id, now: now.getTime() }).execute(),
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
        throw new KeyInFlight();
      }
      // The holder's lease ran out (it crashed): take the key over. Its change never committed,
      // because a committed change marks the row done in the same transaction.
      const takenOver = await this.db
        .tx((em) =>
          em
            .createQueryBuilder()
            .update(IdempotencyKey)
            .set({ lockedAt: now, requestId: ctx.requestId })
            .where('id = :id AND state = :state AND locked_at = :old', {
              id: existing.id,
              state: 'in_flight',
              old: existing.lockedAt.getTime(),
            })
            .execute(),
        )
        .catch((err: unknown) => {
          if (mayHaveReachedDatabase(err)) this.releases.keep(existing.id, now.getTime());
          throw err;
        });
      if (takenOver.affected === 1) return { row: Object.assign(existing, { lockedAt: now, requestId: ctx.requestId }) };
    }
    throw new KeyInFlight();
  }

  /**
   * Marks the row done with the answer (sealed), in the transaction of the change it
   * answers, guarded by the lease so that a taken-over holder cannot also commit.
   */
  async complete(tx: Tx, row: IdempotencyKey, status: number, body: string): Promise<EndWork[]> {
    if (this.db.kind === 'mysql') {
      // Plain SQL on the hot path (no query building), returned for the end of the unit with its
      // last statements (src/db/tx.ts), guarded: a lease lost to a retry stops the query before its COMMIT.
      return [
        exactlyOneRow(
          tx,
          {
            sql: "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE id = ? AND state = 'in_flight' AND locked_at = ?",
            params: [status, this.cipher.encrypt(body), row.id, row.lockedAt.getTime()],
          },
          () => Promise.reject(new ApiError('idempotency_conflict', 'This Idempotency-Key was taken over by a retry; this attempt was rolled back.')),
        ),
      ];
    }
    const result = await tx
      .createQueryBuilder()
      .update(IdempotencyKey)
      .set({ state: 'done', responseStatus: status, responseBody: this.cipher.encrypt(body) })
      .where('id = :id AND state = :state AND locked_at = :lease', { id: row.id, state: 'in_flight', lease: row.lockedAt.getTime() })
      .execute();
    if (result.affected !== 1) {
      throw new ApiError('idempotency_conflict', 'This Idempotency-Key was taken over by a retry; this attempt was rolled back.');
    }
    return [];
  }

  /** Stores a refusal (4xx) as the key's answer, in a short transaction of its own. */
  async storeError(row: IdempotencyKey, err: ApiError): Promise<void> {
    await this.db.unit(async (tx) => ({ value: undefined, end: await this.complete(tx, row, err.status, JSON.stringify(err.toBody())) }));
  }
}
