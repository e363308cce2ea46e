/**
 * The operation pipeline: every state-changing call, REST or GraphQL, runs through `run`.
 *
 *   guard (test mode, Idempotency-Key rules) -> parse -> take the key (or replay) ->
 *   phase: transaction { execute, audit entry, key done } -> [provider call -> phase ...]
 *
 * On MariaDB the key is taken inside the first phase's transaction (IdempotencyService,
 * "Claimed in the transaction"): a create without a provider call is then one transaction.
 *
 * A refusal (4xx) is stored as the key's answer; any other failure (503 when the database
 * is out included) releases the key so a retry reaches a fresh handler. The typed value goes back to the surface that called;
 * the stored bytes are used only to replay.
 */
import type { EntityManager } from 'typeorm';
import { fingerprint } from '../domain/canonical';
import { ApiError } from '../domain/errors';
import { check } from '../domain/schema';
import { Operation, Outcome, testModeAllows } from '../domain/operation';
import type { RequestContext } from '../domain/scope';
import { isDatabaseUnavailable, type Db } from '../db/db';
import type { AuditService } from '../modules/audit/audit.service';
import type { IdempotencyKey } from '../modules/idempotency/idempotency-key.entity';
import { IdempotencyService, isClaimConflict, KeyAlreadyStored, validateIdempotencyKey } from '../modules/idempotency/idempotency.service';
import { runPhases } from './phases';

/** The wire status of each outcome: what REST answers, and what a replay answers again. */
export const OUTCOME_STATUS: Readonly<Record<Outcome, number>> = { created: 201, existing: 200, accepted: 202, done: 200 };

export type Answer<T> =
  | { replayed: false; outcome: Outcome; value: T }
  | { replayed: true; status: number; body: string };

export class OperationPipeline {
  constructor(
    private readonly db: Db,
    private readonly idempotency: IdempotencyService,
    private readonly audit: AuditService,
  ) {}

  async run<A, I, T>(op: Operation<A, I, T>, ctx: RequestContext, raw: unknown, args: A, idempotencyKey: string | undefined): Promise<Answer<T>> {
    if (op.testOnly && !testModeAllows(ctx)) throw new ApiError('not_found', 'Test helpers exist only for test-mode API keys.');
    if (op.idempotencyKey === 'required' && idempotencyKey === undefined) {
      throw new ApiError('idempotency_key_required', `${op.label} requires an Idempotency-Key header (a UUID v4 is suggested).`);
    }
    const key = validateIdempotencyKey(idempotencyKey);
    let input: I | undefined;
    let parseError: ApiError | undefined;
    try {
      input = op.parse(op.body ? check(op.body, raw === undefined ? {} : raw, 'body') : raw, args);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      parseError = err;
    }
    if (key === undefined) {
      if (parseError) throw parseError;
      return this.execute(op, ctx, input as I, args);
    }

    const fp = parseError ? fingerprint(op.label, { invalid: raw ?? null }) : fingerprint(op.label, input);
    if (this.idempotency.claimsInline) {
      const claimed = await this.runClaimingInline(op, ctx, input as I, args, key, fp, parseError);
      if (claimed) return claimed;
      // The key already has a committed row: replay, 409, or take an expired key over, as below.
    }
    const acquired = await this.idempotency.acquire(ctx, key, fp);
    if ('replay' in acquired) return { replayed: true, ...acquired.replay };
    const { row } = acquired;
    if (parseError) {
      await this.refuse(row, parseError);
      throw parseError;
    }
    try {
      return await this.execute(op, ctx, input as I, args, row);
    } catch (err) {
      if (err instanceof ApiError && err.status < 500) {
        await this.refuse(row, err);
      } else {
        await this.release(row, err);
      }
      throw err;
    }
  }

  /**
   * The key is claimed in the first phase's transaction. Undefined when the key already has
   * a committed row (nothing ran; the caller goes through `acquire`).
   */
  private async runClaimingInline<A, I, T>(
    op: Operation<A, I, T>, ctx: RequestContext, input: I, args: A, key: string, fp: string, parseError: ApiError | undefined,
  ): Promise<Answer<T> | undefined> {
    const row = this.idempotency.newRow(ctx, key, fp);
    if (parseError) {
      if (await this.idempotency.insertRefusal(row, parseError)) throw parseError;
      return undefined;
    }
    let committed = false;
    try {
      return await this.execute(op, ctx, input, args, row, () => (committed = true));
    } catch (err) {
      if (err instanceof KeyAlreadyStored) return undefined;
      if (committed) {
        // The key was committed in flight with the first phase: as after `acquire`.
        if (err instanceof ApiError && err.status < 500) await this.refuse(row, err);
        else await this.release(row, err);
      } else if (err instanceof ApiError && err.status < 500 && !isClaimConflict(err)) {
        // Rolled back with the key: the refusal becomes the key's stored answer.
        await this.idempotency.insertRefusal(row, err);
      }
      // Anything else rolled the key back with the request: nothing to release.
      throw err;
    }
  }

  /** Stores a refusal as the key's answer; if that fails (the database is out), the key is released and that failure is the answer. */
  private async refuse(row: IdempotencyKey, err: ApiError): Promise<void> {
    try {
      await this.idempotency.storeError(row, err);
    } catch (storeFailure) {
      await this.release(row, storeFailure);
      throw storeFailure;
    }
  }

  /**
   * Releases the key after a failure; never throws. When the database itself failed, the
   * answer (503) does not wait for it: the release runs in the background, and again once
   * the database answers, so a frozen database costs the client one deadline, not two.
   */
  private async release(row: IdempotencyKey, cause: unknown): Promise<void> {
    if (isDatabaseUnavailable(cause)) this.idempotency.releaseSoon(row);
    else await this.idempotency.release(row);
  }

  /**
   * Runs the phases. With `claimedInline` (called once the first phase committed while
   * more phases follow), `row` is not yet stored: the first phase's transaction claims it.
   */
  private async execute<A, I, T>(op: Operation<A, I, T>, ctx: RequestContext, input: I, args: A, row?: IdempotencyKey, claimedInline?: () => void): Promise<Answer<T>> {
    const { hooks } = this.idempotency;
    if (row && !claimedInline && hooks.beforeExecute) await hooks.beforeExecute(op.label);
    const first = claimedInline
      ? async (em: EntityManager) => {
        await this.idempotency.claimIn(em, row!);
        if (hooks.beforeExecute) await hooks.beforeExecute(op.label);
        return op.execute(em, ctx, input, args);
      }
      : (em: EntityManager) => op.execute(em, ctx, input, args);
    const done = await runPhases(this.db, first, async (em, { outcome, value }) => {
      // The last phase: the audit entry and the key's answer commit with the change.
      const status = OUTCOME_STATUS[outcome];
      await this.audit.record(em, ctx, { operation: op.label, status, body: value, input });
      if (hooks.beforeCommit) await hooks.beforeCommit(op.label);
      if (row) await this.idempotency.complete(em, row, status, JSON.stringify(value));
    }, claimedInline);
    return { replayed: false, outcome: done.outcome, value: done.value };
  }
}
