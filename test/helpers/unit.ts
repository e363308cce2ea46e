/** Helpers for the unit specs (`*.spec.ts`): no server, no database. */
import { ApiError } from '../../src/domain/errors';

/** Runs `fn`, expects it to throw an ApiError validation_error naming `param`, and returns the error. */
export function expectValidation(fn: () => unknown, param: string): ApiError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  const e = thrown as ApiError;
  expect({ code: e.code, status: e.status, param: e.param }).toEqual({ code: 'validation_error', status: 400, param });
  expect(e.message.length).toBeGreaterThan(0);
  return e;
}
