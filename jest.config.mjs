/**
 * Tests are compiled by `tsc` (same decorator metadata as production) and run from dist/.
 * End-to-end suites each boot their own server on a fresh database: SQLite by default,
 * MariaDB/MySQL when DATABASE_URL=mysql://... is set (a database per server). A directory's
 * suites (`*.suite.ts`) run in one test file, its `suites.test.ts`, so they share one load of
 * the service (test/helpers/suites.ts); a suite that needs settings of its own (a longer
 * timeout, a browser) stays a `*.test.ts` of its own.
 * Unit specs (`*.spec.ts`, `npm run test:unit`) test pure pieces: no server, no database.
 * Tests live in test/<module>/, shared helpers and fixtures in test/helpers/.
 *
 * Suites that need something optional (MariaDB, chromium, Redis) use testIf/describeIf from
 * test/helpers/skip.ts; the skip reporter prints why each was skipped at the end of the run.
 */
import os from 'node:os';

export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js', '**/*.spec.js'],
  // tsc has already compiled the tests to CommonJS: no Babel pass over every file of every run.
  transform: {},
  testTimeout: 60000,
  // One worker more than cores: a file waits on its server, a browser or a child process for
  // part of its time, and a third worker fills it (decision 0185). CI passes its own count.
  maxWorkers: os.availableParallelism() + 1,
  // Untimed files by what they run, so a directory's suites.test.js does not start last.
  testSequencer: '<rootDir>/dist/test/helpers/sequencer.js',
  globalSetup: '<rootDir>/dist/test/helpers/global-setup.js',
  globalTeardown: '<rootDir>/dist/test/helpers/global-teardown.js',
  reporters: ['<rootDir>/dist/test/helpers/skip-reporter.js', 'default'],
};
