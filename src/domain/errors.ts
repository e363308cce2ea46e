/**
 * The one error type of the domain. Every failure the API can report is an ApiError
 * with the contract's code and HTTP status; REST renders it as
 * `{ "error": { code, message, param? } }`, GraphQL as an error whose
 * `extensions.code` is the same code. `param` belongs to validation errors only
 * (docs/contract.md "Errors": the body is `{ code, message }`, plus `param` for validation
 * errors); other codes drop it, their message names what was wrong.
 */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_json'
  | 'idempotency_key_required'
  | 'unauthorized'
  | 'not_found'
  | 'idempotency_conflict'
  | 'duplicate_merchant_reference'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'approval_required'
  | 'invalid_state'
  | 'insufficient_balance'
  | 'refund_exceeds_payment'
  | 'payment_method_unavailable'
  | 'no_provider_available'
  | 'endpoint_limit_reached'
  | 'rate_limited'
  | 'internal_error'
  // HTTP-level refusals (docs/contract.md "HTTP details"; docs/decisions/0016-errors-before-routing.md).
  | 'bad_request'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'expectation_failed'
  | 'request_header_fields_too_large'
  | 'service_unavailable'
  // Team access (docs/contract.md "Additions (third round)", Team access).
  | 'permission_denied'
  | 'approval_requires_member'
  | 'approval_by_creator'
  | 'approval_already_recorded';

export const STATUS_OF: Record<ErrorCode, number> = {
  validation_error: 400,
  invalid_json: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  not_found: 404,
  idempotency_conflict: 409,
  duplicate_merchant_reference: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  approval_required: 422,
  invalid_state: 422,
  insufficient_balance: 422,
  refund_exceeds_payment: 422,
  payment_method_unavailable: 422,
  no_provider_available: 422,
  endpoint_limit_reached: 422,
  rate_limited: 429,
  internal_error: 500,
  bad_request: 400,
  method_not_allowed: 405,
  request_timeout: 408,
  expectation_failed: 417,
  request_header_fields_too_large: 431,
  service_unavailable: 503,
  permission_denied: 403,
  approval_requires_member: 403,
  approval_by_creator: 403,
  approval_already_recorded: 409,
};

export interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string };
}

export class ApiError extends Error {
  readonly status: number;

  readonly param?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    param?: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS_OF[code];
    if (code === 'validation_error') this.param = param;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.param ? { param: this.param } : {}) } };
  }

  static validation(param: string, message: string): ApiError {
    return new ApiError('validation_error', message, param);
  }

  static notFound(resource: string): ApiError {
    return new ApiError('not_found', `No such ${resource}.`);
  }

  static internal(): ApiError {
    return new ApiError('internal_error', 'An internal error occurred. Quote the Request-Id header when reporting it.');
  }
}
