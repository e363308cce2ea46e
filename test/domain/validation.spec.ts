/** FieldReader and the shared body rules (src/domain/validation.ts). */
import {
  FieldReader, charLength, countryRule, currencyRule, isPlainObject, parseEmptyBody, parseTestFailure, readIntentBasics,
} from '../../src/domain/validation';
import { expectValidation } from '../helpers/unit';

describe('FieldReader.body', () => {
  test.each([null, undefined, 'x', 1, true, [], [{ a: 1 }]])('%p is not a JSON object: param body', (value) => {
    expectValidation(() => FieldReader.body(value), 'body');
  });

  test('an object is read', () => {
    expect(FieldReader.body({ a: 'x' }).string('a')).toBe('x');
  });
});

describe('strings', () => {
  test('required: missing or null is "is required" naming the field', () => {
    const e = expectValidation(() => FieldReader.body({}).string('name'), 'name');
    expect(e.message).toBe('name is required.');
    expectValidation(() => FieldReader.body({ name: null }).string('name'), 'name');
  });

  test('optional: missing or null is undefined', () => {
    expect(FieldReader.body({}).optionalString('name')).toBeUndefined();
    expect(FieldReader.body({ name: null }).optionalString('name')).toBeUndefined();
  });

  test.each([1, true, [], {}])('a non-string %p is refused', (value) => {
    const e = expectValidation(() => FieldReader.body({ name: value }).string('name'), 'name');
    expect(e.message).toBe('name must be a string.');
  });

  test('empty is refused by default; min and max count code points', () => {
    expect(expectValidation(() => FieldReader.body({ s: '' }).string('s'), 's').message).toBe('s must not be empty.');
    expect(FieldReader.body({ s: '' }).string('s', { min: 0 })).toBe('');
    expect(expectValidation(() => FieldReader.body({ s: 'ab' }).string('s', { min: 3 }), 's').message).toBe('s must be at least 3 characters.');
    expect(FieldReader.body({ s: '😀😀😀' }).string('s', { max: 3 })).toBe('😀😀😀');
    expect(expectValidation(() => FieldReader.body({ s: 'abcd' }).string('s', { max: 3 }), 's').message).toBe('s must be at most 3 characters.');
  });

  test('normalise runs before the pattern and its result is returned', () => {
    expect(FieldReader.body({ c: ' th ' }).string('c', countryRule)).toBe('TH');
    expect(FieldReader.body({ c: 'usdc' }).string('c', currencyRule)).toBe('USDC');
    const e = expectValidation(() => FieldReader.body({ c: 'tha' }).string('c', countryRule), 'c');
    expect(e.message).toBe('c is malformed: expected an ISO 3166-1 alpha-2 code such as "TH".');
    expect(expectValidation(() => FieldReader.body({ c: 'x' }).string('c', { pattern: /^\d+$/ }), 'c').message).toBe('c is malformed.');
  });
});

describe('nested objects', () => {
  test('errors name the full path', () => {
    const body = FieldReader.body({ recipient: { bank_code: 7, inner: { deep: '' } } });
    const recipient = body.object('recipient');
    expect(recipient.path('bank_code')).toBe('recipient.bank_code');
    expectValidation(() => recipient.string('bank_code'), 'recipient.bank_code');
    expectValidation(() => recipient.object('inner').string('deep'), 'recipient.inner.deep');
    expectValidation(() => recipient.string('holder_name'), 'recipient.holder_name');
  });

  test('a required object that is missing, or not an object, is refused', () => {
    expect(expectValidation(() => FieldReader.body({}).object('recipient'), 'recipient').message).toBe('recipient is required.');
    expect(expectValidation(() => FieldReader.body({ recipient: 'x' }).object('recipient'), 'recipient').message).toBe('recipient must be an object.');
    expectValidation(() => FieldReader.body({ recipient: [] }).object('recipient'), 'recipient');
    expect(FieldReader.body({}).optionalObject('recipient')).toBeUndefined();
    expect(FieldReader.body({ recipient: null }).optionalObject('recipient')).toBeUndefined();
  });
});

describe('end(): fields nobody read', () => {
  test('an unread field is refused naming its path', () => {
    const body = FieldReader.body({ amount: '1', amuont: '2' });
    body.raw('amount');
    expect(expectValidation(() => body.end(), 'amuont').message).toBe('Unknown field amuont.');
  });

  test('nested readers check their own fields with the full path', () => {
    const body = FieldReader.body({ recipient: { bank_code: 'KBANK', extra: 1 } });
    const r = body.object('recipient');
    r.string('bank_code');
    expectValidation(() => r.end(), 'recipient.extra');
    expect(() => body.end()).not.toThrow();
  });

  test('environment is ignored at the root only', () => {
    expect(() => FieldReader.body({ environment: 'live' }).end()).not.toThrow();
    const body = FieldReader.body({ o: { environment: 'live' } });
    const o = body.object('o');
    expectValidation(() => o.end(), 'o.environment');
  });

  test('reading a field marks it even when it is absent or null', () => {
    const body = FieldReader.body({ a: null });
    body.optionalString('a');
    expect(() => body.end()).not.toThrow();
    expect(body.has('a')).toBe(false);
  });
});

describe('optionalStringMap (metadata)', () => {
  test('a flat map of strings is returned', () => {
    expect(FieldReader.body({ m: { order: '42', note: '' } }).optionalStringMap('m')).toEqual({ order: '42', note: '' });
    expect(FieldReader.body({}).optionalStringMap('m')).toBeUndefined();
  });

  test('limits: number of keys, key length, value type and length', () => {
    const limits = { keys: 2, keyLength: 3, valueLength: 4 };
    expectValidation(() => FieldReader.body({ m: { a: '1', b: '2', c: '3' } }).optionalStringMap('m', limits), 'm');
    expectValidation(() => FieldReader.body({ m: { abcd: '1' } }).optionalStringMap('m', limits), 'm.abcd');
    expectValidation(() => FieldReader.body({ m: { '': '1' } }).optionalStringMap('m', limits), 'm.');
    expectValidation(() => FieldReader.body({ m: { a: 1 } }).optionalStringMap('m', limits), 'm.a');
    expectValidation(() => FieldReader.body({ m: { a: '12345' } }).optionalStringMap('m', limits), 'm.a');
    expect(FieldReader.body({ m: { abc: '😀😀😀😀' } }).optionalStringMap('m', limits)).toEqual({ abc: '😀😀😀😀' });
    expectValidation(() => FieldReader.body({ m: 'x' }).optionalStringMap('m'), 'm');
  });
});

describe('readIntentBasics', () => {
  const read = (body: Record<string, unknown>) => readIntentBasics(FieldReader.body(body));

  test('reads and normalises amount, currency, country and merchant_reference', () => {
    expect(read({ amount: '00100', currency: 'thb', country: 'th', merchant_reference: 'r-1' }))
      .toEqual({ amount: 100n, currency: 'THB', country: 'TH', merchantReference: 'r-1' });
  });

  test('validates in order: amount, currency, country, merchant_reference', () => {
    expectValidation(() => read({}), 'amount');
    expectValidation(() => read({ amount: null, currency: 'x' }), 'amount');
    expectValidation(() => read({ amount: '0', currency: 'x' }), 'amount');
    expectValidation(() => read({ amount: '1', currency: 'x', country: 'x' }), 'currency');
    expectValidation(() => read({ amount: '1', currency: 'THB', country: 'x' }), 'country');
    expectValidation(() => read({ amount: '1', currency: 'THB', country: 'TH' }), 'merchant_reference');
    expectValidation(() => read({ amount: '1', currency: 'THB', country: 'TH', merchant_reference: 'x'.repeat(257) }), 'merchant_reference');
  });
});

describe('parseEmptyBody and parseTestFailure', () => {
  test('an empty or absent body is fine; any field is refused', () => {
    expect(parseEmptyBody(undefined)).toEqual({});
    expect(parseEmptyBody({})).toEqual({});
    expect(parseEmptyBody({ environment: 'test' })).toEqual({});
    expectValidation(() => parseEmptyBody({ reason: 'x' }), 'reason');
    expectValidation(() => parseEmptyBody('x'), 'body');
    // Absent is not the same as a JSON null: a body that is present must be an object (CONTRACT.md "HTTP details").
    expectValidation(() => parseEmptyBody(null), 'body');
    expectValidation(() => parseEmptyBody([]), 'body');
  });

  const fallback = { failure_code: 'provider_declined', failure_message: 'Declined.' };

  test('defaults, a code alone, and a code with a message', () => {
    expect(parseTestFailure(undefined, fallback, 'Topup')).toEqual(fallback);
    expect(parseTestFailure({ failure_code: 'card_lost' }, fallback, 'Topup')).toEqual({ failure_code: 'card_lost', failure_message: 'Topup failed: card_lost.' });
    expect(parseTestFailure({ failure_code: 'x', failure_message: 'Why.' }, fallback, 'Topup')).toEqual({ failure_code: 'x', failure_message: 'Why.' });
    expect(parseTestFailure({ failure_message: 'Only message.' }, fallback, 'Topup')).toEqual({ failure_code: 'provider_declined', failure_message: 'Only message.' });
  });

  test('the code is snake_case of at most 64 characters; unknown fields are refused', () => {
    for (const code of ['Card_Lost', '1abc', 'card-lost', '_x', 'x'.repeat(65)]) {
      expectValidation(() => parseTestFailure({ failure_code: code }, fallback, 'Topup'), 'failure_code');
    }
    expect(parseTestFailure({ failure_code: 'x'.repeat(64) }, fallback, 'Topup').failure_code).toHaveLength(64);
    expectValidation(() => parseTestFailure({ failure_message: 'x'.repeat(1025) }, fallback, 'Topup'), 'failure_message');
    expectValidation(() => parseTestFailure({ code: 'x' }, fallback, 'Topup'), 'code');
  });
});

test('charLength counts code points; isPlainObject excludes arrays and null', () => {
  expect(charLength('abc')).toBe(3);
  expect(charLength('😀')).toBe(1);
  expect('😀'.length).toBe(2);
  expect(charLength('สมชาย')).toBe(5);
  expect(isPlainObject({})).toBe(true);
  expect(isPlainObject([])).toBe(false);
  expect(isPlainObject(null)).toBe(false);
});
