/**
 * Tests are compiled by `tsc` (same decorator metadata as production) and run from dist/.
 * Each test file boots its own server on a fresh database: SQLite by default,
 * MariaDB/MySQL when DATABASE_URL=mysql://... is set (a database per test file).
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/dist/test'],
  testMatch: ['**/*.test.js'],
  testTimeout: 60000,
  maxWorkers: 2,
  forceExit: true,
};
