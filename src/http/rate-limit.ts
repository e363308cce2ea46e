/**
 * Per-API-key rate limit: a token bucket refilled at `perSecond` with room for a burst of
 * twice that. Over the limit the request is answered 429 rate_limited with Retry-After
 * (seconds until a token is back). The buckets live in this process: with N gateway
 * processes behind a balancer a key can reach N times the rate, which is what a
 * per-instance limit means; the point is to stop a runaway client, not to meter billing.
 */
import { ApiError } from '../domain/errors';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;

  constructor(private readonly perSecond: number) {
    this.burst = perSecond * 2;
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  /** Takes one token for `key` or throws 429 with the seconds to wait in `retryAfter`. */
  take(key: string, now = Date.now()): void {
    if (!this.enabled) return;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
      throw Object.assign(new ApiError('rate_limited', `Too many requests for this API key; retry after ${retryAfter} s.`), { retryAfter });
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.prune(now);
  }

  private prune(now: number): void {
    for (const [key, b] of this.buckets) if (now - b.at > 60_000) this.buckets.delete(key);
  }
}
