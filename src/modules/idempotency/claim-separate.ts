/** The key taken in a short transaction of its own, before the phases run (SQLite, MySQL 8). */
import type { ApiError } from '../../domain/errors';
import type { Done } from '../../domain/operation';
import { isDatabaseUnavailable } from '../../db/db';
import type { IdempotencyKey } from './idempotency-key.entity';
import { isRefusal, type Claimed, type KeyClaim, type KeyedRequest, type KeyInPhases } from '../../ops/key-claim';
import type { IdempotencyService } from './idempotency.service';

/** The key is taken in a short transaction of its own, then the phases run under it. */
export class SeparateClaim implements KeyClaim {
  constructor(private readonly keys: IdempotencyService) {}

  async run<T>(request: KeyedRequest, phases: (key: KeyInPhases) => Promise<Done<T>>): Promise<Claimed<T>> {
    const acquired = await this.keys.acquire(request.ctx, request.key, request.fingerprint);
    if ('replay' in acquired) return acquired;
    const { row } = acquired;
    if (request.refusal) {
      await this.refuse(row, request.refusal);
      throw request.refusal;
    }
    try {
      const { beforeExecute } = this.keys.hooks;
      if (beforeExecute) await beforeExecute(request.label);
      return {
        done: await phases({
          enter: () => Promise.resolve(undefined),
          complete: (tx, status, body) => this.keys.complete(tx, row, status, body),
          afterFirst: () => undefined,
        }),
      };
    } catch (err) {
      await this.failed(row, err);
      throw err;
    }
  }

  /** After the phases failed with the key stored in flight: a refusal becomes its answer, anything else releases it. */
  async failed(row: IdempotencyKey, err: unknown): Promise<void> {
    if (isRefusal(err)) await this.refuse(row, err);
    else await this.release(row, err);
  }

  /** Stores a refusal as the key's answer; if that fails (the database is out), the key is released and that failure is the answer. */
  private async refuse(row: IdempotencyKey, err: ApiError): Promise<void> {
    try {
      await this.keys.storeError(row, err);
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
    if (isDatabaseUnavailable(cause)) this.keys.releases.soon(row);
    else await this.keys.releases.release(row);
  }
}
