import { BoundedMemo } from '../../src/domain/bounded-memo';

test('a bounded memo computes once per key, keeps undefined answers, and starts afresh when full', () => {
  const memo = new BoundedMemo<string | undefined>(2);
  let calls = 0;
  const compute = (v: string | undefined) => () => {
    calls++;
    return v;
  };
  expect(memo.get('a', compute('A'))).toBe('A');
  expect(memo.get('a', compute('other'))).toBe('A');
  expect(memo.get('u', compute(undefined))).toBeUndefined();
  expect(memo.get('u', compute('other'))).toBeUndefined();
  expect(calls).toBe(2);
  // Full (2 keys): a third key clears the memo, so 'a' is computed again.
  expect(memo.get('b', compute('B'))).toBe('B');
  expect(memo.get('a', compute('A2'))).toBe('A2');
  expect(calls).toBe(4);
});
