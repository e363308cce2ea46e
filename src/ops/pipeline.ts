/**
 * The operation pipeline: every state-changing call, REST or GraphQL, runs through `run`,
 * which reads in the order it runs:
 *
 *   guard (test mode, Idempotency-Key rules) -> parse -> claim the key (or replay) ->
 *   phases: unit of work { execute, audit entry, key's answer, end writes + COMMIT } ->
 *   [provider call -> phase ...]
 *   -> the answer
 *
 * How the key is claimed depends on the database (./key-claim.ts): one `KeyClaim`, picked
 * once by the idempotency module and handed in. A refusal (4xx) is stored as the key's answer; any other failure
 * (503 when the database is out included) releases the key so a retry reaches a fresh
 * handler. The typed value goes back to the surface that called; the stored bytes are used
 * only to replay.
 */
import { fingerprint } from '../domain/canonical';
import { ApiError } from '../domain/errors';
import { check } from '../domain/schema';
import { Outcome, testModeAllows, type Done } from '../domain/operation';
import type { TxOperation as Operation } from './operation';
import type { RequestContext } from '../domain/scope';
import type { EndWork } from '../db/batch';
import type { Db } from '../db/db';
import type { Tx } from '../db/tx';
import { NO_KEY, validateIdempotencyKey, type IdempotencyHooks, type KeyClaim, type KeyInPhases } from './key-claim';
import { runPhases } from './phases';

/** The wire status of each outcome: what REST answers, and what a replay answers again. */
export const OUTCOME_STATUS: Readonly<Record<Outcome, number>> = { created: 201, existing: 200, accepted: 202, done: 200 };

export type Answer<T> = { replayed: false; outcome: Outcome; value: T } | { replayed: true; status: number; body: string };

/** What `parse` gave: the input, or the refusal of the body. */
type Parsed<I> = { input: I; error?: undefined } | { input?: undefined; error: ApiError };

/** What the audit trail records of each operation, in the operation's last transaction (the audit module's service). */
export interface AuditTrail {
  /** The entry's write, for the end of the unit (nothing waits for its answer). */
  record(tx: Tx, ctx: RequestContext, facts: { operation: string; status: number; body: unknown; input: unknown }): EndWork;
}

export class OperationPipeline {
  /**
   * `claim`: how keys are claimed here (in the first phase's transaction on MariaDB, in one of
   * their own elsewhere); `hooks`: the idempotency service's fault injection, for tests.
   */
  constructor(
    private readonly db: Db,
    private readonly keys: { claim: KeyClaim; hooks: IdempotencyHooks },
    private readonly audit: AuditTrail,
  ) {}

  async run<A, I, T>(op: Operation<A, I, T>, ctx: RequestContext, raw: unknown, args: A, idempotencyKey: string | undefined): Promise<Answer<T>> {
    this.guard(op, ctx, idempotencyKey);
    const key = validateIdempotencyKey(idempotencyKey);
    const parsed = this.parse(op, raw, args);
    if (key === undefined) {
      if (parsed.error) throw parsed.error;
      return this.answer(await this.phases(op, ctx, parsed.input, args, NO_KEY));
    }
    const claimed = await this.keys.claim.run(
      {
        ctx,
        key,
        label: op.label,
        fingerprint: parsed.error ? fingerprint(op.label, { invalid: raw ?? null }) : fingerprint(op.label, parsed.input),
        refusal: parsed.error,
      },
      (held) => this.phases(op, ctx, parsed.input as I, args, held),
    );
    if ('replay' in claimed) return { replayed: true, ...claimed.replay };
    return this.answer(claimed.done);
  }

  /** Test helpers only for test-mode keys; an Idempotency-Key where the operation requires one. */
  private guard(op: Operation<unknown, unknown, unknown>, ctx: RequestContext, idempotencyKey: string | undefined): void {
    if (op.testOnly && !testModeAllows(ctx)) throw new ApiError('not_found', 'Test helpers exist only for test-mode API keys.');
    if (op.idempotencyKey === 'required' && idempotencyKey === undefined) {
      throw new ApiError('idempotency_key_required', `${op.label} requires an Idempotency-Key header (a UUID v4 is suggested).`);
    }
  }

  /** The body checked against the operation's schema, then its `parse`; a refusal is kept (a keyed request stores it). */
  private parse<A, I, T>(op: Operation<A, I, T>, raw: unknown, args: A): Parsed<I> {
    try {
      return { input: op.parse(op.body ? check(op.body, raw === undefined ? {} : raw, 'body') : raw, args) };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { error: err };
    }
  }

  /** The operation's phases under `key`; the last one also writes the audit entry and the key's answer. */
  private phases<A, I, T>(op: Operation<A, I, T>, ctx: RequestContext, input: I, args: A, key: KeyInPhases): Promise<Done<T>> {
    const { hooks } = this.keys;
    return runPhases(
      this.db,
      async (tx) => {
        await key.enter(tx);
        return op.execute(tx, ctx, input, args);
      },
      {
        onDone: async (tx, { outcome, value }) => {
          const status = OUTCOME_STATUS[outcome];
          const audited = this.audit.record(tx, ctx, { operation: op.label, status, body: value, input });
          if (hooks.beforeCommit) await hooks.beforeCommit(op.label);
          return [audited, ...(await key.complete(tx, status, JSON.stringify(value)))];
        },
        afterFirst: () => key.afterFirst(),
        opening: key.opening,
      },
    );
  }

  private answer<T>(done: Done<T>): Answer<T> {
    return { replayed: false, outcome: done.outcome, value: done.value };
  }
}
