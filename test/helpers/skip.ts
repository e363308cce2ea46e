/**
 * Conditional tests that say why they are skipped. A skipped test's title gets
 * `[skipped: <reason>]`, and test/helpers/skip-reporter.ts prints one line per file and
 * reason at the end of `npm test`. Use these instead of a bare `test.skip` / `describe.skip`
 * (the reporter flags skips without a reason). The checks are cheap and synchronous;
 * anything that needs I/O is probed once in test/helpers/global-setup.ts.
 */
import fs from 'node:fs';

export const SKIP_MARK = '[skipped: ';
const mark = (title: string, reason: string) => `${title} ${SKIP_MARK}${reason}]`;

/** `test` when `run`, else a skipped test whose title carries `reason`. */
export function testIf(run: boolean, reason: string): (title: string, fn?: jest.ProvidesCallback, timeout?: number) => void {
  return run ? test : (title, fn, timeout) => test.skip(mark(title, reason), fn, timeout);
}

/** `describe` when `run`, else a skipped block whose title carries `reason`. */
export function describeIf(run: boolean, reason: string): (title: string, fn: () => void) => void {
  return run ? describe : (title, fn) => describe.skip(mark(title, reason), fn);
}

/** True when DATABASE_URL points at MySQL/MariaDB (the suites then run there, a database per file). */
export const usingMysql = (): boolean => /^mysql:\/\//.test(process.env.DATABASE_URL ?? '');
export const NEEDS_MYSQL = 'needs MariaDB/MySQL: run with DATABASE_URL=mysql://root@127.0.0.1:3306/test';
/** Nothing fetches a MySQL 8 server: give one (CI runs the suite on it when MYSQL8_URL is set). */
export const NEEDS_MYSQL8 = 'MySQL 8 only: run the suite with DATABASE_URL set to a MySQL 8 server (.ci/run does when MYSQL8_URL names one)';

/** Which server DATABASE_URL points at (probed once by global-setup), or null on SQLite. */
export const mysqlServer = (): 'MariaDB' | 'MySQL' | null => (!usingMysql() ? null : process.env.TEST_MYSQL_SERVER === 'MySQL' ? 'MySQL' : 'MariaDB');
/** The binary NO PAD collation that exact ids compare with (src/db/charset.ts binaryNoPadCollation). */
export const exactIdCollation = (): string => (mysqlServer() === 'MySQL' ? 'utf8mb4_0900_bin' : 'utf8mb4_nopad_bin');

/** Debian's chromium, or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = (): boolean => fs.existsSync(CHROMIUM);
export const NEEDS_CHROMIUM = `no chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`;

/** The Redis the cross-process subscription test uses, and why it cannot (set by global-setup), or null. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
export const redisUnavailable = (): string | null => process.env.TEST_REDIS_PROBLEM || null;
