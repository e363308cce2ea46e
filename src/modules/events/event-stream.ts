/**
 * One subscriber's stream of a scope's events: it reads its own history, BATCH rows a
 * statement, until it reaches the scope's shared reader, then the reader feeds it. It
 * yields the events whose type matches, oldest first, until it is closed.
 */
import { isDatabaseUnavailable } from '../../db/db';
import type { Scope } from '../../domain/scope';
import type { EventRecord } from './event.entity';
import { typeMatches, type EventService } from './event.service';
import { BATCH, UNAVAILABLE_PAUSE_MS, type ScopeReader, type StreamState } from './scope-reader';

export interface StreamSource {
  scope: Scope;
  events: EventService;
  /** The scope's shared reader, which `state` is one of the streams of. */
  shared: ScopeReader;
  state: StreamState;
  types?: readonly string[];
  /** Leaves the shared reader; called once the stream ends, however it ends. */
  release: () => void;
}

export function eventStream({ scope, events, shared, state, types, release }: StreamSource): AsyncIterableIterator<EventRecord> {
  const waiter = state.waiter;
  async function* generate(): AsyncGenerator<EventRecord> {
    try {
      while (!waiter.closed) {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what the shared reader caught, as it was thrown
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
              rows = await events.since(scope, state.pos, BATCH, state.apiKeyId);
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
      return gen.return(value);
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
