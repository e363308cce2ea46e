/**
 * Per-API-key rate limit, on `rate-limiter-flexible`. Every authenticated HTTP request
 * (REST and POST /graphql), every graphql-ws connection and every subscribe takes one point.
 *
 * Allowance of a key, with r = RATE_LIMIT_PER_SECOND:
 *  - r points per 1-second window (the window starts at the key's first request), and
 *  - when that is used up, a burst allowance of r more points per 10-second window
 *    (BurstyRateLimiter).
 * So a key may send 2r at once (as the token bucket this replaces allowed), and sustained
 * traffic is held to r per second plus r per 10 s (1.1 r). Over it: 429 rate_limited with
 * Retry-After (whole seconds until a window ends, at least 1).
 *
 * With REDIS_URL the counters live in Redis (RateLimiterRedis, on the process's shared
 * command connection), so the allowance is shared by every gateway process. When Redis is
 * not ready, a command fails or times out (COMMAND_TIMEOUT_MS), each process falls back
 * to the same limits in memory (RateLimiterMemory as `insuranceLimiter`): N processes
 * then allow up to N times the rate until Redis is back. Without REDIS_URL the limit is
 * in memory, per process.
 */
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { RedisBus } from '../db/redis';

/** The burst allowance's window, in seconds. */
export const BURST_WINDOW_S = 10;
const KEY_PREFIX = 'payments-gateway:rl';

/** A rate-limit refusal: ApiError rate_limited carrying the seconds to wait. */
export type RateLimited = ApiError & { retryAfter: number };

export function rateLimited(retryAfter: number): RateLimited {
  return Object.assign(new ApiError('rate_limited', `Too many requests for this API key; retry after ${retryAfter} s.`), { retryAfter });
}

/** The in-process limiter used as Redis's insurance; counts the decisions it takes. */
class FallbackLimiter extends RateLimiterMemory {
  constructor(
    opts: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(opts);
  }

  consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(key, points, options);
  }
}

export interface RateLimiterStats {
  /** Decisions taken in memory because Redis was not ready or failed (0 without REDIS_URL). */
  fallbacks: number;
  /** Requests refused with 429 by this process. */
  limited: number;
}

export class RateLimiter {
  private readonly limiter?: BurstyRateLimiter;
  readonly stats: RateLimiterStats = { fallbacks: 0, limited: 0 };
  /** 'redis' (shared, memory fallback), 'memory' (this process only) or 'off'. */
  readonly store: 'redis' | 'memory' | 'off';

  constructor(
    private readonly perSecond: number,
    redis: RedisBus | undefined,
    private readonly log: Logger,
  ) {
    this.store = perSecond <= 0 ? 'off' : redis ? 'redis' : 'memory';
    if (perSecond <= 0) return;
    const windows = [
      { name: 'rate', points: perSecond, duration: 1 },
      { name: 'burst', points: perSecond, duration: BURST_WINDOW_S },
    ];
    const [rate, burst] = windows.map(({ name, points, duration }) => {
      const keyPrefix = `${KEY_PREFIX}:${name}`;
      if (!redis) return new RateLimiterMemory({ points, duration, keyPrefix });
      const insuranceLimiter = new FallbackLimiter({ points, duration, keyPrefix }, () => this.stats.fallbacks++);
      return new RateLimiterRedis({
        storeClient: redis.client,
        points,
        duration,
        keyPrefix,
        insuranceLimiter,
        // Not connected: decide in memory at once instead of waiting for a command to fail.
        rejectIfRedisNotReady: true,
        // A key already over its window is refused from memory until the window ends,
        // without a Redis round trip per refused request.
        inMemoryBlockOnConsumed: points + 1,
      });
    });
    this.limiter = new BurstyRateLimiter(rate, burst);
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  /** Takes one point for `key` or throws 429 rate_limited with the seconds to wait in `retryAfter`. */
  async take(key: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(key, 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        this.stats.limited++;
        const retryAfterS = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        this.log.warn({ apiKeyId: key, retryAfterS }, 'request refused: rate limited');
        throw rateLimited(retryAfterS);
      }
      // Neither Redis nor the fallback could decide (not expected): let the request through.
      this.log.warn({ err: (err as Error)?.message }, 'rate limiter failed; request allowed');
    }
  }
}

/**
 * Counts failures (sign-in) per key, on the same store as the request limit: Redis when
 * REDIS_URL is set (so the count holds across processes, with the same in-memory insurance),
 * memory otherwise. `points` failures within `windowS` lock the key for `lockS` seconds.
 */
export class FailureLimiter {
  private readonly limiter: RateLimiterMemory | RateLimiterRedis;

  constructor(
    name: string,
    private readonly points: number,
    windowS: number,
    private readonly lockS: number,
    redis: RedisBus | undefined,
  ) {
    const opts = { points, duration: windowS, keyPrefix: `${KEY_PREFIX}:${name}` };
    this.limiter = redis
      ? new RateLimiterRedis({ ...opts, storeClient: redis.client, insuranceLimiter: new RateLimiterMemory(opts), rejectIfRedisNotReady: true })
      : new RateLimiterMemory(opts);
  }

  /** Seconds until `key` may try again; 0 when it is not locked. */
  async lockedFor(key: string): Promise<number> {
    const res = await this.limiter.get(key);
    return res && res.consumedPoints >= this.points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0;
  }

  /** Records a failure; true when it is the one that locks the key. */
  async fail(key: string): Promise<boolean> {
    let consumed: number;
    try {
      consumed = (await this.limiter.consume(key, 1)).consumedPoints;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      consumed = err.consumedPoints;
    }
    if (consumed !== this.points) return false;
    await this.limiter.block(key, this.lockS);
    return true;
  }

  async reset(key: string): Promise<void> {
    await this.limiter.delete(key);
  }
}
