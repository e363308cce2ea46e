/**
 * `last_used_at` of API keys, kept off the request path: authentication only notes the key
 * id in memory; a timer writes what was noted once a minute (one UPDATE per key used since,
 * to the minute), and a key listing flushes first so it shows this process's latest use.
 * So a key's row is written at most once a minute by each process, never by a request.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/db';
import { ApiKey } from './api-key.entity';

/** How often noted uses are written, and the resolution of last_used_at. */
export const LAST_USE_FLUSH_MS = 60_000;

export class LastUse {
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly flushMs = LAST_USE_FLUSH_MS,
  ) {}

  /** A request was authenticated by `apiKeyId` now. */
  note(apiKeyId: string): void {
    if (!this.pending.has(apiKeyId)) this.pending.set(apiKeyId, Date.now());
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what was noted (each key's first use since the last flush, to the minute); never throws. */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = (async () => {
      try {
        for (const [id, at] of batch) {
          const minute = new Date(at - (at % 60_000));
          await this.db.tx((em) =>
            em
              .createQueryBuilder()
              .update(ApiKey)
              .set({ lastUsedAt: minute })
              .where('id = :id AND (last_used_at IS NULL OR last_used_at < :at)', { id, at: minute.getTime() })
              .execute(),
          );
        }
      } catch (err) {
        // Best effort: a missed minute is the next use's to record.
        this.log.warn({ code: (err as { code?: string }).code }, 'last_used_at not written');
      } finally {
        this.flushing = undefined;
      }
    })();
    return this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
