/** Per-request DataLoaders are built lazily, per module, and never shared between requests. */
import DataLoader from 'dataloader';
import type { RequestContext } from '../../src/domain/scope';
import { createLoaders } from '../../src/graphql/loaders';
import { MODULES, type Composition } from '../../src/modules';

// Services that are never called: building a DataLoader runs nothing.
const app = { of: () => ({}) } as unknown as Composition;
const ctx = {} as RequestContext;
const KEYS = MODULES.flatMap((m) => (m.loaders ? Object.keys(m.loaders(app.of(m), ctx)) : []));

test('every module key is there, built on first read, once per request', () => {
  expect(KEYS).toEqual(expect.arrayContaining(['payoutIntent', 'paymentIntent', 'merchant']));
  const loaders = createLoaders(app, ctx) as unknown as Record<string, unknown>;
  expect(Object.keys(loaders)).toEqual([]);
  const first = loaders.payoutIntent;
  expect(first).toBeInstanceOf(DataLoader);
  expect(loaders.payoutIntent).toBe(first);
  expect(Object.keys(loaders)).toEqual(['payoutIntent']);
  for (const key of KEYS) expect(loaders[key]).toBeInstanceOf(DataLoader);
  expect(Object.keys(loaders).sort()).toEqual([...KEYS].sort());
  const other = createLoaders(app, ctx) as unknown as Record<string, unknown>;
  expect(other.payoutIntent).not.toBe(first);
});
