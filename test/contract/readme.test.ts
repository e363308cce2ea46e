/**
 * The README's curl examples, as a newcomer runs them: the compiled service is started on a
 * fresh embedded database with the default settings (2 s simulated settlement included),
 * the `export PK=... SK=... BASE=...` line it prints is taken as is, and every ```sh block
 * of README.md that calls the API ($BASE) is run in order in one bash, pasted unchanged.
 * Every HTTP answer must be 2xx and no GraphQL answer may carry errors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn, ChildProcess } from 'node:child_process';

const ROOT = path.resolve(__dirname, '../../..');

/** The ```sh blocks of the README that set up or call the API, without the placeholder export line. */
export function apiBlocks(readme: string): string[] {
  const blocks = [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  return blocks
    .filter((b) => b.includes('$BASE') || b.includes('BASE='))
    .map((b) =>
      b
        .split('\n')
        .filter((line) => !/^export PK=/.test(line))
        .join('\n'),
    );
}

/** Records every curl call's status; fails the script on a non-2xx answer or GraphQL errors. */
const PRELUDE = `
set -eo pipefail
curl() {
  local out code body
  out=$(command curl -sS -w '\\n%{http_code}' "$@") || { echo "curl failed: $*" >&2; return 1; }
  code=\${out##*$'\\n'}
  body=\${out%$'\\n'*}
  printf '%s\\n' "$body"
  echo "$code \${*//$'\\n'/ }" >> "$STATUS_LOG"
  case "$code" in 2??) ;; *) echo "README example answered HTTP $code: $* -> $body" >&2; return 1 ;; esac
  case "$body" in *'"errors":['*) echo "README GraphQL example answered errors: $* -> $body" >&2; return 1 ;; esac
}
`;

let dir: string;
let child: ChildProcess | undefined;
let stdout = '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-readme-'));
  child = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    // A newcomer's environment: no DATABASE_URL, default settlement delay.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dir,
      DATA_DIR: path.join(dir, 'data'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not print its demo key: ${stdout}`)), 90000);
    child!.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/^\s+export PK=.*\n/m.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child!.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}: ${stdout}`));
    });
  });
}, 100000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      child!.once('exit', () => resolve());
      child!.kill('SIGTERM');
    });
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('every README example that calls the API works, in order, on a fresh start with the printed key', async () => {
  const exportLine = /^\s+(export PK=pk_test_\w+ SK=sk_test_\w+ BASE=http:\/\/localhost:\d+)$/m.exec(stdout)?.[1];
  expect(exportLine).toBeDefined();

  const blocks = apiBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  expect(blocks.length).toBeGreaterThan(10);
  const script = [PRELUDE, exportLine, ...blocks.map((b, i) => `${b}\necho "README block ${i + 1} done" >&2`)].join('\n');
  const statusLog = path.join(dir, 'status.log');
  fs.writeFileSync(path.join(dir, 'readme.sh'), script);

  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'bash',
      [path.join(dir, 'readme.sh')],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, STATUS_LOG: statusLog }, timeout: 120000, maxBuffer: 16 * 1024 * 1024 },
      (err, out, errOut) => resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout: out, stderr: errOut }),
    );
  });
  const statuses = fs.existsSync(statusLog) ? fs.readFileSync(statusLog, 'utf8').trim().split('\n') : [];
  if (run.code !== 0)
    throw new Error(
      `README examples failed (exit ${run.code}):\n${run.stderr
        .split('\n')
        .filter((l) => !l.startsWith('{'))
        .slice(-15)
        .join('\n')}`,
    );
  for (let i = 1; i <= blocks.length; i++) expect(run.stderr).toContain(`README block ${i} done`);
  expect(statuses.length).toBeGreaterThan(40);
  expect(statuses.filter((l) => !/^2\d\d /.test(l))).toEqual([]);
}, 150000);

test('every relative link in README.md and docs/*.md points into the repository, at a file that exists', () => {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const broken: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const resolved = path.resolve(ROOT, path.dirname(file), target.split('#')[0]);
      if (!resolved.startsWith(ROOT + path.sep) || !fs.existsSync(resolved)) broken.push(`${file}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});
