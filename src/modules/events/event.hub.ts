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
/** Events queued for a stream whose consumer lags; beyond this it leaves the shared reader and reads on its own. */
const MAX_QUEUED = 1000;
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

/**
 * One stream of a scope. `pos` is the newest seq handed to it (queued or read), whatever
 * its type filter: the stream has seen every event of its scope up to `pos`, once.
 */
class StreamState {
  readonly waiter = new Waiter();
  readonly queue: EventRecord[] = [];
  /** Fed by the scope's shared reader (else it reads its own history until it reaches the reader). */
  joined = false;
  /** A shared read saw its key revoked: it gets nothing more (revocation is final) and waits to be closed. */
  revoked = false;
  error?: unknown;
  constructor(public pos: number, readonly apiKeyId: string | undefined) {}
}

/**
 * The scope's shared live reader: on each wake, ONE statement reads the events after the
 * lowest `pos` of the joined streams (and, in the same statement, which of their keys are
 * revoked) and hands each stream the rows after its own `pos`. Wake-ups that arrive during
 * a read coalesce into one more read.
 */
class ScopeEntry {
  readonly streams = new Set<StreamState>();
  /** The newest seq the shared reader has read (undefined before its first read). */
  head?: number;
  private dirty = false;
  private running = false;

  constructor(readonly scope: Scope, private readonly events: EventService, private readonly log: Logger) {}

  wake(): void {
    this.dirty = true;
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.dirty && this.streams.size > 0) {
        this.dirty = false;
        for (;;) {
          const joined = [...this.streams].filter((s) => s.joined);
          if (joined.length === 0) break;
          const from = Math.min(...joined.map((s) => s.pos));
          const keys = [...new Set(joined.map((s) => s.apiKeyId).filter((k): k is string => !!k))];
          let read: { rows: EventRecord[]; revoked: Set<string> };
          try {
            read = await this.events.sinceShared(this.scope, from, BATCH, keys);
          } catch (err) {
            if (!isDatabaseUnavailable(err)) {
              // Not an outage: each stream fed by this read fails with it (as its own read would).
              for (const s of joined) {
                if (!this.streams.has(s)) continue;
                s.error = err;
                s.waiter.wake();
              }
              this.log.warn({ err }, 'event stream read failed');
              break;
            }
            // The streams outlive a database outage: read again from where they were.
            await new Promise((r) => setTimeout(r, UNAVAILABLE_PAUSE_MS).unref());
            if (this.streams.size === 0) return;
            continue;
          }
          const { rows, revoked } = read;
          const newest = rows.length ? rows[rows.length - 1].seq! : from;
          this.head = Math.max(this.head ?? newest, newest);
          for (const s of this.streams) {
            if (!s.joined) continue;
            if (s.pos < from) {
              // Joined during the read, from before what it covered: it catches up on its own.
              s.joined = false;
              s.waiter.wake();
              continue;
            }
            // A read that sees the key revoked hands its streams nothing (nor any later read).
            // It leaves the reader, so that its position no longer holds the shared read back.
            if (s.apiKeyId && revoked.has(s.apiKeyId)) {
              s.revoked = true;
              s.joined = false;
              continue;
            }
            let woke = false;
            for (const row of rows) {
              if (row.seq! <= s.pos) continue;
              s.queue.push(row);
              s.pos = row.seq!;
              woke = true;
            }
            if (s.queue.length >= MAX_QUEUED) s.joined = false; // a slow consumer reads on its own once drained
            if (woke) s.waiter.wake();
          }
          if (rows.length < BATCH) break;
        }
      }
    } finally {
      this.running = false;
    }
    if (this.dirty && this.streams.size > 0) void this.run();
  }
}

export class EventHub {
  private readonly watchers = new Map<string, ScopeEntry>();
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
    for (const { streams } of this.watchers.values()) n += streams.size;
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
   *
   * A stream behind the scope's shared reader (`after` an old event, or a consumer that
   * fell MAX_QUEUED events behind) reads its own history, BATCH rows a statement, until it
   * reaches the reader's position; then it joins the shared reader (one statement per
   * wake-up for all joined streams of the scope).
   */
  stream(scope: Scope, afterSeq: number, types?: readonly string[], apiKeyId?: string): AsyncIterableIterator<EventRecord> {
    const state = new StreamState(afterSeq, apiKeyId);
    const waiter = state.waiter;
    const key = scopeKey(scope);
    let entry = this.watchers.get(key);
    if (!entry) this.watchers.set(key, (entry = new ScopeEntry(scope, this.events, this.log)));
    const shared = entry;
    shared.streams.add(state);
    this.ensurePolling();
    const release = () => {
      waiter.close();
      state.queue.length = 0;
      const e = this.watchers.get(key);
      if (e) {
        e.streams.delete(state);
        if (e.streams.size === 0) {
          this.watchers.delete(key);
          this.known.delete(key);
        }
      }
      if (this.watchers.size === 0) this.stopPolling();
    };
    const events = this.events;
    async function* generate(): AsyncGenerator<EventRecord> {
      try {
        while (!waiter.closed) {
          if (state.error) throw state.error;
          const row = state.queue.shift();
          if (row) {
            if (typeMatches(row.type, types)) yield row;
            continue;
          }
          if (!state.joined && !state.revoked) {
            if (shared.head === undefined || state.pos >= shared.head) {
              // Caught up with the shared reader: it feeds this stream from now on. One more
              // read covers what was committed since the reader's last one.
              state.joined = true;
              shared.wake();
            } else {
              let rows: EventRecord[];
              try {
                rows = await events.since(scope, state.pos, BATCH, apiKeyId);
              } catch (err) {
                // The stream outlives a database outage: it reads again from where it was.
                if (!isDatabaseUnavailable(err)) throw err;
                await waiter.pause(UNAVAILABLE_PAUSE_MS);
                continue;
              }
              if (waiter.closed) return;
              for (const r of rows) state.queue.push(r);
              if (rows.length) state.pos = rows[rows.length - 1].seq!;
              // Nothing newer readable (or the key is revoked): wait for the shared reader.
              else state.joined = true;
              continue;
            }
          }
          await waiter.wait();
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
    for (const { streams } of this.watchers.values()) for (const s of streams) s.waiter.close();
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
    this.watchers.get(key)?.wake();
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
