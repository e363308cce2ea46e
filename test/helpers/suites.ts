/**
 * The suites of one directory as one jest test file. Each `test/<dir>/<name>.suite.ts` is a
 * test file in all but name (its own servers and databases, made and closed in its own hooks);
 * `test/<dir>/suites.test.ts` runs them one after another, each in a describe block named after
 * it. jest gives every test file a fresh module registry, so every file loads the service again
 * (about 2,000 modules, 0.6 s of CPU); the suites of a directory share one load instead
 * (docs/decisions/0189-suites-share-a-test-file.md). One suite alone:
 * `npx jest dist/test/<dir>/suites.test.js -t '^<name> '`.
 */
import fs from 'node:fs';
import path from 'node:path';

const SUITE_SUFFIX = '.suite.js';
/** The compiled test file that runs a directory's suites (`suites.test.ts` in the source). */
export const SUITES_FILE = 'suites.test.js';

/** The compiled suites of a directory, by name. */
export function suiteFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(SUITE_SUFFIX))
    .sort();
}

export function runSuitesIn(dir: string): void {
  const suites = suiteFiles(dir);
  if (suites.length === 0) throw new Error(`no *${SUITE_SUFFIX} in ${dir}`);
  for (const file of suites) {
    describe(file.slice(0, -SUITE_SUFFIX.length), () => {
      // Inside the describe callback, so the suite's hooks and tests belong to its block.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(dir, file));
    });
  }
}
