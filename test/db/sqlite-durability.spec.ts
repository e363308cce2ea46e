/**
 * The embedded SQLite file's commit durability (decision 0188): FULL in production, so an
 * acknowledged write survives a power loss; NORMAL on a newcomer's machine and in the tests.
 * Read back from SQLite itself (`PRAGMA synchronous`: 1 NORMAL, 2 FULL) on a fresh file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createDataSource } from '../../src/db/data-source';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-durability-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function synchronousOf(env: NodeJS.ProcessEnv): Promise<number> {
  const config = loadConfig({ ...env, SQLITE_FILE: path.join(dir, `${env.NODE_ENV ?? 'none'}.sqlite`) });
  const ds = await createDataSource(config.database, []).initialize();
  try {
    const [row] = await ds.query<{ synchronous: number }[]>('PRAGMA synchronous');
    return row.synchronous;
  } finally {
    await ds.destroy();
  }
}

test('production commits with synchronous = FULL', async () => {
  expect(await synchronousOf({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://pay.example.com' })).toBe(2);
});

test('development and the tests commit with synchronous = NORMAL', async () => {
  expect(await synchronousOf({})).toBe(1);
  expect(await synchronousOf({ NODE_ENV: 'test' })).toBe(1);
});
