/**
 * The live stream: the `events` subscription over graphql-ws (subprotocol
 * graphql-transport-ws, path /graphql), authenticated by the session cookie the browser
 * sends with the upgrade (the server checks its Origin); no connection params.
 *
 * Reconnection is this module's, not graphql-ws's (retryAttempts: 0): graphql-ws would
 * re-subscribe with the variables of the first subscribe, replaying from the first
 * `after`. Here every (re)subscribe passes `after` = the id of the last event received, so
 * the server first replays exactly what was missed, then goes live. Events created before
 * the reconnection are reported as `missed` (what changed while offline).
 *
 * `watch` runs another subscription on the same socket (a report run's, say): it is
 * subscribed again after a dropped connection with the variables of that moment, so it too
 * resumes with its own `after`.
 *
 * Close codes 4401 (no session) and 4403 (the session ended: signed out elsewhere, role
 * changed, removed from the team) end the dashboard's session; anything else
 * (a dropped socket, a restart, 4429, 1006...) reconnects with a growing delay (0.5 s .. 8 s).
 */
import { createClient } from 'graphql-ws';
import { graphql } from './gql';
import type { LiveEventSubscription, TypedDocumentString } from './gql/graphql';
import { documentIdOf } from './documents';

export const LiveEventDocument = graphql(`
  subscription LiveEvent($after: String) {
    events(after: $after) {
      id
      type
      createdAt
      data {
        object
      }
    }
  }
`);

export type LiveEvent = LiveEventSubscription['events'];
export type LinkState = 'connecting' | 'connected' | 'reconnecting';

export interface LiveHandlers {
  onEvent(event: LiveEvent, missed: boolean): void;
  onState(state: LinkState, detail?: string): void;
  /** The session was refused or ended (4401 / 4403). */
  onEnded(): void;
  /** A reconnection began replaying; `missed` events follow. */
  onReconnected(): void;
}

export interface Live {
  stop(): void;
  /** The id of the last event received (null before any): an `after` that misses nothing from now on. */
  lastEventId(): string | null;
  /** Another subscription on this socket; `next` gets each message's data, `fail` a GraphQL error (no retry). Returns its stop. */
  watch<T>(doc: TypedDocumentString<T, never>, variables: () => Record<string, unknown>, next: (data: T) => void, fail: (message: string) => void): () => void;
}

/** A subscribe payload naming the registered document; graphql-ws requires `query`, which the server then ignores. */
function payload(doc: TypedDocumentString<unknown, never>, variables: Record<string, unknown>) {
  return { query: doc.toString(), variables, extensions: { documentId: documentIdOf(doc) } };
}

const FATAL = new Set([4401, 4403]);

export function startLive(after: string | null, h: LiveHandlers): Live {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  let lastId = after;
  let stopped = false;
  let attempt = 0;
  let reconnecting = false;
  let connectedAt = 0;
  let unsubscribe: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastClose: { code: number; reason: string } | null = null;

  const ws = createClient({
    url,
    lazy: true,
    retryAttempts: 0,
    keepAlive: 10_000,
    on: {
      connected: () => {
        connectedAt = Date.now();
        if (reconnecting) h.onReconnected();
        attempt = 0;
        h.onState('connected');
      },
      closed: (e) => {
        const ev = e as { code?: number; reason?: string };
        lastClose = { code: ev.code ?? 0, reason: ev.reason ?? '' };
      },
    },
  });

  function subscribe(): void {
    lastClose = null;
    h.onState(reconnecting ? 'reconnecting' : 'connecting');
    unsubscribe = ws.subscribe<LiveEventSubscription>(payload(LiveEventDocument, { after: lastId }), {
      next: (result) => {
        const event = result.data?.events;
        if (!event) return;
        lastId = event.id;
        const missed = reconnecting && Date.parse(event.createdAt) < connectedAt;
        h.onEvent(event, missed);
      },
      error: (err) => {
        const code = (err as { code?: number }).code ?? lastClose?.code ?? 0;
        if (FATAL.has(code)) {
          stopped = true;
          h.onEnded();
          return;
        }
        retry(code ? `closed with ${code}` : 'connection lost');
      },
      complete: () => retry('the server ended the stream'),
    });
  }

  function retry(detail: string): void {
    if (stopped) return;
    unsubscribe = null;
    reconnecting = true;
    h.onState('reconnecting', detail);
    const delay = Math.min(500 * 2 ** attempt, 8000);
    attempt += 1;
    timer = setTimeout(subscribe, delay);
  }

  function watch<T>(
    doc: TypedDocumentString<T, never>,
    variables: () => Record<string, unknown>,
    next: (data: T) => void,
    fail: (message: string) => void,
  ): () => void {
    let done = false;
    let stop: (() => void) | undefined;
    let again: ReturnType<typeof setTimeout> | undefined;
    const go = () => {
      stop = ws.subscribe<T>(payload(doc, variables()), {
        next: (r) => r.data && next(r.data),
        // GraphQL errors (an array) are the answer; a closed socket is retried, as the events stream is.
        error: (err) => (Array.isArray(err) ? fail(String((err[0] as { message?: string }).message)) : !done && !stopped && (again = setTimeout(go, 1000))),
        complete: () => undefined,
      });
    };
    go();
    return () => {
      done = true;
      clearTimeout(again);
      stop?.();
    };
  }

  subscribe();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      unsubscribe?.();
      void ws.dispose();
    },
    lastEventId: () => lastId,
    watch,
  };
}
