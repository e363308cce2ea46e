/** The layering rules of docs/architecture.md, checked on the source tree. */
import { approvalsModule } from '../src/modules/approvals/approval.module';
import { ApprovalPolicyResolver } from '../src/modules/approvals/approval.resolver';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { Composition, MODULES } from '../src/modules';
import { defineModule, type AnyModule, type Kernel, type ServicesOf } from '../src/modules/module';
import { auditModule } from '../src/modules/audit/audit.module';
import { AuditResolver } from '../src/modules/audit/audit.resolver';
import { authModule } from '../src/modules/auth/auth.module';
import { peopleModule } from '../src/modules/people/people.module';
import { PeopleResolver } from '../src/modules/people/people.resolver';
import { ViewerResolver } from '../src/modules/auth/viewer.resolver';
import { ApiKeyResolver } from '../src/modules/auth/api-key.resolver';
import { balancesModule } from '../src/modules/balances/balance.module';
import { BalanceResolver } from '../src/modules/balances/balance.resolver';
import { FeeScheduleResolver } from '../src/modules/balances/fee.resolver';
import { batchesModule } from '../src/modules/batches/batch.module';
import { PayoutBatchResolver } from '../src/modules/batches/batch.resolver';
import { eventsModule } from '../src/modules/events/event.module';
import { EventResolver, EventSubscriptionResolver } from '../src/modules/events/event.resolver';
import { financeModule } from '../src/modules/finance/finance.module';
import { ReportRunResolver } from '../src/modules/finance/report.resolver';
import { OverviewResolver } from '../src/modules/finance/overview.resolver';
import {
  BalanceTransactionResolver,
  PaymentIntentBalanceTransactionsResolver,
  PayoutIntentBalanceTransactionsResolver,
  RefundBalanceTransactionsResolver,
} from '../src/modules/finance/balance-transaction.resolver';
import { methodsModule } from '../src/modules/methods/method.module';
import { MethodResolver } from '../src/modules/methods/method.resolver';
import { paymentsModule } from '../src/modules/payments/payment.module';
import { PaymentResolver } from '../src/modules/payments/payment.resolver';
import { payoutsModule } from '../src/modules/payouts/payout.module';
import { PayoutResolver } from '../src/modules/payouts/payout.resolver';
import { refundsModule } from '../src/modules/refunds/refund.module';
import { PaymentIntentRefundsResolver, RefundResolver } from '../src/modules/refunds/refund.resolver';
import { linksModule } from '../src/modules/links/link.module';
import { LinkResolver, PaymentIntentLinkResolver } from '../src/modules/links/link.resolver';
import { topupsModule } from '../src/modules/topups/topup.module';
import { TopupResolver } from '../src/modules/topups/topup.resolver';
import { webhooksModule } from '../src/modules/webhooks/webhook.module';
import { WebhookResolver } from '../src/modules/webhooks/webhook.resolver';
import { graphModule } from '../src/modules/graph/graph.module';
import { NodeResolver } from '../src/modules/graph/graph.resolver';
import { EventResourceResolver } from '../src/modules/graph/event-resource';
import { RecordSubscriptionResolver } from '../src/modules/graph/record-subscriptions';

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

/**
 * Lines of a module file that push onto, or assign to, something reached through the services
 * of a module it uses (the names of `uses`, and `const x = <used>.…` aliases of them).
 */
function writesToUsedServices(text: string): string[] {
  const uses = /uses:\s*\{([^}]*)\}/.exec(text)?.[1] ?? '';
  const names = new Set([...uses.matchAll(/(\w+)\s*:/g)].map((m) => m[1]));
  for (const m of text.matchAll(/const\s+(\w+)\s*=\s*(\w+)\.[\w.]+;/g)) if (names.has(m[2])) names.add(m[1]);
  if (names.size === 0) return [];
  const via = [...names].join('|');
  const write = new RegExp(`\\b(?:${via})\\.[\\w.]+(?:\\.(?:push|unshift|splice|set|add)\\(|\\s*=(?![=>]))`);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => write.test(line));
}

/** Whether `file` imports `spec` for its types only (`import type ...`). */
function typeOnly(file: string, spec: string): boolean {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .some((line) => line.startsWith('import type ') && line.endsWith(`'${spec}';`));
}

describe('layering', () => {
  test.each(['domain', 'db'])('src/%s (the kernel) imports no module', (kernel) => {
    const offending = tsFiles(path.join(SRC, kernel)).flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(path.join(SRC, 'modules')))
        // A data migration may use a module's column codec (`*.column.ts`) and its types: it
        // rewrites that module's stored values (e.g. 1733800000000-QrModules).
        .filter((spec) => !(file.includes(`${path.sep}migrations${path.sep}`) && (spec.endsWith('.column') || typeOnly(file, spec))))
        .map((spec) => `${path.relative(SRC, file)} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test.each(['ops', 'http', 'graphql'])('src/%s (a surface) reaches no module folder and not the app: the registry and narrow interfaces only', (surface) => {
    const registry = ['index.ts', 'module.ts', 'compose.ts'].map((f) => path.join(SRC, 'modules', f));
    const offending = tsFiles(path.join(SRC, surface)).flatMap((file) =>
      ts
        .preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((i) => i.fileName)
        .filter((spec) => spec.startsWith('.'))
        .filter((spec) => {
          const target = path.resolve(path.dirname(file), spec);
          const inModules = target.startsWith(path.join(SRC, 'modules') + path.sep) && !registry.includes(`${target}.ts`);
          return inModules || target === path.join(SRC, 'app');
        })
        .map((spec) => `${path.relative(SRC, file).split(path.sep).join('/')} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test('the assemblers name no module: they iterate the registry', () => {
    const assemblers = ['server.ts', 'graphql/schema.ts', 'graphql/loaders.ts', 'http/openapi.ts'];
    const offending = assemblers.flatMap((file) =>
      imports(path.join(SRC, file))
        .filter((spec) => /modules\/./.test(spec))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test('every module folder has an x.module.ts, and the registry holds each once', () => {
    const folders = fs
      .readdirSync(path.join(SRC, 'modules'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'shared')
      .map((e) => e.name);
    for (const folder of folders) {
      const moduleFiles = fs.readdirSync(path.join(SRC, 'modules', folder)).filter((f) => f.endsWith('.module.ts'));
      expect({ folder, moduleFiles: moduleFiles.length }).toEqual({ folder, moduleFiles: 1 });
    }
    const names = MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(folders.length);
  });

  test('every entity, resolver and OpenAPI model is declared by exactly one module', () => {
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

/** Every file of src/ and the src/ files it imports (type-only imports, re-exports and `import()` types included). */
function importGraph(): Map<string, string[]> {
  const files = tsFiles(SRC);
  const known = new Set(files);
  const resolve = (from: string, spec: string): string | undefined => {
    if (!spec.startsWith('.')) return undefined;
    const base = path.resolve(path.dirname(from), spec);
    return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => known.has(f));
  };
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
      return [file, importedFiles.map((i) => resolve(file, i.fileName)).filter((f): f is string => f !== undefined)];
    }),
  );
}

/** The strongly connected components of more than one file (or a file importing itself): each is an import circle. */
function importCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) circles.push(component.map((f) => path.relative(SRC, f)).sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe('imports', () => {
  test('src/ has no import circle, type-only imports included', () => {
    const circles = importCircles(importGraph()).map((c) => c.join(' -> '));
    expect(circles).toEqual([]);
  });

  test('the circle finder sees a circle made only of type imports', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCircles(graph).map((c) => c.map((f) => path.basename(f)))).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const { importedFiles } = ts.preProcessFile("import type { A } from './a';\nexport type { B } from './b';\ntype C = import('./c').C;\n", true, true);
    expect(importedFiles.map((i) => i.fileName)).toEqual(['./a', './b', './c']);
  });

  /** The kernel knows no database: SQL, query builders and index hints live under src/db/. */
  test('the dashboard (dashboard/src) imports nothing outside dashboard/: it is a client of the public API only', () => {
    const root = path.resolve(__dirname, '../../dashboard');
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) return e.name === 'gql' ? [] : files(full);
        return /\.tsx?$/.test(e.name) ? [full] : [];
      });
    const all = files(path.join(root, 'src'));
    expect(all.length).toBeGreaterThan(10);
    const offending = all.flatMap((file) =>
      ts
        .preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((i) => i.fileName)
        .filter((spec) => spec.startsWith('.') && !path.resolve(path.dirname(file), spec).startsWith(root + path.sep))
        .map((spec) => `${path.relative(root, file).split(path.sep).join('/')} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  test('src/domain imports neither src/db nor typeorm', () => {
    const offending = tsFiles(path.join(SRC, 'domain')).flatMap((file) =>
      ts
        .preProcessFile(fs.readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((i) => i.fileName)
        .filter(
          (spec) =>
            spec === 'typeorm' ||
            spec.startsWith('typeorm/') ||
            (spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(path.join(SRC, 'db') + path.sep)),
        )
        .map((spec) => `${path.relative(SRC, file).split(path.sep).join('/')} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });
});

describe('modules build their own services', () => {
  test('no file under src/modules imports the application (src/app.ts)', () => {
    const app = path.join(SRC, 'app');
    const offending = tsFiles(path.join(SRC, 'modules')).flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.') && path.resolve(path.dirname(file), spec) === app)
        .map(() => path.relative(SRC, file)),
    );
    expect(offending).toEqual([]);
  });

  test('each module is built after the modules it uses, once; a module outside the registry is refused', () => {
    const built: string[] = [];
    const kernel = {} as Kernel;
    const make = (name: string, uses: Record<string, AnyModule> = {}) =>
      defineModule({
        name,
        uses,
        provide: (_k, used) => {
          built.push(`${name}(${Object.keys(used).join(',')})`);
          return { name };
        },
      });
    const base = make('base');
    const middle = make('middle', { base });
    const top = make('top', { middle, base });
    const composition = new Composition([top, middle, base], kernel);
    expect(built).toEqual(['base()', 'middle(base)', 'top(middle,base)']);
    expect(composition.order.map((m) => m.name)).toEqual(['base', 'middle', 'top']);
    expect(composition.of(middle)).toEqual({ name: 'middle' });
    expect(() => new Composition([top, middle], kernel)).toThrow(/uses base, which is not in the registry/);
  });

  test("every module the registry's modules use is in the registry", () => {
    for (const module of MODULES) for (const used of Object.values(module.uses ?? {})) expect(MODULES).toContain(used);
  });

  test('a module never writes to the services of the modules it uses: a call between modules is made where it happens', () => {
    const offending = tsFiles(path.join(SRC, 'modules'))
      .filter((file) => file.endsWith('.module.ts'))
      .flatMap((file) => writesToUsedServices(fs.readFileSync(file, 'utf8')).map((line) => `${path.relative(SRC, file)}: ${line}`));
    expect(offending).toEqual([]);
  });

  test('the check above sees a hook pushed onto a used service, directly or through an alias, and a hook assigned', () => {
    const module = `defineModule({
      uses: { events: eventsModule, payments: paymentsModule },
      provide({ db }, { events, payments }) {
        const hooks = payments.lifecycle.hooks;
        events.events.afterRecord.push((em) => plan(em));
        hooks.succeeded.push(count);
        payments.lifecycle.allowed = async () => null;
        const mine = new Mine(events.events);
        mine.listeners.push(() => undefined);
        return { mine };
      },
    });`;
    expect(writesToUsedServices(module)).toEqual([
      'events.events.afterRecord.push((em) => plan(em));',
      'hooks.succeeded.push(count);',
      'payments.lifecycle.allowed = async () => null;',
    ]);
  });
});

/**
 * Compile-time check: each resolver class is constructed with its module's services
 * (`Composition` passes them), so its constructor may ask only for services the module
 * provides. `defineModule` cannot check this itself without fixing the services' type before
 * `provide` is read; this list does, and the test below keeps it complete.
 */
const RESOLVERS_FIT = [
  fits(approvalsModule, ApprovalPolicyResolver),
  fits(auditModule, AuditResolver),
  fits(authModule, ViewerResolver, ApiKeyResolver),
  fits(balancesModule, BalanceResolver, FeeScheduleResolver),
  fits(batchesModule, PayoutBatchResolver),
  fits(eventsModule, EventResolver, EventSubscriptionResolver),
  fits(linksModule, LinkResolver, PaymentIntentLinkResolver),
  fits(
    financeModule,
    ReportRunResolver,
    BalanceTransactionResolver,
    OverviewResolver,
    PaymentIntentBalanceTransactionsResolver,
    PayoutIntentBalanceTransactionsResolver,
    RefundBalanceTransactionsResolver,
  ),
  fits(methodsModule, MethodResolver),
  fits(paymentsModule, PaymentResolver),
  fits(peopleModule, PeopleResolver),
  fits(payoutsModule, PayoutResolver),
  fits(refundsModule, RefundResolver, PaymentIntentRefundsResolver),
  fits(topupsModule, TopupResolver),
  fits(webhooksModule, WebhookResolver),
  fits(graphModule, NodeResolver, EventResourceResolver, RecordSubscriptionResolver),
];
function fits<M extends AnyModule>(module: M, ...resolvers: (new (services: ServicesOf<M>) => object)[]): [AnyModule, unknown[]] {
  return [module, resolvers];
}

test("every module's resolver classes are constructible from the module's services (checked by the compiler above)", () => {
  const byName = (a: [string, unknown], b: [string, unknown]) => a[0].localeCompare(b[0]);
  const listed = RESOLVERS_FIT.map(([m, r]): [string, unknown] => [m.name, r]).sort(byName);
  expect(listed).toEqual(
    MODULES.filter((m) => m.resolvers?.length)
      .map((m): [string, unknown] => [m.name, m.resolvers])
      .sort(byName),
  );
});
