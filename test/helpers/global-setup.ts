/**
 * jest globalSetup: probes, once per run, what conditional suites need and cannot check
 * synchronously, and hands the answers to the test workers through the environment
 * (workers start after this and inherit process.env). See test/helpers/skip.ts.
 */
import { redisProblem } from './redis';

export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_REDIS_PROBLEM === undefined) {
    const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
    const problem = await redisProblem(url);
    process.env.TEST_REDIS_PROBLEM = problem ? `Redis at ${url} is unreachable (${problem}); start redis-server or set REDIS_URL` : '';
  }
}
