/**
 * Wire records (the snake_case objects REST answers) also answer the camelCase names GraphQL
 * gives some of their fields: `merchantReference` reads `merchant_reference`. The names are
 * getters on one shared prototype, so a GraphQL field declared `simple: true` under such a name
 * is a plain property read: no resolver call, resolve info and response path per field and row,
 * which made a 25-row page of payouts cost 250 resolver calls and about 125 KB of garbage
 * (docs/performance.md). `JSON.stringify` writes own properties only, so REST's bytes, stored
 * answers and event payloads are unchanged.
 *
 * A record that comes back from JSON (a replayed answer, an event's `data.object`) is a plain
 * object: `reviveWireRecords` gives it, and every object in it, the prototype again before
 * GraphQL reads it. test/graphql/wire-names.spec.ts checks that every GraphQL field read under
 * another name without a resolver is named here.
 */

/** GraphQL name → wire property, for the fields GraphQL reads without a resolver. */
export const WIRE_NAMES = {
  merchantReference: 'merchant_reference',
  failureCode: 'failure_code',
  failureMessage: 'failure_message',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  payoutBatch: 'payout_batch',
  approvalsRequired: 'approvals_required',
  accountLast4: 'account_last4',
  bankCode: 'bank_code',
  holderName: 'holder_name',
} as const;

const WIRE_RECORD = Object.create(
  Object.prototype,
  Object.fromEntries(
    Object.entries(WIRE_NAMES).map(([name, property]): [string, PropertyDescriptor] => [
      name,
      {
        get(this: Record<string, unknown>): unknown {
          return this[property];
        },
      },
    ]),
  ),
) as object;

/**
 * `fields`, a fresh object literal (every caller writes one), made a wire record: its own
 * properties, and the GraphQL names through the prototype. Given the prototype, not copied:
 * a copy made each of a page's records twice.
 */
export function wireRecord<T extends object>(fields: T): T {
  return Object.setPrototypeOf(fields, WIRE_RECORD) as T;
}

/** Gives every plain object in `value` (itself included) the wire record prototype; returns `value`. */
export function reviveWireRecords<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (const item of value) reviveWireRecords(item);
    return value;
  }
  if (Object.getPrototypeOf(value) === Object.prototype) Object.setPrototypeOf(value, WIRE_RECORD);
  for (const item of Object.values(value)) reviveWireRecords(item);
  return value;
}
