import 'reflect-metadata';
import { toConnection } from '../../src/graphql/connection';
import type { Page } from '../../src/domain/listing';

/** A page of three items whose cursors count how often one is signed. */
function page(hasMore: boolean): { page: Page<string>; signed: number[] } {
  const signed: number[] = [];
  const cursorAt = (i: number) => {
    signed.push(i);
    return `cursor-${i}`;
  };
  return { page: { data: ['a', 'b', 'c'], hasMore, nextCursor: hasMore ? 'cursor-2' : null, cursorAt }, signed };
}

test("a connection's cursors are signed only when selected: nodes alone sign none", () => {
  const more = page(true);
  const connection = toConnection(more.page);
  expect(connection.nodes).toEqual(['a', 'b', 'c']);
  expect(more.signed).toEqual([]);
  expect(connection.edges.map((e) => e.node)).toEqual(['a', 'b', 'c']);
  expect(more.signed).toEqual([]);
  expect(connection.edges[1].cursor).toBe('cursor-1');
  expect(more.signed).toEqual([1]);
});

test("a connection's endCursor is its last item's cursor, whether or not another page follows", () => {
  for (const hasMore of [true, false]) {
    const p = page(hasMore);
    expect(toConnection(p.page).pageInfo.endCursor).toBe('cursor-2');
    expect(p.signed).toEqual([2]);
  }
  expect(toConnection({ data: [], hasMore: false, nextCursor: null, cursorAt: (i) => `cursor-${i}` }).pageInfo.endCursor).toBeNull();
});
