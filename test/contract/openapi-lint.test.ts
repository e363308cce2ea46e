/**
 * The served OpenAPI document passes `redocly lint` (rules in redocly.yaml) with no
 * errors. The document is written the way `npm run openapi:lint` writes it
 * (src/tools/dump-openapi.ts), here to a file of this test's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../src/tools/dump-openapi';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const REDOCLY = path.join(ROOT, 'node_modules/.bin/redocly');

jest.setTimeout(120_000);

test('redocly lint: the OpenAPI document has no errors', async () => {
  if (!fs.existsSync(REDOCLY)) {
    console.log(`SKIPPED: ${REDOCLY} is missing (npm install the dev dependency @redocly/cli): the document was not linted.`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(await buildOpenApiDocument(), null, 2));
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', NO_COLOR: '1' };
    const out = await run(REDOCLY, ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], {
      env,
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; stderr?: string; code?: number }) => ({
      stdout: err.stdout ?? '',
      stderr: `${err.stderr ?? ''} (exit ${err.code})`,
    }));
    let report: {
      totals?: { errors: number; warnings: number };
      problems?: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
    };
    try {
      report = JSON.parse(out.stdout);
    } catch {
      throw new Error(`redocly printed no JSON report:\n${out.stdout}\n${out.stderr}`);
    }
    const errors = (report.problems ?? []).filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`);
    const warnings = (report.problems ?? []).filter((p) => p.severity === 'warn');
    const byRule = warnings.reduce((m, p) => m.set(p.ruleId, (m.get(p.ruleId) ?? 0) + 1), new Map<string, number>());

    console.log(
      `redocly lint: ${errors.length} errors, ${warnings.length} warnings${byRule.size ? ` (${[...byRule].map(([r, n]) => `${r}: ${n}`).join(', ')})` : ''}`,
    );
    expect(errors).toEqual([]);
    expect(report.totals?.errors ?? 0).toBe(0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
