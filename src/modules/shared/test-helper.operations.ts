/**
 * The `succeed` and `fail` test helpers every settled resource offers: the same bodies
 * (empty; an optional failure_code and message) and the same guard, for one settle method.
 */
import type { Tx } from '../../db/tx';
import type { SettleOutcome } from '../../domain/connector';
import { defineOperation, Done, withBody } from '../../ops/operation';
import { EmptyBody, TestFailureBody, testFailure } from '../../domain/fields';
import type { RequestContext } from '../../domain/scope';
import type { TestFailure } from '../../domain/validation';

type ById = { id: string };

export function settleTestOperations<T>(
  resource: string,
  path: string,
  fallback: TestFailure,
  noun: string,
  settle: (em: Tx, ctx: RequestContext, id: string, outcome: SettleOutcome) => Promise<Done<T>>,
) {
  return {
    testSucceed: defineOperation({
      name: `${resource}.test.succeed`,
      label: `POST /v1/test_helpers/${path}/:id/succeed`,
      testOnly: true,
      ...withBody(EmptyBody, (_body, { id }: ById) => ({ id })),
      execute: (em, ctx, { id }) => settle(em, ctx, id, { status: 'succeeded' }),
    }),
    testFail: defineOperation({
      name: `${resource}.test.fail`,
      label: `POST /v1/test_helpers/${path}/:id/fail`,
      testOnly: true,
      ...withBody(TestFailureBody, (body, { id }: ById) => ({ id, outcome: testFailure(body, fallback, noun) })),
      execute: (em, ctx, { id, outcome }) => settle(em, ctx, id, outcome),
    }),
  };
}
