/** firstRepeatedKey: the path of a key that one object of a JSON text holds twice. */
import { firstRepeatedKey } from '../../src/http/json-body';

test.each([
  ['{"amount":"100","x":1,"amount":"999"}', 'amount'],
  ['{"a":{"b":1,"b":2}}', 'a.b'],
  ['{"l":[{"k":1,"k":2}]}', 'l.0.k'],
  ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
  ['{"\\u0061":1,"a":2}', 'a'],
  ['{"query":"q","variables":{"input":{"amount":"1","amount":"2"}}}', 'variables.input.amount'],
])('%s repeats %s', (text, path) => {
  expect(firstRepeatedKey(text)).toBe(path);
});

test.each(['{"a":1,"b":2}', '[{"a":1},{"a":2}]', '{"s":"{\\"a\\":1,\\"a\\":2}"}', '{"x":{"a":1},"y":{"a":1}}', '{ "a" : [ 1 , 2 ] , "b" : { } }', '[]'])(
  '%s repeats nothing',
  (text) => {
    expect(firstRepeatedKey(text)).toBeUndefined();
  },
);
