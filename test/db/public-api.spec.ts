/**
 * TypeORM and the database drivers are used through their public, documented API only
 * (docs/decisions/0181-typeorm-public-api.md): src/ names none of their internals. Each entry
 * of INTERNALS is one way in that was used before, or a close relative: a query builder's
 * expression map, TypeORM's own hydration (load listeners, the driver's hydration, the
 * transformer helpers), the DataSource's subscriber list edited in place, the driver or its
 * pool reached by a cast, a logger read by a cast, deep imports, and any package's built files
 * (`<package>/dist/...`: a package's public paths are those its "exports" name). ALLOWED would name a use
 * kept on purpose, by its file and its exact text; there is none.
 */
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

const INTERNALS: [name: string, pattern: RegExp][] = [
  ['a query builder expression map', /\bexpressionMap\b/],
  ['entity load listeners', /\bafterLoadListeners\b/],
  ["the driver's hydration", /\bprepareHydratedValue\b/],
  ["TypeORM's hydrator or its helpers", /\b(RawSqlResultsToEntityTransformer|ApplyValueTransformers|DriverUtils|getMetadataArgsStorage)\b/],
  ['an entity made as the hydrator makes it', /\bfromDeserializer\b/],
  ['the subscriber list edited in place', /\bsubscribers\.(push|unshift|splice)\(/],
  ["the query runner's broadcaster", /\bbroadcaster\b/],
  ['the driver reached by a cast', /\bdriver\s+as\s+/],
  ["the driver's pool or module", /\.driver\)?\.(pool|mysql|master|slaves|databaseConnection|sqlite)\b/],
  ["TypeORM's logger read by a cast", /\blogger as unknown as\b/],
  ['a deep import', /(from|require\()\s*'(typeorm|mysql2|better-sqlite3)\//],
  ["a package's built files", /(from|require\(|import\()\s*'(@[^/']+\/)?[^./'][^/']*\/(.+\/)?(dist|lib|build)\//],
];

/** Uses allowed in one file: [file under src/, exact text of the line's use]. None today. */
const ALLOWED: [file: string, text: string][] = [];

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every use of an internal in `text` (the file `file`, relative to src/), as "file:line: what: the line". */
function internalsIn(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) =>
    INTERNALS.filter(([, pattern]) => pattern.test(line))
      .filter(() => !ALLOWED.some(([f, allowed]) => f === file && line.includes(allowed)))
      .map(([name]) => `${file}:${i + 1}: ${name}: ${line.trim()}`),
  );
}

test("src/ uses no internal of TypeORM or of the database drivers, and no package's built files", () => {
  const files = tsFiles(SRC);
  expect(files.length).toBeGreaterThan(100);
  const found = files.flatMap((full) => internalsIn(path.relative(SRC, full), fs.readFileSync(full, 'utf8')));
  expect(found).toEqual([]);
});

test.each([
  ['src/db/list-query.ts', "  counted.expressionMap.wheres = counted.expressionMap.wheres.filter((w) => w.condition !== '');"],
  ['src/db/compiled-select.ts', '    entity[property] = driver.prepareHydratedValue(value, column) as unknown;'],
  ['src/db/unit.ts', '    ds.subscribers.push(subscriber);'],
  ['src/db/outage.ts', '    const mysql = (this.ds.driver as unknown as { mysql: Mysql2Module }).mysql;'],
  ['src/db/deadline.ts', '  const pool = (ds.driver as unknown as { pool?: Pool }).pool;'],
  ['src/db/prepared.ts', "import { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';"],
  ['src/db/tx.ts', '    return (this.ds.logger as unknown as CountingLogger).count;'],
  ['src/graphql/ws.ts', "const { useServer } = require('graphql-ws/use/ws') as typeof import('graphql-ws/dist/use/ws');"],
])('a use planted in %s is found', (file, line) => {
  expect(internalsIn(file.slice('src/'.length), `// a file\n${line}\n`)).toHaveLength(1);
});
