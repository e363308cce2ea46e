/**
 * The TypeORM CLI on the compiled DataSource, exactly as README and ormconfig.ts document it
 * (`npx typeorm -d dist/ormconfig.js migration:show`), on the engine of this run (a fresh
 * SQLite file, or a fresh MariaDB database with DATABASE_URL=mysql://...): it lists every
 * migration, pending before `cli migrate` and applied after.
 */
import path from 'node:path';
import { execFile } from 'node:child_process';
import { createTestDatabase, runCli, TestDatabase } from '../helpers/server';
import { MIGRATIONS } from '../../src/db/migrations';

const ROOT = path.resolve(__dirname, '../../..');

function migrationShow(database: TestDatabase): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npx',
      ['typeorm', '-d', 'dist/ormconfig.js', 'migration:show'],
      { cwd: ROOT, env: { ...process.env, ...database.env }, timeout: 60000 },
      (err, stdout, stderr) => {
        // CI=true makes TypeORM's logger colour its lines; compare the text only.
        const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
        resolve({
          code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0,
          stdout: plain(stdout),
          stderr: plain(stderr),
        });
      },
    );
  });
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await database.drop();
});

test('migration:show lists every migration as pending on a fresh database, and as applied after cli migrate', async () => {
  const names = MIGRATIONS.map((m) => m.name);
  expect(names.length).toBeGreaterThan(0);

  const before = await migrationShow(database);
  expect(before.code).toBe(0);
  expect(before.stdout.trim().split('\n')).toEqual(names.map((n) => `[ ] ${n}`));

  const migrate = await runCli(database, ['migrate']);
  expect(migrate.code).toBe(0);

  const after = await migrationShow(database);
  expect(after.code).toBe(0);
  const lines = after.stdout.trim().split('\n');
  expect(lines).toHaveLength(names.length);
  lines.forEach((line, i) => expect(line).toMatch(new RegExp(`^\\[X\\] \\d+ ${names[i]}$`)));
}, 180000);
