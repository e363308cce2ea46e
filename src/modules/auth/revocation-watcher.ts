/**
 * Tells long-lived connections (graphql-ws sockets) that their API key was revoked, on any
 * process, within about REVOCATION_POLL_MS. HTTP requests authenticate each time against
 * the key cache (key-cache.ts), which hears the same Redis announcement and otherwise lets a
 * key lapse within API_KEY_CACHE_MS.
 *
 * One watcher per process, not one query per socket. It learns of a revocation:
 *  - made in this process (`AuthService.revokeKey`): at once, no query;
 *  - through Redis (`REDIS_URL`): the revoking process publishes the key id after its
 *    commit; a process with sockets on that key checks it in the database (one primary-key
 *    lookup: a stray message on a shared Redis closes nothing), no poll interval to wait;
 *  - by polling: every REVOCATION_POLL_MS, while sockets are open, one statement asks which
 *    of the watched key ids are revoked (or rolled and past their overlap) (`id IN (...) AND revoked_at IS NOT NULL`, by
 *    primary key, in chunks). It needs no Redis and no clock agreement between processes,
 *    and it also catches a key revoked between a socket's authentication and its
 *    registration here. The CLI (`keys revoke`) is reached this way even without Redis.
 */
import type { Logger } from 'pino';
import type { EntityManager } from 'typeorm';
import type { Db } from '../../db/db';
import type { RedisBus } from '../../db/redis';
import { ApiKey } from './api-key.entity';

/** The pub/sub channel on which a process announces a revoked key id after its commit. */
export const REVOCATION_CHANNEL = 'payments-gateway:api-key-revoked';
/** Key ids per polling statement. */
const CHUNK = 500;

/** What a watcher watches: the channel its revocations are announced on, and which of some ids are revoked. */
export interface RevocationSource {
  channel: string;
  revokedAmong(em: EntityManager, ids: string[]): Promise<string[]>;
}

/** API keys: revoked once `revoked_at` is set, or rolled and past their overlap (`expires_at`). */
export const API_KEY_REVOCATIONS: RevocationSource = {
  channel: REVOCATION_CHANNEL,
  async revokedAmong(em, ids) {
    const rows: { id: string }[] = await em
      .createQueryBuilder(ApiKey, 'k')
      .select('k.id', 'id')
      .where('k.id IN (:...ids)', { ids })
      .andWhere('(k.revoked_at IS NOT NULL OR k.expires_at <= :now)', { now: Date.now() })
      .getRawMany();
    return rows.map((r) => r.id);
  },
};

export class RevocationWatcher {
  private readonly watched = new Map<string, Set<() => void>>();
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private failing = false;

  constructor(
    private readonly db: Db,
    private readonly pollMs: number,
    private readonly log: Logger,
    private readonly redis?: RedisBus,
    private readonly source: RevocationSource = API_KEY_REVOCATIONS,
  ) {
    redis?.subscribe(source.channel, (keyId) => {
      if (this.watched.has(keyId)) void this.check([keyId]);
    });
  }

  /** Keys with at least one open connection in this process. */
  get watchedKeys(): number {
    return this.watched.size;
  }

  /**
   * Calls `onRevoked` once when `apiKeyId` is found revoked (unless stopped first). Returns
   * the function that stops watching (call it when the connection closes).
   */
  watch(apiKeyId: string, onRevoked: () => void): () => void {
    let set = this.watched.get(apiKeyId);
    if (!set) this.watched.set(apiKeyId, (set = new Set()));
    set.add(onRevoked);
    if (!this.timer) {
      this.timer = setInterval(() => void this.poll(), this.pollMs);
      this.timer.unref();
    }
    return () => {
      const s = this.watched.get(apiKeyId);
      if (!s) return;
      s.delete(onRevoked);
      if (s.size === 0) this.watched.delete(apiKeyId);
      if (this.watched.size === 0) this.stop();
    };
  }

  /**
   * A revocation committed in this process: closes this process's connections on the key
   * at once and tells the other processes through Redis (waiting, briefly, until Redis has
   * the message: the CLI exits right after). Without Redis they find it by polling.
   */
  async revoked(apiKeyId: string): Promise<void> {
    this.fire(apiKeyId);
    if (this.redis && !(await this.redis.publishNow(this.source.channel, apiKeyId))) {
      this.log.warn('revocation not published to Redis; other processes find it by polling');
    }
  }

  close(): void {
    this.stop();
    this.watched.clear();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private fire(apiKeyId: string): void {
    const set = this.watched.get(apiKeyId);
    if (!set) return;
    this.watched.delete(apiKeyId);
    if (this.watched.size === 0) this.stop();
    for (const onRevoked of set) {
      try {
        onRevoked();
      } catch (err) {
        this.log.warn({ err }, 'revocation callback failed');
      }
    }
  }

  /** One poll at a time; a tick that finds one still running is skipped. */
  private async poll(): Promise<void> {
    if (this.polling || this.watched.size === 0) return;
    this.polling = this.check([...this.watched.keys()]).finally(() => (this.polling = undefined));
    await this.polling;
  }

  private async check(ids: string[]): Promise<void> {
    try {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        const revoked = await this.db.read((em) => this.source.revokedAmong(em, chunk));
        for (const id of revoked) this.fire(id);
      }
      if (this.failing) this.log.info('revocation check recovered');
      this.failing = false;
    } catch (err) {
      // Logged once per outage, not at every tick; the sockets stay open until it answers again.
      if (!this.failing) this.log.warn({ code: (err as { code?: string }).code }, 'revocation check failed');
      this.failing = true;
    }
  }
}
