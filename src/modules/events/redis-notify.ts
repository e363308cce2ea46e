/**
 * The optional Redis fast path for subscriptions (`REDIS_URL`), on ioredis: one connection
 * publishes "<merchant>/<environment>" after a commit, one subscribes. The database stays
 * the source of truth, so a lost message costs only latency (the poller finds the event a
 * moment later); ioredis reconnects on its own and we never queue commands while offline.
 */
import Redis from 'ioredis';
import type { Logger } from 'pino';

export class RedisNotifier {
  private readonly pub: Redis;
  private readonly sub: Redis;

  constructor(redisUrl: string, readonly channel: string, onMessage: (message: string) => void, log: Logger) {
    const options = {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, 5000),
    };
    this.pub = new Redis(redisUrl, options);
    // A subscriber must queue its SUBSCRIBE until connected (and re-subscribes on reconnect).
    this.sub = new Redis(redisUrl, { ...options, enableOfflineQueue: true });
    for (const conn of [this.pub, this.sub]) conn.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
    this.sub.on('message', (ch: string, message: string) => {
      if (ch === channel) onMessage(message);
    });
    this.sub.subscribe(channel).catch((err) => log.warn({ err: err.message }, 'redis subscribe failed'));
  }

  /** Fire and forget; false when not connected (the poller covers it). */
  publish(message: string): boolean {
    if (this.pub.status !== 'ready') return false;
    this.pub.publish(this.channel, message).catch(() => undefined);
    return true;
  }

  get ready(): boolean {
    return this.pub.status === 'ready' && this.sub.status === 'ready';
  }

  close(): void {
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
