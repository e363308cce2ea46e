/**
 * Operations as commands. Every state-changing call (create payout, cancel payment, ...)
 * is one `Operation`: a neutral name, a parser, and an `execute` that returns a typed
 * value with its outcome. REST and GraphQL both dispatch it through the same pipeline
 * (idempotency, audit, transaction, errors: src/ops/pipeline.ts); neither the operation nor
 * the service behind it knows about HTTP.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { RequestContext } from './scope';

/**
 * The transaction a phase runs in. The database layer implements it (src/db/tx.ts `Tx`, which
 * the pipeline creates for each phase and hands to `execute`); the domain only passes it on to
 * the services that read and write in it.
 */
export interface UnitOfWork {
  /** Runs `listener` once the unit of work has committed (never if it rolls back). */
  afterCommit(listener: () => void): void;
}

/** What an operation did; each surface renders it (REST: 201, 200, 202, 200). */
export type Outcome = 'created' | 'existing' | 'accepted' | 'done';

/** The work a unit of work `W` takes for its end (what its `write` takes: src/db/batch.ts `EndWork` for the database layer's `Tx`). */
export type EndOf<W> = W extends { write(end: readonly (infer E)[]): Promise<void> } ? E : never;

/**
 * `end`: the writes the operation leaves for the end of its unit of work (its ledger effects and
 * events, which take the merchant's hot locks), in order; the pipeline ends the unit with them.
 */
export interface Done<T, E = never> {
  outcome: Outcome;
  value: T;
  end?: readonly E[];
}

/**
 * A provider call between two atomic phases: the phase that returned this has committed,
 * `call` runs outside any transaction, and `finish` continues in a fresh transaction with
 * the provider's answer. A crash in between is resumed by the operation's recovery
 * (a retry under the same Idempotency-Key, or the scheduler).
 */
export interface External<T, X = unknown, W extends UnitOfWork = UnitOfWork> {
  call: () => Promise<X>;
  finish(work: W, answer: X): Promise<Step<T, W>>;
  /** The writes the phase that returned this leaves for its end, in order (as `Done.end`). */
  end?: readonly EndOf<W>[];
}

// The provider's answer type is the phase's own business: each External pairs a call with its finish.
export type Step<T, W extends UnitOfWork = UnitOfWork> = Done<T, EndOf<W>> | External<T, any, W>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Builds the step "call the provider, then finish with its answer", typing the answer once. */
export function external<T, X, W extends UnitOfWork>(call: () => Promise<X>, finish: (work: W, answer: X) => Promise<Step<T, W>>): External<T, X, W> {
  return { call, finish };
}

export function isDone<T, W extends UnitOfWork>(step: Step<T, W>): step is Done<T, EndOf<W>> {
  return 'outcome' in step;
}

/** `W`: the unit of work `execute` is given (the database layer's `Tx`, src/ops/operation.ts). */
export interface Operation<A, I, T, W extends UnitOfWork = UnitOfWork> {
  /** Neutral command name, e.g. `payout.cancel`. */
  name: string;
  /**
   * The public operation label (`POST /v1/payout_intents/:id/cancel`): what the audit log
   * shows and filters by, and the scope of an Idempotency-Key (the same key sent to the
   * same operation over REST or GraphQL replays).
   */
  label: string;
  /** `required`: calls without an Idempotency-Key are refused (idempotency_key_required). */
  idempotencyKey?: 'optional' | 'required';
  /** Test helpers: only test-mode keys may call them. */
  testOnly?: boolean;
  /**
   * The body's schema (src/domain/fields.ts, `x.schemas.ts`): the pipeline validates the
   * REST body or the GraphQL input against it before `parse`, and the OpenAPI document
   * publishes it. An absent body is read as `{}` (so a body with no required
   * field may be absent, and a create without one names its first missing field).
   */
  body?: TSchema;
  /** Normalises the validated body; `args` are the path or GraphQL arguments (e.g. the id). */
  parse(raw: unknown, args: A): I;
  /**
   * Performs the change in the pipeline's unit of work `work`. `input` (what parse returned) is
   * what the Idempotency-Key fingerprints; `args` also carry what is not fingerprinted
   * (the base URL of links the operation creates).
   */
  execute(work: W, ctx: RequestContext, input: I, args: A): Promise<Step<T, W>>;
}

export function defineOperation<A, I, T, W extends UnitOfWork = UnitOfWork>(op: Operation<A, I, T, W>): Operation<A, I, T, W> {
  return op;
}

/** An operation's `body` and a `parse` that receives it validated and typed. */
export function withBody<S extends TSchema, A, I>(body: S, parse: (input: Static<S>, args: A) => I): { body: S; parse: (raw: unknown, args: A) => I } {
  return { body, parse: (raw, args) => parse(raw, args) };
}

/** The test-mode guard, one shape for every surface. */
export function testModeAllows(ctx: { environment: string }): boolean {
  return ctx.environment === 'test';
}
