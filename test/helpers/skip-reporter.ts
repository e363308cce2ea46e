/**
 * jest reporter: after the run, one line per (test file, reason) for every skipped test,
 * so `npm test` says why something did not run (no MariaDB, no chromium, no Redis). The
 * reason is the `[skipped: ...]` mark that testIf/describeIf (test/helpers/skip.ts) put in
 * the title; a skip without one is listed as such, to be given a reason.
 */
import path from 'node:path';
import type { AggregatedResult } from '@jest/test-result';
import { SUITES_FILE } from './suites';

const SKIP_MARK = '[skipped: ';

function reasonOf(titles: string[]): string {
  for (const t of titles) {
    const i = t.indexOf(SKIP_MARK);
    if (i >= 0) return t.slice(i + SKIP_MARK.length).replace(/\]\s*$/, '');
  }
  return 'no reason given (use testIf/describeIf from test/helpers/skip.ts)';
}

export default class SkipReporter {
  constructor(private readonly globalConfig: { rootDir: string }) {}

  onRunComplete(_contexts: unknown, results: AggregatedResult): void {
    const groups = new Map<string, { file: string; reason: string; count: number }>();
    for (const file of results.testResults) {
      // dist/test/x/y.test.js -> test/x/y.test.ts: the file a developer opens.
      const rel = path
        .relative(this.globalConfig.rootDir, file.testFilePath)
        .replace(/^dist\//, '')
        .replace(/\.js$/, '.ts');
      for (const a of file.testResults) {
        if (a.status !== 'pending' && a.status !== 'skipped') continue;
        const reason = reasonOf([a.title, ...a.ancestorTitles]);
        // A directory's suites.test.ts runs each suite in a block named after its file (test/helpers/suites.ts).
        const suite = path.basename(file.testFilePath) === SUITES_FILE ? `${path.dirname(rel)}/${a.ancestorTitles[0]}.suite.ts` : rel;
        const key = `${suite}\0${reason}`;
        const g = groups.get(key) ?? { file: suite, reason, count: 0 };
        g.count++;
        groups.set(key, g);
      }
    }
    if (groups.size === 0) return;
    const lines = [...groups.values()].map((g) => `  SKIPPED ${g.file} (${g.count} test${g.count === 1 ? '' : 's'}): ${g.reason}`);
    process.stderr.write(`\nSkipped tests and why:\n${lines.join('\n')}\n`);
  }
}
