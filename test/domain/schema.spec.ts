/** The schema check (src/domain/schema.ts): contract-shaped errors naming the offending field. */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../src/domain/errors';
import { Country, Currency, IgnoredEnvironment, Obj } from '../../src/domain/fields';
import { check } from '../../src/domain/schema';
import { expectValidation } from '../helpers/unit';

const Body = Obj({
  name: Type.String({ minLength: 1, maxLength: 5 }),
  currency: Currency,
  country: Type.Optional(Country),
  recipient: Obj({ bank_code: Type.String({ pattern: '^[A-Z]+$', 'x-expected': 'capital letters' }) }),
  environment: IgnoredEnvironment,
});
const valid = { name: 'abc', currency: 'thb', recipient: { bank_code: 'KB' } };

describe('bodies', () => {
  test.each([null, 'x', 1, true, [], [{ a: 1 }]])('%p is not a JSON object: param body', (value) => {
    expectValidation(() => check(Body, value, 'body'), 'body');
  });

  test("a valid body is returned as given (normalising is the operation's job)", () => {
    expect(check(Body, valid, 'body')).toEqual(valid);
    expect(check(Body, { ...valid, environment: 'live' }, 'body').environment).toBe('live');
  });

  test('missing fields are named, nested ones by their dot path', () => {
    expectValidation(() => check(Body, { currency: 'THB', recipient: { bank_code: 'KB' } }, 'body'), 'name');
    expectValidation(() => check(Body, { ...valid, recipient: {} }, 'body'), 'recipient.bank_code');
  });

  test('unknown fields are refused by path, at the root and nested', () => {
    expectValidation(() => check(Body, { ...valid, nmae: 'x' }, 'body'), 'nmae');
    expectValidation(() => check(Body, { ...valid, recipient: { bank_code: 'KB', extra: 1 } }, 'body'), 'recipient.extra');
  });

  test('lengths count code points', () => {
    expect(check(Body, { ...valid, name: '😀😀😀😀😀' }, 'body').name).toBe('😀😀😀😀😀');
    expectValidation(() => check(Body, { ...valid, name: '😀😀😀😀😀😀' }, 'body'), 'name');
    expectValidation(() => check(Body, { ...valid, name: '' }, 'body'), 'name');
  });

  test('wrong types, patterns and their expected text', () => {
    expectValidation(() => check(Body, { ...valid, name: 5 }, 'body'), 'name');
    expectValidation(() => check(Body, { ...valid, currency: 'TH' }, 'body'), 'currency');
    let thrown: unknown;
    try {
      check(Body, { ...valid, recipient: { bank_code: 'kb' } }, 'body');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).message).toBe('recipient.bank_code is malformed: expected capital letters.');
  });
});

describe('query strings', () => {
  const Query = Type.Object(
    { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), q: Type.Optional(Type.String()) },
    { additionalProperties: false },
  );

  test('integers are read from plain digits only', () => {
    expect(check(Query, { limit: '25' }, 'query')).toEqual({ limit: 25 });
    for (const limit of [' 5', '5 ', '1e2', '0x10', '', '-1', '101', '0']) expectValidation(() => check(Query, { limit }, 'query'), 'limit');
  });

  test('a repeated parameter and an unknown one are named', () => {
    expectValidation(() => check(Query, { q: ['a', 'b'] }, 'query'), 'q');
    expectValidation(() => check(Query, { other: 'x' }, 'query'), 'other');
  });

  test("the caller's object is not modified", () => {
    const raw = { limit: '7' };
    check(Query, raw, 'query');
    expect(raw).toEqual({ limit: '7' });
  });
});
