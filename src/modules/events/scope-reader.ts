/**
 * The shared live reader of one (merchant, environment) scope, and the state of each stream
 * it feeds. One statement per wake-up serves every joined stream of the scope.
 */
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../db/db';
import type { Scope } from '../../domain/scope';
import type { EventRecord } from './event.entity';
import type { EventService } from './event.service';
import { Waiter } from './stream-waiter';

/** Events read per statement, by the shared reader and by a stream catching up on its own. */
export const BATCH = 200;
/** Events queued for a stream whose consumer lags; beyond this it leaves the shared reader and reads on its own. */
const MAX_QUEUED = 1000;
/** How long a reader waits before reading again when the database is out. */
export const UNAVAILABLE_PAUSE_MS = 1000;

/**
 * One stream of a scope. `pos` is the newest seq handed to it (queued or read), whatever
 * its type filter: the stream has seen every event of its scope up to `pos`, once.
 */
export class StreamState {
  readonly waiter = new Waiter();
  readonly queue: EventRecord[] = [];
  /** Fed by the scope's shared reader (else it reads its own history until it reaches the reader). */
  joined = false;
  /** A shared read saw its key revoked: it gets nothing more (revocation is final) and waits to be closed. */
  revoked = false;
  error?: unknown;
  constructor(
    public pos: number,
    readonly apiKeyId: string | undefined,
  ) {}
}

/**
 * The scope's shared live reader: on each wake, ONE statement reads the events after the
 * lowest `pos` of the joined streams (and, in the same statement, which of their keys are
 * revoked) and hands each stream the rows after its own `pos`. Wake-ups that arrive during
 * a read coalesce into one more read.
 */
export class ScopeReader {
  readonly streams = new Set<StreamState>();
  /** The newest seq the shared reader has read (undefined before its first read). */
  head?: number;
  private dirty = false;
  private running = false;

  constructor(
    readonly scope: Scope,
    private readonly events: EventService,
    private readonly log: Logger,
  ) {}

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
          this.handOut(from, rows, revoked);
          if (rows.length < BATCH) break;
        }
      }
    } finally {
      this.running = false;
    }
    if (this.dirty && this.streams.size > 0) void this.run();
  }

  /** Gives each joined stream the rows of a read from `from` that are newer than its own `pos`. */
  private handOut(from: number, rows: EventRecord[], revoked: Set<string>): void {
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
  }
}
