/**
 * The optional Redis (`REDIS_URL`), on ioredis: two connections per process, shared by
 * everything that uses Redis.
 *
 *  - `client` runs commands: pub/sub publishes (subscriptions' "look again", key
 *    revocations) and the shared rate-limit counters. It never queues a command while
 *    offline and gives up on one after COMMAND_TIMEOUT_MS, so a Redis that is down or
 *    stalled costs a caller at most that long; every user has a fallback (the database
 *    poller, the in-process rate limit).
 *  - `sub` is the subscriber connection (a subscribed connection can run nothing else);
 *    it queues its SUBSCRIBEs until connected and re-subscribes after a reconnect.
 *
 * The database stays the source of truth: a lost message only costs latency.
 */
import Redis from 'ioredis';
import type { Logger } from 'pino';

/** How long one command may take before its caller falls back (ms). */
export const COMMAND_TIMEOUT_MS = 500;

export class RedisBus {
  readonly client: Redis;
  private readonly sub: Redis;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  constructor(
    redisUrl: string,
    private readonly log: Logger,
  ) {
    const options = {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: (attempt: number) => Math.min(100 * 2 ** attempt, 5000),
    };
    this.client = new Redis(redisUrl, { ...options, commandTimeout: COMMAND_TIMEOUT_MS });
    this.sub = new Redis(redisUrl, { ...options, enableOfflineQueue: true });
    // One line per failure kind and connection, not one per reconnect attempt.
    for (const [name, conn] of [
      ['client', this.client],
      ['sub', this.sub],
    ] as const) {
      let last = '';
      conn.on('error', (err: Error) => {
        if (err.message === last) return;
        last = err.message;
        log.warn({ connection: name, err: err.message }, 'redis connection error');
      });
      conn.on('ready', () => (last = ''));
    }
    this.sub.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
  }

  /** Calls `handler` with every message published on `channel` (by any process). */
  subscribe(channel: string, handler: (message: string) => void): void {
    let set = this.handlers.get(channel);
    if (!set) {
      this.handlers.set(channel, (set = new Set()));
      this.sub.subscribe(channel).catch((err: Error) => this.log.warn({ channel, err: err.message }, 'redis subscribe failed'));
    }
    set.add(handler);
  }

  /** Fire and forget; false when not connected (the caller's fallback covers it). */
  publish(channel: string, message: string): boolean {
    if (this.client.status !== 'ready') return false;
    this.client.publish(channel, message).catch(() => undefined);
    return true;
  }

  /**
   * Publishes and waits for Redis to take the message, for at most `timeoutMs` (connecting
   * first if the connection is still being made): for a short-lived process such as the
   * CLI, which would otherwise exit before the message is out. False when it could not.
   */
  async publishNow(channel: string, message: string, timeoutMs = 1000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.client.status !== 'ready') {
      if (this.client.status === 'end' || Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.client.publish(channel, message).then(
          () => true,
          () => false,
        ),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(1, deadline - Date.now())))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  get ready(): boolean {
    return this.client.status === 'ready' && this.sub.status === 'ready';
  }

  close(): void {
    this.client.disconnect();
    this.sub.disconnect();
  }
}
