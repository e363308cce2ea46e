/** The layering rules of docs/architecture.md, checked on the source tree. */
import fs from 'node:fs';
import path from 'node:path';
import { MODULES } from '../src/modules';

const SRC = path.resolve(__dirname, '../../src');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b\s*(?:[^;']*?\bfrom\s+)?'([^']+)'/gm)].map((m) => m[1]);
}

/** Whether `file` imports `spec` for its types only (`import type ...`). */
function typeOnly(file: string, spec: string): boolean {
  return fs.readFileSync(file, 'utf8').split('\n').some((line) => line.startsWith('import type ') && line.endsWith(`'${spec}';`));
}

describe('layering', () => {
  test.each(['domain', 'db'])('src/%s (the kernel) imports no module', (kernel) => {
    const offending = tsFiles(path.join(SRC, kernel)).flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(path.join(SRC, 'modules')))
        // A data migration may use a module's column codec (`*.column.ts`) and its types: it
        // rewrites that module's stored values (e.g. 1733800000000-QrModules).
        .filter((spec) => !(file.includes(`${path.sep}migrations${path.sep}`) && (spec.endsWith('.column') || typeOnly(file, spec))))
        .map((spec) => `${path.relative(SRC, file)} -> ${spec}`));
    expect(offending).toEqual([]);
  });

  test('the assemblers name no module: they iterate the registry', () => {
    const assemblers = ['server.ts', 'graphql/schema.ts', 'graphql/loaders.ts', 'http/openapi.ts'];
    const offending = assemblers.flatMap((file) =>
      imports(path.join(SRC, file)).filter((spec) => /modules\/./.test(spec)).map((spec) => `${file} -> ${spec}`));
    expect(offending).toEqual([]);
  });

  test('every module folder has an x.module.ts, and the registry holds each once', () => {
    const folders = fs.readdirSync(path.join(SRC, 'modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'shared').map((e) => e.name);
    for (const folder of folders) {
      const moduleFiles = fs.readdirSync(path.join(SRC, 'modules', folder)).filter((f) => f.endsWith('.module.ts'));
      expect({ folder, moduleFiles: moduleFiles.length }).toEqual({ folder, moduleFiles: 1 });
    }
    const names = MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(folders.length);
  });

  test("every entity, resolver and OpenAPI model is declared by exactly one module", () => {
    const count = (pick: (m: (typeof MODULES)[number]) => unknown[]) => {
      const all = MODULES.flatMap(pick);
      return { total: all.length, distinct: new Set(all).size };
    };
    const entities = count((m) => m.entities ?? []);
    const resolvers = count((m) => m.resolvers ?? []);
    const models = count((m) => (m.models ?? []).map((s) => s.$id));
    expect(entities.total).toBe(entities.distinct);
    expect(resolvers.total).toBe(resolvers.distinct);
    expect(models.total).toBe(models.distinct);
    expect(models.total).toBeGreaterThanOrEqual(10);
    expect(entities.total).toBeGreaterThanOrEqual(15);
  });
});
