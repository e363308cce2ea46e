/**
 * Sign-in failures are counted in Redis when REDIS_URL is set, so a lock holds across
 * gateway processes: three failures spread over two processes lock the account on both, the
 * right password included. The person comes from the CLI (`users create`), whose JSON names
 * the user and the setup link.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, runCli, startProcess, type TestDatabase } from '../helpers/server';
import { Client } from '../helpers/client';
import { REDIS_URL, redisUnavailable, testIf } from '../helpers/skip';
import { PASSWORD } from '../helpers/members';

let database: TestDatabase;
const procs: Awaited<ReturnType<typeof startProcess>>[] = [];
const env = { REDIS_URL, SIGN_IN_FAILURES_PER_ACCOUNT: '3', SIGN_IN_LOCK_S: '60' };

beforeAll(async () => {
  if (redisUnavailable()) return;
  database = await createTestDatabase();
  procs.push(await startProcess(database, env));
  procs.push(await startProcess(database, env));
});
afterAll(async () => {
  for (const p of procs) await p.stop();
  await database?.drop();
});

const post = (url: string, path: string, body: unknown) => new Client(url).post(path, body, { headers: { origin: url } });

testIf(!redisUnavailable(), redisUnavailable() ?? '')('three failures over two processes lock the account on both', async () => {
  const email = `brute.${randomBytes(4).toString('hex')}@example.com`;
  const cli = await runCli(database, ['users', 'create', '--merchant', `Brute ${process.pid}`, '--email', email, '--role', 'owner'], {
    PUBLIC_BASE_URL: 'https://pay.example.com',
  });
  expect(cli.code).toBe(0);
  const printed = JSON.parse(cli.stdout);
  expect(Object.keys(printed).sort()).toEqual(['setup_url', 'user_id']);
  expect(printed.user_id).toMatch(/^usr_/);
  expect(printed.setup_url).toMatch(/^https:\/\/pay\.example\.com\/dashboard\/#setup=[A-Za-z0-9_-]{43}$/);
  const token = printed.setup_url.split('#setup=')[1];
  expect((await post(procs[0].url, '/dashboard/setup', { token, password: PASSWORD })).status).toBe(200);

  const [a, b] = procs.map((p) => p.url);
  for (const url of [a, b, a]) expect((await post(url, '/dashboard/sign-in', { email, password: 'wrong password, again' })).status).toBe(401);
  for (const url of [b, a]) {
    const res = await post(url, '/dashboard/sign-in', { email, password: PASSWORD });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
  }
});
