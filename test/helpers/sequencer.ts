/**
 * jest's test order, with one change for the files it has no time for yet. jest starts the
 * files that failed last time first, then those it has never timed (biggest file first), then
 * the rest (longest first), so a run ends on short files. A `suites.test.js` is a few lines that
 * run a whole directory's suites (test/helpers/suites.ts): by its own size it would start last
 * and leave the run waiting on it. Untimed files here weigh what they run: a suites file its
 * suites' sizes together.
 */
import fs from 'node:fs';
import path from 'node:path';
import Sequencer from '@jest/test-sequencer';
import type { Test } from '@jest/test-result';
import { SUITES_FILE, suiteFiles } from './suites';

function weight(file: string): number {
  if (path.basename(file) !== SUITES_FILE) return fs.statSync(file).size;
  const dir = path.dirname(file);
  return suiteFiles(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
}

export default class SuitesWeighed extends Sequencer {
  async sort(tests: Test[]): Promise<Test[]> {
    const ordered = await super.sort(tests);
    const slots = ordered.flatMap((t, i) => (t.duration === undefined ? [i] : []));
    const untimed = slots.map((i) => ordered[i]).map((t) => ({ t, w: weight(t.path) }));
    untimed.sort((a, b) => b.w - a.w);
    slots.forEach((slot, k) => (ordered[slot] = untimed[k].t));
    return ordered;
  }
}
