/**
 * The error codes in the schema: the `ErrorCode` enum lists every code `extensions.code` can
 * carry (docs/contract.md "Errors"), each described, from the one list in domain/errors.ts.
 * A value's name is its code upper-cased (VALIDATION_ERROR); `extensions.code` carries the
 * contract's lower-case code (validation_error).
 */
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ERROR_CODES, type ErrorCode } from '../domain/errors';

export const ErrorCodeEnum = Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code.toUpperCase(), code])) as Record<string, ErrorCode>;

registerEnumType(ErrorCodeEnum, {
  name: 'ErrorCode',
  description:
    'Every code an error can carry in `extensions.code` (REST: `error.code`): the value name upper-cased, the wire code lower-case (VALIDATION_ERROR is "validation_error"). The contract fixes both: enum values are UPPER_CASE, and `extensions.code` is the same code string as REST\'s `error.code`, so the two cases stay (docs/decisions/0172).',
  valuesConfig: Object.fromEntries(
    Object.entries(ERROR_CODES).map(([code, { status, description }]) => [code.toUpperCase(), { description: `HTTP ${status} on REST. ${description}` }]),
  ),
});

@ObjectType('ErrorCodeInfo', { description: 'One error code: what it means and the HTTP status REST answers it with.' })
export class ErrorCodeInfoType {
  @Field(() => ErrorCodeEnum, { description: 'The code, as `extensions.code` carries it (lower-case on the wire).', simple: true })
  code: ErrorCode;

  @Field(() => Int, { description: 'The HTTP status of a REST answer with this code.', simple: true })
  status: number;

  @Field(() => String, { description: 'When the code is reported.', simple: true })
  description: string;
}

export function errorCodeInfos(): ErrorCodeInfoType[] {
  return Object.entries(ERROR_CODES).map(([code, { status, description }]) => ({ code: code as ErrorCode, status, description }));
}
