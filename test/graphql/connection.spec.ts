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
  const data = ['a', 'b', 'c'];
  return { page: { data, hasMore, nextCursor: hasMore ? cursorAt(data.length - 1) : null, cursorAt }, signed };
}

test("a connection's endCursor is the page's nextCursor when another page follows: the cursor is signed once per page", () => {
  const more = page(true);
  const connection = toConnection(more.page);
  expect(connection.pageInfo.endCursor).toBe('cursor-2');
  expect(more.signed).toEqual([2]);

  const last = page(false);
  expect(toConnection(last.page).pageInfo.endCursor).toBe('cursor-2');
  expect(last.signed).toEqual([2]);
  expect(toConnection({ data: [], hasMore: false, nextCursor: null, cursorAt: (i) => `cursor-${i}` }).pageInfo.endCursor).toBeNull();
});
