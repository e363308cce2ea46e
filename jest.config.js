/**
 * Tests are compiled by `tsc` (same decorator metadata as production) and run from dist/.
 * End-to-end suites (`*.test.ts`) each boot their own server on a fresh database: SQLite
 * by default, MariaDB/MySQL when DATABASE_URL=mysql://... is set (a database per test file).
 * Unit specs (`*.spec.ts`, `npm run test:unit`) test pure pieces: no server, no database.
 * Tests live in test/<module>/, shared helpers and fixtures in test/helpers/.
 *
 * Suites that need something optional (MariaDB, chromium, Redis) use testIf/describeIf from
 * test/helpers/skip.ts; the skip reporter prints why each was skipped at the end of the run.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js', '**/*.spec.js'],
  // tsc has already compiled the tests to CommonJS: no Babel pass over every file of every run.
  transform: {},
  testTimeout: 60000,
  maxWorkers: 2,
  globalSetup: '<rootDir>/dist/test/helpers/global-setup.js',
  globalTeardown: '<rootDir>/dist/test/helpers/global-teardown.js',
  reporters: ['<rootDir>/dist/test/helpers/skip-reporter.js', 'default'],
};
