/**
 * Every failure code the service itself sets (`failure_code` of payments, payouts, topups and
 * refunds): the simulated providers' tables, the test helpers' defaults, cancel and expiry. A
 * test helper's `fail` may name any other snake_case code; GraphQL's `FailureCode` shows that
 * as OTHER (`failureCode` keeps the string).
 */
export const FAILURE_CODES = {
  cancelled: 'Cancelled by the merchant (failureMessage holds the reason, if one was given).',
  expired: 'Nothing happened in time: the payer did not pay, or no transfer arrived.',
  payment_declined: "The payer's bank declined the payment.",
  payment_failed: 'The payment could not be completed.',
  insufficient_funds: "The payer's account has insufficient funds.",
  transfer_rejected: 'The bank transfer was rejected.',
  account_closed: 'The bank account has been closed.',
  no_account: 'The bank account does not exist.',
  account_frozen: 'The bank account has been frozen.',
  invalid_account_number: 'The account number is not valid for this bank.',
  incorrect_account_holder_name: 'The holder name does not match the bank account.',
  could_not_process: 'The bank could not process it.',
  refund_declined: "The payer's bank declined the refund.",
  expired_or_canceled: 'The payment method used for the payment can no longer receive refunds.',
} as const;
export type FailureCodeName = keyof typeof FAILURE_CODES;
