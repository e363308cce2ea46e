/** Per-request DataLoaders: every module's, merged, and never shared between requests. */
import DataLoader from 'dataloader';
import type { RequestContext } from '../../src/domain/scope';
import { createLoaders } from '../../src/graphql/loaders';
import { MODULES, type Composition } from '../../src/modules';

// Services that are never called: building a DataLoader runs nothing.
const app = { of: () => ({}) } as unknown as Composition;
const ctx = {} as RequestContext;
const KEYS = MODULES.flatMap((m) => (m.loaders ? Object.keys(m.loaders(app.of(m), ctx)) : []));

test("every module's loaders are there, and a request's are its own", () => {
  expect(KEYS).toEqual(expect.arrayContaining(['payoutIntent', 'paymentIntent', 'merchant']));
  const loaders = createLoaders(app, ctx) as unknown as Record<string, unknown>;
  expect(Object.keys(loaders).sort()).toEqual([...new Set(KEYS)].sort());
  for (const key of KEYS) expect(loaders[key]).toBeInstanceOf(DataLoader);
  const other = createLoaders(app, ctx) as unknown as Record<string, unknown>;
  expect(other.payoutIntent).not.toBe(loaders.payoutIntent);
});
