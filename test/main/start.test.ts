/**
 * Starting the compiled service (`node dist/src/main.js`) the way a newcomer does, as a
 * separate OS process: what it prints on a first start (the demo key pair on SQLite, the
 * exact provisioning command on MariaDB or with SEED_DEMO=0, and that command works), and
 * that a start that cannot work (no such database, no server, bad setting, a character set
 * that would lose text) is one line on stderr and exit code 1, never a stack trace.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { connectMysql } from '../helpers/mysql';
import { createTestDatabase, runCli, TEST_ENCRYPTION_KEY, TestDatabase } from '../helpers/server';
import { Client } from '../helpers/client';
import { NEEDS_MYSQL, testIf, usingMysql } from '../helpers/skip';

// Each test starts the service once or twice and may run npm: slow on a loaded machine.
jest.setTimeout(240000);

const ROOT = path.resolve(__dirname, '../../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');

interface Started {
  stdout: string;
  stderr: string;
  /** Set when the process exited by itself. */
  code: number | null;
  url?: string;
  stop(): Promise<void>;
}

/**
 * Runs main.js with `env` (over a clean environment) until it listens (then it keeps
 * running until stop()) or exits by itself.
 */
function start(env: Record<string, string>, timeoutMs = 90000): Promise<Started> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir() };
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: {
      ...base,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      SIMULATED_SETTLE_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Started = {
    stdout: '',
    stderr: '',
    code: null,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
  return new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`neither listening nor exited: ${out.stdout}${out.stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out.stdout += chunk.toString();
      const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out.stdout);
      if (m && !out.url) {
        out.url = `http://127.0.0.1:${m[1]}`;
        // The key pair or the hint follows the "listening" line at once; give it a moment.
        setTimeout(() => {
          clearTimeout(timer);
          resolve(out);
        }, 300);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
    child.on('exit', (code) => {
      out.code = code;
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Runs `command` through sh in the repository root, as a newcomer pastes it. */
function shell(command: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', command],
      { cwd: ROOT, env: { ...process.env, DATA_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, ...env }, timeout: 60000 },
      (err, stdout, stderr) => {
        resolve({
          code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

/** One line, no stack frames. */
function expectOneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return lines[0];
}

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The provisioning command a start printed (the line after "Create a merchant ..."). */
function printedCommand(stdout: string): string {
  const m = /Create a merchant with a TEST key pair[^\n]*\n\s+([^\n]+)\n/.exec(stdout);
  expect(m).not.toBeNull();
  return m![1];
}

describe('on the embedded SQLite database', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-start-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the first start prints a working demo test key pair once; the second start prints none', async () => {
    const dataDir = path.join(dir, 'demo');
    const first = await start({ DATA_DIR: dataDir });
    try {
      expect(first.code).toBeNull();
      const pk = /public key: (pk_test_\w+)/.exec(first.stdout)?.[1];
      const sk = /secret key: (sk_test_\w+)/.exec(first.stdout)?.[1];
      expect(pk).toBeDefined();
      expect(sk).toBeDefined();
      const res = await new Client(first.url!, `${pk}:${sk}`).get('/v1/balances');
      expect(res.status).toBe(200);
    } finally {
      await first.stop();
    }
    const second = await start({ DATA_DIR: dataDir });
    try {
      expect(second.code).toBeNull();
      expect(second.stdout).not.toMatch(/secret key|Create a merchant/);
    } finally {
      await second.stop();
    }
  });

  test('with SEED_DEMO=0 an empty database prints the provisioning command, and that command makes a working key', async () => {
    const dataDir = path.join(dir, 'noseed');
    const s = await start({ DATA_DIR: dataDir, SEED_DEMO: '0' });
    try {
      expect(s.code).toBeNull();
      expect(s.stdout).not.toMatch(/secret key:/);
      const command = printedCommand(s.stdout);
      expect(command).toBe(`DATA_DIR='${dataDir}' npm run --silent cli -- keys create --merchant acme --env test`);
      const run = await shell(command, { DATABASE_URL: '' });
      expect(run.code).toBe(0);
      const key = JSON.parse(run.stdout.trim());
      const res = await new Client(s.url!, `${key.public_key}:${key.secret_key}`).get('/v1/balances');
      expect(res.status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  test('a setting that is not valid is one line on stderr and exit code 1', async () => {
    const s = await start({ DATA_DIR: path.join(dir, 'bad'), PORT: 'abc' });
    expect(s.code).toBe(1);
    expect(expectOneLine(s.stderr)).toBe('payments-gateway: cannot start: PORT must be a whole number >= 0, got "abc"');
  });

  test('a MySQL server that does not answer is one line on stderr and exit code 1', async () => {
    const port = await closedPort();
    const s = await start({ DATABASE_URL: `mysql://root:hunter2@127.0.0.1:${port}/payments` });
    expect(s.code).toBe(1);
    const line = expectOneLine(s.stderr);
    expect(line).toBe(
      `payments-gateway: cannot start: cannot reach the database server at 127.0.0.1:${port} (ECONNREFUSED; DATABASE_URL=mysql://root:****@127.0.0.1:${port}/payments); is MariaDB/MySQL running there?`,
    );
    expect(line).not.toContain('hunter2');
  });
});

describe('on MariaDB', () => {
  // The server of DATABASE_URL, with a database name of our own.
  const serverUrl = (name: string) => {
    const u = new URL(process.env.DATABASE_URL!);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const mysqlTest = testIf(usingMysql(), NEEDS_MYSQL);
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
  });

  mysqlTest('a first start on an empty database prints the exact provisioning command, and that command makes a working key', async () => {
    database = await createTestDatabase({ empty: true });
    const s = await start({ DATABASE_URL: database.env.DATABASE_URL });
    try {
      expect(s.code).toBeNull();
      expect(s.stdout).toContain('No merchant yet (the demo merchant is created only on the embedded SQLite database).');
      const command = printedCommand(s.stdout);
      expect(command).toBe(`DATABASE_URL='${database.env.DATABASE_URL}' npm run --silent cli -- keys create --merchant acme --env test`);
      const run = await shell(command);
      expect(run.code).toBe(0);
      const key = JSON.parse(run.stdout.trim());
      expect(key.public_key).toMatch(/^pk_test_/);
      const res = await new Client(s.url!, `${key.public_key}:${key.secret_key}`).get('/v1/balances');
      expect(res.status).toBe(200);
    } finally {
      await s.stop();
    }
    // Once a merchant exists, a start prints no hint.
    const again = await start({ DATABASE_URL: database.env.DATABASE_URL });
    try {
      expect(again.stdout).not.toContain('Create a merchant');
    } finally {
      await again.stop();
    }
  });

  mysqlTest(
    'text columns or a database default not in utf8mb4 are one line on stderr (naming them and the fix) and exit code 1; the fix it names works',
    async () => {
      const db = await createTestDatabase();
      const url = db.env.DATABASE_URL;
      const name = new URL(url).pathname.slice(1);
      const u = new URL(url);
      const admin = await connectMysql(u, name);
      try {
        expect((await runCli(db, ['migrate'])).code).toBe(0);
        // A column changed by hand (or restored from a latin1 dump).
        await admin.query('ALTER TABLE payout_intents MODIFY recipient_holder_name VARCHAR(256) CHARACTER SET latin1 NOT NULL');
        const refused = await start({ DATABASE_URL: url });
        expect(refused.code).toBe(1);
        const reason =
          `column payout_intents.recipient_holder_name of database ${name} is latin1 (latin1_swedish_ci), not utf8mb4:` +
          ' names, references and ids outside latin1 (Thai, a BOM, an emoji) would be refused or lost;' +
          ' convert them (rebuilds those tables; stop the gateway first): npm run --silent cli -- db fix-charset';
        expect(expectOneLine(refused.stderr)).toBe(`payments-gateway: cannot start: ${reason}`);
        // The CLI's commands refuse the same way.
        const migrate = await runCli(db, ['migrate']);
        expect([migrate.code, expectOneLine(migrate.stderr)]).toEqual([1, reason]);
        // The command it names fixes the column, and the start then works.
        const fix = await shell('npm run --silent cli -- db fix-charset', { DATABASE_URL: url });
        expect([fix.code, fix.stdout.trim()]).toEqual([0, JSON.stringify({ altered: ['payout_intents'] })]);
        const [[column]] = (await admin.query(
          "SELECT CHARACTER_SET_NAME AS cs FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'payout_intents' AND COLUMN_NAME = 'recipient_holder_name'",
        )) as [{ cs: string }[], unknown];
        expect(column.cs).toBe('utf8mb4');
        const fixed = await start({ DATABASE_URL: url });
        expect(fixed.code).toBeNull();
        await fixed.stop();

        // A database default that a later migration's tables would inherit.
        await admin.query(`ALTER DATABASE \`${name}\` CHARACTER SET latin1`);
        const again = await start({ DATABASE_URL: url });
        expect(again.code).toBe(1);
        expect(expectOneLine(again.stderr)).toBe(
          `payments-gateway: cannot start: database ${name} has default character set latin1, not utf8mb4: tables added by a later migration would lose text outside it;` +
            ` npm run --silent cli -- db fix-charset (or ALTER DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci)`,
        );
        expect((await shell('npm run --silent cli -- db fix-charset', { DATABASE_URL: url })).stdout.trim()).toBe(JSON.stringify({ altered: [] }));
        const last = await start({ DATABASE_URL: url });
        expect(last.code).toBeNull();
        await last.stop();
      } finally {
        await admin.end();
        await db.drop();
      }
    },
  );

  mysqlTest('a database that does not exist is one line on stderr (with the command that creates it) and exit code 1', async () => {
    const name = `doesnotexist_${randomBytes(4).toString('hex')}`;
    const url = serverUrl(name);
    const s = await start({ DATABASE_URL: url });
    expect(s.code).toBe(1);
    const line = expectOneLine(s.stderr);
    expect(line).toMatch(new RegExp(`^payments-gateway: cannot start: database "${name}" does not exist on `));
    // The command it suggests really creates the database.
    const create = /create it first: (mysql .*)$/.exec(line)?.[1];
    expect(create).toBeDefined();
    const u = new URL(url);
    const admin = await connectMysql(u);
    try {
      if (!u.password) {
        const made = await shell(create!);
        expect(made.code).toBe(0);
        const [rows] = await admin.query('SHOW DATABASES LIKE ?', [name]);
        expect(rows).toHaveLength(1);
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    }
  });
});
