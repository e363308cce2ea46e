/**
 * The typed client: openapi-typescript turns the served OpenAPI document into
 * dist/openapi.d.ts (as `npm run build:client` does), and the example of
 * examples/typed-client.ts, which calls the API with `fetch` and those types, compiles
 * with tsc. A second snippet checks that the types really constrain: each line marked
 * @ts-expect-error must be a type error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../src/tools/dump-openapi';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const BIN = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

jest.setTimeout(180_000);

async function tsc(files: string[]): Promise<string> {
  const args = [
    '--noEmit',
    '--strict',
    '--target',
    'ES2022',
    '--module',
    'commonjs',
    '--moduleResolution',
    'node',
    '--lib',
    'ES2022',
    '--types',
    'node',
    ...files,
  ];
  return run(BIN('tsc'), args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }).then(
    () => '',
    (err: Error & { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}` || String(err),
  );
}

test('openapi-typescript types generated from the document type a fetch call', async () => {
  if (!fs.existsSync(BIN('openapi-typescript'))) {
    console.log(`SKIPPED: ${BIN('openapi-typescript')} is missing (npm install the dev dependency openapi-typescript): no typed client was generated.`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-client-'));
  try {
    const json = path.join(dir, 'openapi.json');
    fs.writeFileSync(json, JSON.stringify(await buildOpenApiDocument(), null, 2));
    const types = path.join(dir, 'openapi.d.ts');
    await run(BIN('openapi-typescript'), [json, '--output', types], { cwd: ROOT });
    // Where the example imports them from (npm run build:client writes the same file).
    const target = path.join(ROOT, 'dist/openapi.d.ts');
    fs.copyFileSync(types, `${target}.${process.pid}`);
    fs.renameSync(`${target}.${process.pid}`, target);

    const negative = path.join(dir, 'negative.ts');
    fs.writeFileSync(
      negative,
      `import type { paths } from ${JSON.stringify(path.join(ROOT, 'dist/openapi'))};
type Body = paths['/payout_intents']['post']['requestBody']['content']['application/json'];
type Payout = paths['/payout_intents/{id}']['get']['responses'][200]['content']['application/json'];
const ok: Body = { amount: '1', currency: 'THB', country: 'TH', merchant_reference: 'r', recipient: { type: 'bank_account', bank_code: 'K', account_number: '1234', holder_name: 'A' } };
// @ts-expect-error amount is a string of digits, not a number
const n: Body = { ...ok, amount: 100 };
// @ts-expect-error recipient is required
const r: Body = { amount: '1', currency: 'THB', country: 'TH', merchant_reference: 'r' };
// @ts-expect-error recipient.type is 'bank_account' only
const t: Body = { ...ok, recipient: { ...ok.recipient, type: 'card' } };
declare const p: Payout;
const status: 'requires_approval' | 'processing' | 'succeeded' | 'failed' | 'cancelled' = p.status;
// @ts-expect-error the full account number is never returned
p.recipient.account_number;
export { n, r, t, status };
`,
    );
    // One program for both (tsc's start is most of its time): an error names its file.
    expect(await tsc([path.join(ROOT, 'examples/typed-client.ts'), negative])).toBe('');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
