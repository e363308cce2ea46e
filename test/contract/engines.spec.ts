/**
 * package.json `engines.node` against every installed package's own `engines.node`: each
 * Node.js line our range admits (its lowest version) must satisfy every package, except
 * the packages below whose declared minimum is above what they need here, each with the
 * reason and a check that it works on the Node.js running this test. A dependency update
 * that raises a real minimum fails this spec: raise `engines` (and docs/development.md "Requirements"),
 * or pin the package.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';

// semver comes with fastify (and npm); no types are installed for it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- an untyped transitive package, typed right here
const semver = require('semver') as {
  satisfies(v: string, range: string): boolean;
  validRange(range: string): string | null;
};

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const ENGINES: string = pkg.engines.node;

/** Declared minimum above the real one: package name -> why it works on our whole range. */
const OVERSTATED: Record<string, string> = {
  // light-my-request (fastify.inject) -> cookie@2: an ES module loaded with require(), which
  // Node.js has without a flag since 20.19; fastify loads it only for inject(), which the
  // service never calls. Its engines (>=22) follows its maintainers' support policy.
  cookie: 'ESM-only, required through require(esm) (Node.js >= 20.19); loaded only by fastify.inject()',
  // @apollo/server -> @graphql-tools/utils@12 -> @whatwg-node/promise-helpers@2: uses
  // Promise.withResolvers (Node.js 22) only when it exists, else its own deferred.
  '@whatwg-node/promise-helpers': 'feature-detects Promise.withResolvers and falls back',
  // Build tools of the dashboard (devDependencies, run by `npm run build`): GraphQL Code
  // Generator's CLI shows its tasks with listr2, and graphql-config brings schema loaders for
  // URL, GitHub and Apollo sources (with @whatwg-node/* and sync-fetch) that dashboard/codegen.yml
  // never uses: it reads the local schema.graphql. The last test runs the generator here.
  listr2: 'the code generator CLI task list (run with --silent); the generator runs on this Node.js (test below)',
  'sync-fetch': 'used only by the URL/GitHub/Apollo schema loaders; the dashboard codegen reads a local file',
  '@whatwg-node/fetch': 'used only by the URL/GitHub/Apollo schema loaders; the dashboard codegen reads a local file',
  '@whatwg-node/node-fetch': 'used only by the URL/GitHub/Apollo schema loaders; the dashboard codegen reads a local file',
  '@whatwg-node/disposablestack': 'used only by the URL/GitHub/Apollo schema loaders; the dashboard codegen reads a local file',
};

interface Installed {
  name: string;
  version: string;
  node: string;
  where: string;
}

function installed(): Installed[] {
  const out: Installed[] = [];
  const walk = (dir: string) => {
    let entries: string[];
    try {
      entries = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.startsWith('.')) continue;
      const p = path.join(dir, e);
      if (e.startsWith('@')) {
        walk(p);
        continue;
      }
      const manifest = path.join(p, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      try {
        const j = JSON.parse(fs.readFileSync(manifest, 'utf8'));
        if (typeof j.engines?.node === 'string') out.push({ name: j.name, version: j.version, node: j.engines.node, where: path.relative(ROOT, p) });
      } catch {
        /* not a package */
      }
      walk(path.join(p, 'node_modules'));
    }
  };
  walk(path.join(ROOT, 'node_modules'));
  return out;
}

/**
 * The lowest version of each Node.js major line (18 to 26, the lines released so far) that
 * engines.node admits, e.g. 20.19.0, 22.13.0, 24.11.0: what a user may run.
 */
function lineMinimums(range: string): string[] {
  const out: string[] = [];
  for (let major = 18; major <= 26; major++) {
    for (let minor = 0; minor <= 60; minor++) {
      const v = `${major}.${minor}.0`;
      if (semver.satisfies(v, range)) {
        out.push(v);
        break;
      }
    }
  }
  return out;
}

test('engines.node is a valid range and admits the Node.js running the tests', () => {
  expect(semver.validRange(ENGINES)).not.toBeNull();
  expect(lineMinimums(ENGINES)).toEqual(['20.19.0', '22.13.0', '24.11.0', '25.0.0', '26.0.0']);
  expect(semver.satisfies(process.versions.node, ENGINES)).toBe(true);
});

test('every installed package accepts the lowest version of each Node.js line engines.node admits (known overstatements aside)', () => {
  const packages = installed();
  expect(packages.length).toBeGreaterThan(100);
  const problems: string[] = [];
  const overstated = new Set<string>();
  for (const v of lineMinimums(ENGINES)) {
    for (const p of packages) {
      if (semver.satisfies(v, p.node)) continue;
      if (OVERSTATED[p.name]) {
        overstated.add(p.name);
        continue;
      }
      problems.push(`${p.name}@${p.version} (${p.where}) needs node ${p.node}; ${v} is in engines "${ENGINES}"`);
    }
  }
  expect(problems).toEqual([]);
  // An exception nothing needs any more goes.
  expect([...overstated].sort()).toEqual(Object.keys(OVERSTATED).sort());
});

/**
 * Runs in a plain node process: jest's module loader has no require(esm), Node.js's has.
 * Loads each overstated package the way the service's dependencies do and uses it.
 */
const PROBE = `
const assert = require('node:assert');
const path = require('node:path');
(async () => {
  // cookie@2, through light-my-request (fastify.inject), the only way it is loaded.
  const inject = require('light-my-request');
  const res = await inject((req, r) => { r.setHeader('set-cookie', 'a=1; HttpOnly'); r.end('ok'); }, { url: '/' });
  assert.strictEqual(res.statusCode, 200);
  assert.deepStrictEqual(res.cookies.map((c) => [c.name, c.value]), [['a', '1']]);
  assert.strictEqual(require('cookie').stringifySetCookie({ name: 'a', value: 'b', httpOnly: true }), 'a=b; HttpOnly');
  // The promise-helpers copy that @graphql-tools/utils (under @apollo/server) loads.
  const schema = require.resolve('@graphql-tools/schema', { paths: [path.dirname(require.resolve('@apollo/server'))] });
  const utils = require.resolve('@graphql-tools/utils', { paths: [path.dirname(schema)] });
  const where = require.resolve('@whatwg-node/promise-helpers', { paths: [path.dirname(utils)] });
  const d = require(where).createDeferredPromise();
  d.resolve(7);
  assert.strictEqual(await d.promise, 7);
  console.log('ok ' + where);
})().catch((e) => { console.error(e); process.exit(1); });
`;

test('the packages with an overstated minimum work on this Node.js', async () => {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['-e', PROBE], { cwd: ROOT, timeout: 30000 }, (err, out, errOut) => resolve({ code: err ? 1 : 0, stdout: out, stderr: errOut }));
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toMatch(/^ok .*@whatwg-node\/promise-helpers\//);
});

test('the dashboard code generator (listr2, graphql-config and its loaders) runs on this Node.js', async () => {
  const bin = path.join(ROOT, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, '--config', 'dashboard/codegen.yml', '--silent'], { cwd: ROOT, timeout: 60000 }, (err, _out, errOut) =>
      resolve({ code: err ? 1 : 0, stderr: errOut }),
    );
  });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
}, 90000);
