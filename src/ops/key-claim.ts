/**
 * How a request takes its Idempotency-Key: one interface, `KeyClaim`, and one implementation
 * per way the database allows, in the idempotency module (picked once, `keyClaimOf` in
 * src/modules/idempotency/key-claims.ts, and handed to the pipeline, ./pipeline.ts):
 *  - `SeparateClaim` (SQLite, MySQL 8; claim-separate.ts): the key's `in_flight` row is
 *    INSERTed in a short transaction of its own before the phases run (`acquire`);
 *  - `InlineClaim` (MariaDB, claim-inline.ts): the INSERT opens the first phase's own
 *    transaction, so a create without a provider call is one transaction.
 * Either way the key's answer commits with the last phase (`complete`), a refusal (4xx) is
 * stored as the key's answer, and any other failure (503 when the database is out included)
 * releases the key so a retry reaches a fresh handler.
 */
import { ApiError } from '../domain/errors';
import type { Done } from '../domain/operation';
import type { RequestContext } from '../domain/scope';
import type { Tx } from '../db/tx';
import type { EndWork, Statement } from '../db/batch';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/** A stored answer, replayed byte for byte: the status and the exact bytes first sent. */
export interface Replay {
  status: number;
  body: string;
}

export function validateIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (!PRINTABLE_ASCII.test(key)) {
    throw ApiError.validation('Idempotency-Key', 'Idempotency-Key must be 1 to 255 printable ASCII characters (0x20-0x7E); a UUID v4 is suggested.');
  }
  return key;
}

/** Fault injection for tests. */
export interface IdempotencyHooks {
  /** Runs once the key is held: after `acquire` committed it, or in the first phase right after the inline claim (MariaDB). */
  beforeExecute?: (operation: string) => Promise<void>;
  /** Runs in the last phase's transaction, before the key's answer is written and the phase commits. */
  beforeCommit?: (operation: string) => Promise<void>;
}

/** A request with an Idempotency-Key. `refusal`: its body did not parse (stored as the key's answer). */
export interface KeyedRequest {
  ctx: RequestContext;
  key: string;
  fingerprint: string;
  /** The operation's label (the hooks get it). */
  label: string;
  refusal?: ApiError;
}

/** What the phases do with the key they run under. */
export interface KeyInPhases {
  /** The first phase's first statement, sent with its START TRANSACTION (MariaDB: the key's INSERT). */
  opening?: Statement;
  /** Runs first in the first phase, before the operation (MariaDB: the key's INSERT, answered). */
  enter(tx: Tx): Promise<void>;
  /** Runs in the last phase: the key's answer commits with the change (what it leaves for the phase's end). */
  complete(tx: Tx, status: number, body: string): Promise<EndWork[]>;
  /** The first phase committed and more phases follow. */
  afterFirst(): void;
}

/** What the phases gave, or the answer the key already held. */
export type Claimed<T> = { done: Done<T> } | { replay: Replay };

export interface KeyClaim {
  /** Runs `phases` under the request's key: their result, the key's stored answer, or the refusal (thrown). */
  run<T>(request: KeyedRequest, phases: (key: KeyInPhases) => Promise<Done<T>>): Promise<Claimed<T>>;
}

/** The phases without a key (a call without an Idempotency-Key). */
export const NO_KEY: KeyInPhases = {
  enter: () => Promise.resolve(undefined),
  complete: () => Promise.resolve([]),
  afterFirst: () => undefined,
};

/** A refusal (4xx): stored as the key's answer and replayed. */
export function isRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status < 500;
}
