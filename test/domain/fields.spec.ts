/** The shared body schemas, checked as the pipeline checks a body (src/domain/schema.ts). */
import type { TSchema } from '@sinclair/typebox';
import { bodyMayBeAbsent, CancelBody, cancelReason, EmptyBody, TestFailureBody, testFailure } from '../../src/domain/fields';
import { check } from '../../src/domain/schema';
import { expectValidation } from '../helpers/unit';

/** What the pipeline does before an operation's parse. */
const body = <S extends TSchema>(schema: S, raw: unknown) => check(schema, raw === undefined && bodyMayBeAbsent(schema) ? {} : raw, 'body');

describe('empty bodies (approve, succeed, expire)', () => {
  test('absent or empty is fine; environment is ignored; any other field is refused', () => {
    expect(body(EmptyBody, undefined)).toEqual({});
    expect(body(EmptyBody, {})).toEqual({});
    expect(body(EmptyBody, { environment: 'test' })).toEqual({ environment: 'test' });
    expectValidation(() => body(EmptyBody, { reason: 'x' }), 'reason');
  });

  test('a body that is present must be a JSON object: null, arrays and scalars name `body`', () => {
    for (const raw of [null, [], ['x'], 'x', 0, true]) expectValidation(() => body(EmptyBody, raw), 'body');
  });
});

describe('cancel reason', () => {
  test('optional, at most 512 code points, blank means none', () => {
    expect(cancelReason(body(CancelBody, undefined))).toEqual({ reason: null });
    expect(cancelReason(body(CancelBody, { reason: '  ' }))).toEqual({ reason: null });
    expect(cancelReason(body(CancelBody, { reason: '😀'.repeat(512) })).reason).toHaveLength(1024);
    expectValidation(() => body(CancelBody, { reason: '😀'.repeat(513) }), 'reason');
    expectValidation(() => body(CancelBody, { reason: 5 }), 'reason');
  });
});

describe('test helper failures', () => {
  const fallback = { failure_code: 'provider_declined', failure_message: 'Declined.' };
  const fail = (raw: unknown) => testFailure(body(TestFailureBody, raw), fallback, 'Topup');

  test('defaults, a code alone, and a code with a message', () => {
    expect(fail(undefined)).toEqual({ status: 'failed', failureCode: 'provider_declined', failureMessage: 'Declined.' });
    expect(fail({ failure_code: 'card_lost' })).toEqual({
      status: 'failed',
      failureCode: 'card_lost',
      failureMessage: 'Topup failed: card_lost.',
    });
    expect(fail({ failure_code: 'x', failure_message: 'Why.' })).toEqual({ status: 'failed', failureCode: 'x', failureMessage: 'Why.' });
    expect(fail({ failure_message: 'Only message.' })).toEqual({
      status: 'failed',
      failureCode: 'provider_declined',
      failureMessage: 'Only message.',
    });
  });

  test('the code is snake_case of at most 64 characters; unknown fields are refused', () => {
    for (const code of ['Card_Lost', '1abc', 'card-lost', '_x', 'x'.repeat(65), '']) {
      expectValidation(() => fail({ failure_code: code }), 'failure_code');
    }
    expect(fail({ failure_code: 'x'.repeat(64) }).failureCode).toHaveLength(64);
    expectValidation(() => fail({ failure_message: 'x'.repeat(1025) }), 'failure_message');
    expectValidation(() => fail({ code: 'x' }), 'code');
    expectValidation(() => fail(null), 'body');
  });
});
