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
 *
 * The hub keeps one shared reader per watched scope (scope-reader.ts) and routes those
 * wake-ups to it; each subscriber's stream (event-stream.ts) catches up on its own, then is
 * fed by its scope's reader.
 */
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/db';
import type { RedisBus } from '../../db/redis';
import type { Scope } from '../../domain/scope';
import type { EventRecord } from './event.entity';
import type { CommittedEvent, EventService } from './event.service';
import { eventStream } from './event-stream';
import { ScopeReader, StreamState } from './scope-reader';

const scopeKey = (s: { merchantId: string; environment: string }) => `${s.merchantId}/${s.environment}`;
/** The pub/sub channel on which a process announces "<merchant>/<environment>" after a commit. */
export const EVENTS_CHANNEL = 'payments-gateway:events';

export class EventHub {
  private readonly watchers = new Map<string, ScopeReader>();
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
    const key = scopeKey(scope);
    let shared = this.watchers.get(key);
    if (!shared) this.watchers.set(key, (shared = new ScopeReader(scope, this.events, this.log)));
    shared.streams.add(state);
    this.ensurePolling();
    const release = () => {
      state.waiter.close();
      state.queue.length = 0;
      const reader = this.watchers.get(key);
      if (reader) {
        reader.streams.delete(state);
        if (reader.streams.size === 0) {
          this.watchers.delete(key);
          this.known.delete(key);
        }
      }
      if (this.watchers.size === 0) this.stopPolling();
    };
    return eventStream({ scope, events: this.events, shared, state, types, release });
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
