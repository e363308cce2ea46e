/**
 * The few validation constants that are not a schema of their own. Request validation is
 * schema-driven: src/domain/schema.ts (the check) and src/domain/fields.ts (the shared
 * pieces); each module's `x.schemas.ts` holds its own.
 */

/** List filters match stored values exactly: already upper-case (docs/contract.md listing rules). */
export const COUNTRY = /^[A-Z]{2}$/;
export const CURRENCY = /^[A-Z]{3,6}$/;

/** What a test helper's `fail` reports when the body names no failure. */
export interface TestFailure {
  failure_code: string;
  failure_message: string;
}

export const CANCEL_REASON_MAX = 512;

/** A refund's reason: the cancel reason's limit, counted the same way (code points). */
export const REFUND_REASON_MAX = CANCEL_REASON_MAX;
