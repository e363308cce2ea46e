/**
 * Releasing a key after a failure (a 5xx): its `in_flight` row is deleted if it is still this
 * request's, so a retry reaches a fresh handler. The release only ever deletes an `in_flight`
 * row under this request's lease: a unit of work whose COMMIT was cut by a database deadline
 * may have committed after all, and then its row is `done` and the retry replays it.
 *
 * When the database is out, the release cannot run; it is kept and done as soon as the
 * database answers again (Db.onAvailable, the `idempotency.release` job, and a retry of the
 * same key in this process), so a key whose request committed nothing is not blocked for
 * IDEMPOTENCY_LOCK_TIMEOUT_MS. Only a process that dies before it could release leaves the
 * key to the lease timeout.
 */
import type { Db } from '../../db/db';
import { IdempotencyKey } from './idempotency-key.entity';

/** Releases kept for later at most (a bound on memory in a very long outage; the lease timeout covers the rest). */
const MAX_PENDING_RELEASES = 10_000;

export class KeyReleases {
  /** Releases that could not run (the database was out): row id -> the lease (locked_at ms) it must still hold. */
  private readonly pending = new Map<string, number>();
  private flushing?: Promise<number>;

  constructor(private readonly db: Db) {
    db.onAvailable(() => void this.flush().catch(() => undefined));
  }

  get count(): number {
    return this.pending.size;
  }

  /** Whether a release of row `id` under `lease` is waiting (this process's own request still holds the key). */
  isPending(id: string, lease: number): boolean {
    return this.pending.get(id) === lease;
  }

  /** Deletes the row if it is still in flight under `lease`; never throws (kept for later when it fails). */
  async release(row: IdempotencyKey): Promise<void> {
    try {
      await this.now(row.id, row.lockedAt.getTime());
    } catch {
      this.keep(row.id, row.lockedAt.getTime());
    }
  }

  /** Keeps the release for later and tries it in the background now: the caller does not wait for a database that just failed. */
  soon(row: IdempotencyKey): void {
    this.keep(row.id, row.lockedAt.getTime());
    void this.flush().catch(() => undefined);
  }

  /** Runs the releases kept while the database was out; stops at the first that fails. Returns how many ran. */
  flush(): Promise<number> {
    if (this.pending.size === 0) return Promise.resolve(0);
    this.flushing ??= (async () => {
      let done = 0;
      try {
        for (const [id, lease] of [...this.pending]) {
          await this.now(id, lease);
          done++;
        }
      } finally {
        this.flushing = undefined;
      }
      return done;
    })();
    return this.flushing;
  }

  /** Deletes row `id` if it is in flight under `lease` (and forgets a kept release of it). */
  async now(id: string, lease: number): Promise<void> {
    await this.db.tx((tx) =>
      tx
        .createQueryBuilder()
        .delete()
        .from(IdempotencyKey)
        .where('id = :id AND locked_at = :lease AND state = :state', { id, lease, state: 'in_flight' })
        .execute(),
    );
    if (this.pending.get(id) === lease) this.pending.delete(id);
  }

  keep(id: string, lease: number): void {
    if (this.pending.size < MAX_PENDING_RELEASES) this.pending.set(id, lease);
  }
}
