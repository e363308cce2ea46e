/**
 * Boots a real gateway (real HTTP server, real database) for one test file.
 *
 * Database: a fresh SQLite file by default; with DATABASE_URL=mysql://.../db a fresh
 * database `<db>_t<random>` on that server, dropped afterwards.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFile, spawn, ChildProcess } from 'node:child_process';
import { connectMysql } from './mysql';
import { applyMysqlTemplate, copySqliteTemplate } from './schema-template';
import type pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { Config, loadConfig } from '../../src/config';
import { App, createApp, createLogger } from '../../src/app';
import { buildServer } from '../../src/server';
import { Environment } from '../../src/modules/auth/api-key.entity';
import { keyPrincipal } from '../../src/modules/auth/auth.service';
import { parseGrants } from '../../src/domain/access';
import { Client } from './client';

export const TEST_ENCRYPTION_KEY = randomBytes(32).toString('base64');

export interface TestDatabase {
  env: Record<string, string>;
  kind: 'mysql' | 'sqlite';
  drop(): Promise<void>;
}

/** Re-exported from ./skip (where the other run conditions live). */
export { usingMysql } from './skip';
export { redisProblem } from './redis';

/**
 * A fresh database for one test file: the migrated schema (a copy of the run's template,
 * test/helpers/schema-template.ts), or with `empty` nothing at all (tests of the migrations).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (base && /^mysql:\/\//.test(base)) {
    const url = new URL(base);
    const name = `${url.pathname.replace(/^\//, '') || 'test'}_t${randomBytes(5).toString('hex')}`;
    const admin = await connectMysql(url);
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (!options.empty) {
      await admin.query(`USE \`${name}\``);
      await applyMysqlTemplate(admin);
    }
    await admin.end();
    url.pathname = `/${name}`;
    return {
      kind: 'mysql',
      env: { DATABASE_URL: url.toString() },
      async drop() {
        const c = await connectMysql(url);
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await c.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-test-'));
  if (!options.empty) copySqliteTemplate(dir);
  return {
    kind: 'sqlite',
    env: { DATABASE_URL: '', SQLITE_FILE: path.join(dir, 'payments.sqlite'), DATA_DIR: dir },
    async drop() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  url: string;
  app: App;
  server: FastifyInstance;
  database: TestDatabase;
  /** `http://127.0.0.1:<port>` of the metrics listener when started with METRICS_PORT. */
  metricsUrl?: string;
  /**
   * Creates a merchant with a key pair in `env` and returns a client that authenticates
   * with it. Unless `fund` is false, the merchant starts with FUNDING THB available in
   * that environment so payouts can be created.
   */
  merchant(name?: string, env?: Environment, options?: { fund?: boolean }): Promise<Client>;
  /** Adds `amount` to the merchant's available balance: a topup settled by the test helper (test) or a ledger credit (live). */
  fund(client: Client, currency: string, amount: string): Promise<void>;
  /** Another key pair for an existing merchant; with `permissions` (`["payout_intents:read"]`), a restricted one. */
  keyFor(merchantId: string, env?: Environment, permissions?: string[]): Promise<Client>;
  client(auth?: string): Client;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse an existing database (a second "process" in the same test). */
  database?: TestDatabase;
  /** Start the scheduler (simulated settlement and expiries). Default true. */
  scheduler?: boolean;
  /** Where the service's log lines go (the service's own logger, as main.js builds it); with `env.LOG_LEVEL`. */
  logDestination?: pino.DestinationStream;
}

/** The settings every test server runs with, in process or as a spawned process. */
const TEST_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  SIMULATED_SETTLE_MS: '0',
  SCHEDULER_INTERVAL_MS: '50',
  SEED_DEMO: '0',
  WEBHOOK_ALLOW_LOOPBACK: '1',
  RATE_LIMIT_PER_SECOND: '0',
  // The suites check live-mode isolation against the simulated providers; without this flag
  // live mode has no provider (test/methods/live-providers.test.ts checks that default).
  SIMULATED_PROVIDERS_IN_LIVE: '1',
  // The test machines are shared and often overloaded: a row lock behind 90 concurrent writers
  // can take longer than the production limits (8-9 s), and the probe longer than 3 s. The
  // limits are relaxed here; test/db/outage.test.ts runs the production defaults.
  DB_ACQUIRE_TIMEOUT_MS: '30000',
  DB_QUERY_TIMEOUT_MS: '30000',
  DB_TX_TIMEOUT_MS: '30000',
  DB_PROBE_TIMEOUT_MS: '10000',
  // The server and its test client share one event loop: a long synchronous step (seeding
  // SQLite, a loaded machine) can make the server's idle timer and the client's reuse of a
  // kept-alive connection fire together, and the request meets a closed socket (ECONNRESET).
  // Idle connections are kept 5 minutes here (the default, 30 s, is src/config.ts's).
  HTTP_IDLE_TIMEOUT_MS: '300000',
  // New password hashes at the lowest argon2id cost the service accepts (8 MiB, 1 pass: about
  // 9 ms of CPU here, where the production default, 19 MiB and 2 passes, takes 45 ms); every
  // member a test adds hashes once and verifies at each sign-in. The default is checked by
  // test/people/password-hashing.spec.ts.
  PASSWORD_HASH_MEMORY_KIB: '8192',
  PASSWORD_HASH_PASSES: '1',
};

/** The production database limits (src/config.ts defaults), for tests about them: overrides TEST_ENV's relaxed ones. */
export const PRODUCTION_DB_LIMITS = { DB_ACQUIRE_TIMEOUT_MS: '', DB_QUERY_TIMEOUT_MS: '', DB_TX_TIMEOUT_MS: '', DB_PROBE_TIMEOUT_MS: '' };

export function testConfig(database: TestDatabase, extra: Record<string, string> = {}): Config {
  return loadConfig({ ...database.env, ...TEST_ENV, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', ...extra });
}

let merchantSeq = 0;
/** What srv.merchant() puts in a new merchant's THB balance. */
export const FUNDING = '1000000000000';

async function fundWith(app: App, client: Client, currency: string, amount: string): Promise<void> {
  if (client.key!.environment === 'test') {
    const topup = await client.post(
      '/v1/topup_intents',
      { amount, currency, country: 'TH', merchant_reference: `fund-${randomBytes(8).toString('hex')}` },
      { idempotencyKey: randomBytes(12).toString('hex') },
    );
    if (topup.status !== 201) throw new Error(`funding topup failed: ${topup.text}`);
    const settled = await client.post(`/v1/test_helpers/topup_intents/${topup.body.id}/succeed`, {});
    if (settled.status !== 200) throw new Error(`funding topup settle failed: ${settled.text}`);
    return;
  }
  // Live keys have no test helpers: credit through the real ledger, as a settled topup would.
  const scope = { merchantId: client.merchantId, environment: 'live' as const };
  await app.db.tx((em) =>
    app.ledger.post(em, scope, currency, [{ bucket: 'available', amount: BigInt(amount) }], {
      entryType: 'test_funding',
      sourceType: 'topup_intent',
      sourceId: `tu_fund_${randomBytes(6).toString('hex')}`,
    }),
  );
}

export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const ownsDatabase = !options.database;
  const config = testConfig(database, options.env);
  const app = await createApp(config, createLogger(config, options.logDestination));
  const server = await buildServer(app);
  await server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  if (options.scheduler !== false) app.scheduler.start();

  const fund = (client: Client, currency: string, amount: string) => fundWith(app, client, currency, amount);
  const keyFor = async (merchantId: string, env: Environment = 'test', permissions?: string[]) => {
    const key = await app.auth.issueKey(merchantId, env, permissions ? parseGrants(permissions) : undefined);
    const principal = keyPrincipal({ id: key.api_key_id, permissions: key.permissions ? key.permissions.join(',') : null });
    return new Client(url, `${key.public_key}:${key.secret_key}`, { merchantId, apiKeyId: key.api_key_id, environment: env, principal });
  };
  const metricsPort = server.metricsAddress?.()?.port;
  return {
    url,
    app,
    server,
    database,
    metricsUrl: metricsPort === undefined ? undefined : `http://127.0.0.1:${metricsPort}`,
    async merchant(name, env = 'test', { fund: withFunds = true } = {}) {
      const m = await app.auth.createMerchant(name ?? `merchant-${process.pid}-${++merchantSeq}-${randomBytes(3).toString('hex')}`);
      const client = await keyFor(m.id, env);
      if (withFunds) await fund(client, 'THB', FUNDING);
      return client;
    },
    fund,
    keyFor,
    client: (auth?: string) => new Client(url, auth),
    async close() {
      await app.scheduler.stop();
      await server.close();
      await app.close();
      if (ownsDatabase) await database.drop();
    },
  };
}

/** Starts the compiled service as a separate OS process on the same database. */
export async function startProcess(
  database: TestDatabase,
  extra: Record<string, string> = {},
  { startTimeoutMs = 30000, started }: { startTimeoutMs?: number; started?: (child: ChildProcess) => void } = {},
): Promise<{ url: string; metricsUrl?: string; child: ChildProcess; stop(signal?: NodeJS.Signals): Promise<void> }> {
  const main = path.resolve(__dirname, '../../src/main.js');
  // LOG_LEVEL info: the parent reads the "listening" line (with the port) from stdout.
  const env = { ...process.env, ...database.env, ...TEST_ENV, LOG_LEVEL: 'info', ...extra };
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started?.(child);
  let metricsUrl: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`process did not start in ${startTimeoutMs} ms: ${buffer}`)), startTimeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(buffer);
      if (m) {
        clearTimeout(timer);
        const metrics = /"metricsPort":(\d+)[^\n]*"msg":"listening"/.exec(buffer);
        if (metrics) metricsUrl = `http://127.0.0.1:${metrics[1]}`;
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (buffer += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with ${code}: ${buffer}`));
    });
  });
  return {
    url,
    metricsUrl,
    child,
    stop: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled provisioning CLI against `database`; `code` is -1 when it did not exit by itself. */
export function runCli(database: TestDatabase, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const cli = path.resolve(__dirname, '../../src/cli/main.js');
  const fullEnv = {
    ...process.env,
    ...database.env,
    DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'silent',
    SEED_DEMO: '0',
    ...env,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: fullEnv, timeout: 90_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The check `cli ledger verify` makes (every balance against the sum of its ledger rows), run in
 * the server's process: for a check after each test. A file that uses it also runs the CLI itself
 * once, over all its records (`ledgerVerifyCli`): each CLI run is a process start.
 */
export async function expectLedgerBalanced(srv: TestServer): Promise<void> {
  const report = await srv.app.ledger.verify();
  expect(report.mismatches).toEqual([]);
}

/** The last test of a file or group: `cli ledger verify` itself, over every record it made on `server()`. */
export function cliLedgerVerifyTest(server: () => TestServer): void {
  test('the ledger verify CLI passes over every record made above', async () => {
    const { code, report, stderr } = await ledgerVerifyCli(server().database);
    expect({ code, ok: report?.ok, stderr }).toMatchObject({ code: 0, ok: true });
  });
}

/** `cli ledger verify`: its exit code and the JSON report on its last stdout line. */
export async function ledgerVerifyCli(database: TestDatabase): Promise<{ code: number; report: any; stderr: string }> {
  const { code, stdout, stderr } = await runCli(database, ['ledger', 'verify']);
  let report: any;
  try {
    report = JSON.parse(stdout.trim().split('\n').pop() ?? '');
  } catch {
    report = undefined;
  }
  return { code, report, stderr };
}
