/**
 * The one assertion for an error answer of the REST surface: the contract's shape, whole.
 * Status and code as expected; `param` exactly as given (absent when not given); a non-empty
 * message; no other keys in the body or the error object; JSON; a server-assigned Request-Id.
 */
import type { Res } from './client';

export const REQUEST_ID = /^req_[A-Za-z0-9_-]{16}$/;

export interface ExpectedError {
  /** The `param` the error must name; omitted: the error must carry none. */
  param?: string;
  /** Prefixed to the failure (property tests name the step that failed). */
  context?: string;
}

export function expectError(res: Res, status: number, code: string, expected: string | ExpectedError = {}): void {
  const { param, context } = typeof expected === 'string' ? { param: expected, context: undefined } : expected;
  try {
    expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status, code, param });
    expect(typeof res.body.error.message).toBe('string');
    expect(res.body.error.message.length).toBeGreaterThan(0);
    expect(Object.keys(res.body.error).sort()).toEqual(param === undefined ? ['code', 'message'] : ['code', 'message', 'param']);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('request-id')).toMatch(REQUEST_ID);
  } catch (err) {
    if (context && err instanceof Error) err.message = `${context}: ${err.message}`;
    throw err;
  }
}
