/**
 * Writes the OpenAPI document the server serves at /v1/openapi.json to a file (default
 * dist/openapi.json), for linting (`npm run openapi:lint`) and for generating the typed
 * client (`npm run build:client`). It builds the real app on a throw-away SQLite file and
 * asks @fastify/swagger for the document; no server listens.
 *
 *   node dist/src/tools/dump-openapi.js [out-file]
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../config';
import { createApp } from '../app';
import { buildServer } from '../server';

export async function buildOpenApiDocument(): Promise<unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-openapi-'));
  try {
    const config = loadConfig({
      DATABASE_URL: '',
      SQLITE_FILE: path.join(dir, 'openapi.sqlite'),
      DATA_DIR: dir,
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SEED_DEMO: '0',
      LOG_LEVEL: 'silent',
    });
    const app = await createApp(config, pino({ level: 'silent' }));
    try {
      const server = await buildServer(app);
      await server.ready();
      const document = server.swagger();
      await server.close();
      return document;
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const out = path.resolve(process.argv[2] ?? path.join(__dirname, '../../openapi.json'));
  const document = await buildOpenApiDocument();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`${path.relative(process.cwd(), out)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
