/**
 * Live event streams for subscriptions. The database is the source of truth: a stream
 * reads `events WHERE seq > last ORDER BY seq` for its (merchant, environment), and since
 * seq is gapless in commit order (see EventService), it never misses or repeats an event.
 *
 * What wakes a stream to read again:
 *  - a commit in this process (EventService.onCommitted), at once;
 *  - a shared poller, one statement per tick for all watched scopes (`EVENTS_POLL_MS`),
 *    which sees commits of other processes;
 *  - with REDIS_URL, a pub/sub message that another process publishes after its commit.
 */
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/db';
import type { Scope } from '../../domain/scope';
import type { EventRecord } from './event.entity';
import { CommittedEvent, EventService, typeMatches } from './event.service';
import type { RedisBus } from '../../db/redis';

const scopeKey = (s: { merchantId: string; environment: string }) => `${s.merchantId}/${s.environment}`;
const BATCH = 200;
/** The pub/sub channel on which a process announces "<merchant>/<environment>" after a commit. */
export const EVENTS_CHANNEL = 'payments-gateway:events';
/** How long a stream waits before reading again when the database is out. */
const UNAVAILABLE_PAUSE_MS = 1000;

class Waiter {
  dirty = true;
  closed = false;
  private resolve?: () => void;

  wake(): void {
    this.dirty = true;
    const r = this.resolve;
    this.resolve = undefined;
    r?.();
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  /** Resolves after `ms`, or earlier when closed. */
  pause(ms: number): Promise<void> {
    return new Promise((r) => {
      const timer = setTimeout(() => {
        this.resolve = undefined;
        r();
      }, ms);
      timer.unref();
      this.resolve = () => {
        clearTimeout(timer);
        r();
      };
    });
  }

  /** Resolves on the next wake, or at once if woken since the last call. */
  wait(): Promise<void> {
    if (this.dirty) {
      this.dirty = false;
      return Promise.resolve();
    }
    return new Promise((r) => (this.resolve = r));
  }
}

export class EventHub {
  private readonly watchers = new Map<string, { scope: Scope; waiters: Set<Waiter> }>();
  private readonly known = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly events: EventService,
    private readonly pollMs: number,
    private readonly log: Logger,
    private readonly redis?: RedisBus,
  ) {
    events.onCommitted((committed) => this.onLocalCommit(committed));
    redis?.subscribe(EVENTS_CHANNEL, (message) => {
      const [merchantId, environment] = message.split('/');
      this.wakeScope(`${merchantId}/${environment}`);
    });
  }

  /** Open streams in this process (all scopes). */
  get streamCount(): number {
    let n = 0;
    for (const { waiters } of this.watchers.values()) n += waiters.size;
    return n;
  }

  get redisReady(): boolean {
    return this.redis?.ready ?? false;
  }

  /**
   * The scope's events with seq > `afterSeq` whose type matches `types`, oldest first:
   * first what is already committed, then live. Ends when `return()` is called.
   * With `apiKeyId` (the reader's key), a read that sees the key revoked returns nothing:
   * no event committed after a revocation reaches that key's stream, even in the moment
   * before the revocation watcher closes the socket.
   */
  stream(scope: Scope, afterSeq: number, types?: readonly string[], apiKeyId?: string): AsyncIterableIterator<EventRecord> {
    const waiter = new Waiter();
    const key = scopeKey(scope);
    let entry = this.watchers.get(key);
    if (!entry) this.watchers.set(key, (entry = { scope, waiters: new Set() }));
    entry.waiters.add(waiter);
    this.ensurePolling();
    const release = () => {
      waiter.close();
      const e = this.watchers.get(key);
      if (e) {
        e.waiters.delete(waiter);
        if (e.waiters.size === 0) {
          this.watchers.delete(key);
          this.known.delete(key);
        }
      }
      if (this.watchers.size === 0) this.stopPolling();
    };
    const events = this.events;
    async function* generate(): AsyncGenerator<EventRecord> {
      let last = afterSeq;
      try {
        while (!waiter.closed) {
          await waiter.wait();
          if (waiter.closed) return;
          for (;;) {
            let rows: EventRecord[];
            try {
              rows = await events.since(scope, last, BATCH, apiKeyId);
            } catch (err) {
              // The stream outlives a database outage: it reads again from where it was.
              if (!isDatabaseUnavailable(err)) throw err;
              await waiter.pause(UNAVAILABLE_PAUSE_MS);
              if (waiter.closed) return;
              continue;
            }
            for (const row of rows) {
              last = row.seq!;
              if (typeMatches(row.type, types)) yield row;
              if (waiter.closed) return;
            }
            if (rows.length < BATCH) break;
          }
        }
      } finally {
        release();
      }
    }
    const gen = generate();
    return {
      next: () => gen.next(),
      return: (value?: unknown) => {
        release();
        return gen.return(value as never);
      },
      throw: (err?: unknown) => {
        release();
        return gen.throw(err);
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  close(): void {
    this.stopPolling();
    for (const { waiters } of this.watchers.values()) for (const w of waiters) w.close();
    this.watchers.clear();
  }

  private onLocalCommit(committed: CommittedEvent[]): void {
    const keys = new Set(committed.map(scopeKey));
    for (const key of keys) {
      this.wakeScope(key);
      this.redis?.publish(EVENTS_CHANNEL, key);
    }
  }

  private wakeScope(key: string): void {
    const entry = this.watchers.get(key);
    if (entry) for (const w of entry.waiters) w.wake();
  }

  private ensurePolling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling || this.watchers.size === 0) return;
    this.polling = true;
    try {
      const latest = await this.events.lastSeqs([...this.watchers.values()].map((e) => e.scope));
      for (const [key, seq] of latest) {
        if (this.known.get(key) !== seq) {
          this.known.set(key, seq);
          this.wakeScope(key);
        }
      }
    } catch (err) {
      // An outage is logged once, by Db; the next poll tries again.
      if (!isDatabaseUnavailable(err)) this.log.warn({ err }, 'event poll failed');
    } finally {
      this.polling = false;
    }
  }
}
