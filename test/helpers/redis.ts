/** Whether Redis answers: used by global-setup.ts (skip reasons) and the latency bench. */
import Redis from 'ioredis';

/** Why Redis at `url` cannot be used right now, or null when it answers PING. */
export async function redisProblem(url: string): Promise<string | null> {
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    r.disconnect();
  }
}
