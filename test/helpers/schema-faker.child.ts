/**
 * Runs json-schema-faker (npm; ESM-only, so it runs here, in a child process, and not inside
 * Jest) for the OpenAPI conformance test (test/helpers/openapi-requests.ts). Reads one JSON
 * request on stdin, writes the samples on stdout:
 *
 *   in:  { root: { components }, jobs: [{ key, schema, count, seed }] }
 *   out: { samples: { [key]: unknown[] }, errors: { [key]: string } }
 *
 * `$ref`s (`#/components/schemas/...`) resolve against `root`. Each sample has its own seed
 * (`seed + i`), so a run is reproducible.
 */
interface Job {
  key: string;
  schema: unknown;
  count: number;
  seed: number;
}

type Faker = { generateSync(schema: unknown, options?: Record<string, unknown>): unknown };

// A real dynamic import (tsc would turn `import()` into `require()`, which cannot load an ESM-only package).
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed text, the only way to keep import() through tsc's CommonJS output
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Faker>;

function read(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

async function main(): Promise<void> {
  const jsf = await importEsm('json-schema-faker');
  const { root, jobs } = JSON.parse(await read()) as { root: Record<string, unknown>; jobs: Job[] };
  const pointer = (ref: string): unknown =>
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o: unknown, k) => (o as Record<string, unknown> | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], root);
  const samples: Record<string, unknown[]> = {};
  const errors: Record<string, string> = {};
  for (const job of jobs) {
    samples[job.key] = [];
    for (let i = 0; i < job.count; i++) {
      try {
        samples[job.key].push(
          jsf.generateSync(job.schema, { seed: job.seed + i, refResolver: pointer, useExamplesValue: i === 0, optionalsProbability: i % 2 === 0 ? 1 : 0.5 }),
        );
      } catch (err) {
        errors[job.key] = (err as Error).message;
      }
    }
  }
  process.stdout.write(JSON.stringify({ samples, errors }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
