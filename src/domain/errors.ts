/**
 * The one error type of the domain. Every failure the API can report is an ApiError
 * with the contract's code and HTTP status; REST renders it as
 * `{ "error": { code, message, param? } }`, GraphQL as an error whose
 * `extensions.code` is the same code. `param` belongs to validation errors only
 * (docs/contract.md "Errors": the body is `{ code, message }`, plus `param` for validation
 * errors); other codes drop it, their message names what was wrong.
 */
/**
 * Every code the API reports, with its HTTP status and what it means: the one list that REST's
 * error bodies, GraphQL's `extensions.code` and the schema's `ErrorCode` enum (each value this
 * code upper-cased, described as here) share. A new code is added here, with its description.
 */
export const ERROR_CODES = {
  validation_error: { status: 400, description: 'A field is missing, malformed or out of range; `param` names its path.' },
  invalid_json: { status: 400, description: 'The request body is not JSON.' },
  idempotency_key_required: { status: 400, description: 'The operation requires an Idempotency-Key header (topup creates).' },
  unauthorized: { status: 401, description: 'Credentials missing, malformed, unknown, wrong or revoked; the message never says which part.' },
  not_found: { status: 404, description: 'The record is unknown, belongs to another merchant, or is in the other environment (also unknown routes).' },
  idempotency_conflict: {
    status: 409,
    description: 'The Idempotency-Key was used with another request, or a payment merchantReference was reused with a changed fingerprint.',
  },
  duplicate_merchant_reference: { status: 409, description: 'A topup merchantReference was used before.' },
  payload_too_large: { status: 413, description: 'The request body is over 64 KiB.' },
  unsupported_media_type: { status: 415, description: 'A POST without Content-Type: application/json.' },
  approval_required: { status: 422, description: 'The payout cannot be cancelled in its current status; the message names it.' },
  invalid_state: { status: 422, description: 'The record is in a state that does not allow this operation.' },
  insufficient_balance: { status: 422, description: 'The payout is above the available balance of its currency.' },
  refund_exceeds_payment: { status: 422, description: 'The refund is above what remains refundable of the payment.' },
  payment_method_unavailable: { status: 422, description: 'The named payment method (or bank) is not eligible, or nothing is eligible.' },
  no_provider_available: { status: 422, description: 'No provider serves this request in this environment (live mode without a provider).' },
  endpoint_limit_reached: { status: 422, description: 'The merchant has the maximum number of enabled webhook endpoints.' },
  query_too_complex: {
    status: 400,
    description: 'The GraphQL operation costs more than the limit (extensions.cost gives both); ask for fewer items or split it.',
  },
  rate_limited: { status: 429, description: 'Over the per-key request rate; retry after the Retry-After header.' },
  internal_error: { status: 500, description: 'An unexpected failure; details only in the server log, under the Request-Id.' },
  // HTTP-level refusals (docs/contract.md "HTTP details"; docs/decisions/0016-errors-before-routing.md).
  bad_request: { status: 400, description: 'The HTTP request itself is malformed.' },
  method_not_allowed: { status: 405, description: 'The route does not serve this HTTP method (a GraphQL mutation over GET).' },
  request_timeout: { status: 408, description: 'The request was not received in time.' },
  expectation_failed: { status: 417, description: 'An Expect header the service does not meet.' },
  request_header_fields_too_large: { status: 431, description: 'The request headers are too large.' },
  provider_unavailable: {
    status: 503,
    description:
      'Every payment provider that could take the request timed out or failed before accepting it; nothing was charged or reserved. Retry after the Retry-After header.',
  },
  invalid_signature: { status: 400, description: 'A provider webhook whose signature (or fetch-back) does not verify; nothing changed.' },
  service_unavailable: { status: 503, description: 'The database is unreachable for now; retry the whole request after the Retry-After header.' },
  // Team access (docs/contract.md "Additions (third round)", Team access).
  permission_denied: { status: 403, description: 'The key or member lacks the permission the operation needs; the message names it.' },
  approval_requires_member: { status: 403, description: 'The approval policy requires approvals by members; an API key cannot approve.' },
  approval_by_creator: { status: 403, description: 'The creator of a payout cannot approve it, nor can a key the creator made.' },
  approval_already_recorded: { status: 409, description: "This member's approval of the payout is already recorded." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const STATUS_OF = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status])) as Record<ErrorCode, number>;

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
