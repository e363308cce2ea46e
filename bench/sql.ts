/**
 * The SQL the gateway sends for each benchmark scenario, captured from MariaDB's general log
 * (SET GLOBAL general_log=1, log_output='TABLE'; one request of each scenario against a
 * gateway started on a bench database, rows filtered by the gateway's thread ids) and
 * hard-coded here for the floor server (bench/floor.ts), which must run exactly these
 * statements. TypeORM interpolates parameters client-side (mysql2 `query`, text protocol);
 * the text floor does the same with `?` placeholders, so the server receives the same text;
 * the prepared floor sends the same statements through mysql2's `execute`. When
 * the gateway's statements change (e.g. a new keyset predicate or column list), capture them
 * again and update this file: the floor's answers are checked byte for byte against the
 * gateway's before anything is measured, but the statements themselves are not.
 *
 * Last captured 2026-11-23 on MariaDB 10.11 (after: list pages with FORCE INDEX and the
 * sargable keyset predicate, compiled selects for the key lookup and get by id, the write
 * path in one transaction with the key claimed inside it, the event counter via
 * LAST_INSERT_ID, the balance moved by one conditional UPDATE, QR modules stored instead of
 * the SVG). The payout reads were captured again on 2026-11-28 (the batch and approval
 * columns); the write statements were not: since then a payout create also reads the
 * merchant's approval policy and writes the approval columns and the actor of its event and
 * audit entry, so the create floors do less than the gateway (their ratios flatter the floor).
 */

export const AUTH =
  'SELECT `k`.`id` AS `k_id`, `k`.`merchant_id` AS `k_merchant_id`, `k`.`environment` AS `k_environment`, `k`.`public_key` AS `k_public_key`, `k`.`secret_hash` AS `k_secret_hash`, `k`.`created_at` AS `k_created_at`, `k`.`revoked_at` AS `k_revoked_at` FROM `api_keys` `k` WHERE `k`.`public_key` = ? LIMIT 1';

/** A payout as reads select it (the sealed account and settle_at are not read). */
const PAYOUT_COLUMNS =
  '`r`.`id` AS `r_id`, `r`.`merchant_id` AS `r_merchant_id`, `r`.`environment` AS `r_environment`, `r`.`amount` AS `r_amount`, `r`.`currency` AS `r_currency`, `r`.`country` AS `r_country`, `r`.`status` AS `r_status`, `r`.`failure_code` AS `r_failure_code`, `r`.`failure_message` AS `r_failure_message`, `r`.`created_at` AS `r_created_at`, `r`.`updated_at` AS `r_updated_at`, `r`.`merchant_reference` AS `r_merchant_reference`, `r`.`recipient_type` AS `r_recipient_type`, `r`.`recipient_bank_code` AS `r_recipient_bank_code`, `r`.`recipient_holder_name` AS `r_recipient_holder_name`, `r`.`recipient_account_last4` AS `r_recipient_account_last4`, `r`.`payout_batch` AS `r_payout_batch`, `r`.`approvals_required` AS `r_approvals_required`, `r`.`approval_rule` AS `r_approval_rule`, `r`.`created_by` AS `r_created_by`, `r`.`approvals` AS `r_approvals`';

/** REST and GraphQL list, first page (limit 25 + 1; the list index forced, src/domain/listing.ts). */
export const PAYOUT_LIST_FIRST = `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` FORCE INDEX (\`ix_payout_intents_list\`) WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? ORDER BY \`r\`.\`created_at\` DESC, \`r_id\` DESC LIMIT 26`;

/** REST and GraphQL list after a cursor (the sargable keyset predicate): params merchant, env, t, t, id. */
export const PAYOUT_LIST_AFTER = `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` FORCE INDEX (\`ix_payout_intents_list\`) WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND \`r\`.\`created_at\` <= ? AND (\`r\`.\`created_at\` < ? OR \`r\`.\`id\` < ?) ORDER BY \`r\`.\`created_at\` DESC, \`r_id\` DESC LIMIT 26`;

/** REST GET /v1/payout_intents/:id. */
export const PAYOUT_GET = `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND \`r\`.\`id\` = ?`;

/** GraphQL payoutIntent(id) goes through a DataLoader: an IN list. */
export const PAYOUT_GET_GQL = `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND \`r\`.\`id\` IN (?)`;

/** GET /v1/payment_method_options, and a payment create: the merchant's disabled methods. */
export const METHOD_SETTINGS_DISABLED =
  'SELECT `s`.`id` AS `s_id`, `s`.`merchant_id` AS `s_merchant_id`, `s`.`environment` AS `s_environment`, `s`.`payment_method` AS `s_payment_method`, `s`.`enabled` AS `s_enabled`, `s`.`updated_at` AS `s_updated_at` FROM `payment_method_settings` `s` WHERE `s`.`merchant_id` = ? AND `s`.`environment` = ? AND `s`.`enabled` = 0';

// ---- writes: the rows the gateway writes for one create (the gateway: one transaction for a
// payout, two around the provider call for a direct payment; the floor: one) ----

/**
 * The gateway claims the key `in_flight` with this statement (no lock wait) and later UPDATEs it
 * to `done` with the sealed answer; the floor INSERTs it `done` at once: params id, api key,
 * key, fingerprint, response status, sealed answer, request id, locked_at, created_at, expires_at.
 */
export const INSERT_IDEMPOTENCY =
  "SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT INTO idempotency_keys (id, api_key_id, idem_key, fingerprint, state, response_status, response_body, request_id, locked_at, created_at, expires_at) VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?)";

export const INSERT_PAYOUT =
  'INSERT INTO `payout_intents`(`id`, `merchant_id`, `environment`, `amount`, `currency`, `country`, `status`, `failure_code`, `failure_message`, `created_at`, `updated_at`, `merchant_reference`, `recipient_type`, `recipient_bank_code`, `recipient_holder_name`, `recipient_account_last4`, `recipient_account_encrypted`, `settle_at`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, NULL)';

/**
 * The balance moved in place if no bucket would go negative (affectedRows 0: refused): params
 * the three deltas, updated_at, merchant, env, currency, the three deltas again.
 */
export const MOVE_BALANCE =
  'UPDATE balances SET available = available + CAST(? AS DECIMAL(38,0)), pending = pending + CAST(? AS DECIMAL(38,0)), reserved = reserved + CAST(? AS DECIMAL(38,0)), updated_at = ? ' +
  'WHERE merchant_id = ? AND environment = ? AND currency = ? ' +
  'AND available + CAST(? AS DECIMAL(38,0)) >= 0 AND pending + CAST(? AS DECIMAL(38,0)) >= 0 AND reserved + CAST(? AS DECIMAL(38,0)) >= 0';

export const INSERT_LEDGER_PAIR =
  'INSERT INTO `ledger_entries`(`id`, `merchant_id`, `environment`, `currency`, `bucket`, `amount`, `entry_type`, `source_type`, `source_id`, `created_at`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** The next event number in one statement: the OK packet's insert id (0 on a first insert: 1). */
export const NEXT_SEQ =
  'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE last_seq = LAST_INSERT_ID(last_seq + 1)';

/** The sequence number a NEXT_SEQ result hands back. */
export const seqOf = (result: { insertId?: number | string }): number => {
  const id = Number(result.insertId ?? 0);
  return id > 0 ? id : 1;
};

export const INSERT_EVENT =
  'INSERT INTO `events`(`id`, `merchant_id`, `environment`, `type`, `resource_id`, `data`, `request_id`, `created_at`, `seq`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

export const INSERT_AUDIT =
  'INSERT INTO `audit_log`(`id`, `merchant_id`, `environment`, `api_key_id`, `action`, `resource_type`, `resource_id`, `reason`, `request_id`, `status_code`, `created_at`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)';

/**
 * The gateway INSERTs the payment before the provider call (no reference, no next action,
 * provider_call 'start') and UPDATEs it after; the floor INSERTs the final row with the same
 * statement: params id, merchant, env, amount, currency, country, status, created_at,
 * updated_at, merchant_reference, checkout_mode, request_fingerprint, payment_method,
 * provider, payment_reference, payer_encrypted, next_action (QR modules, not the image),
 * checkout_token, expires_at, settle_at, provider_call.
 */
export const INSERT_PAYMENT =
  "INSERT INTO `payment_intents`(`id`, `merchant_id`, `environment`, `amount`, `currency`, `country`, `status`, `failure_code`, `failure_message`, `created_at`, `updated_at`, `merchant_reference`, `checkout_mode`, `request_fingerprint`, `payment_method`, `bank`, `provider`, `payment_reference`, `payer_encrypted`, `return_url`, `metadata`, `external_reference`, `device_fingerprint`, `next_action`, `processing_reason`, `receipt`, `planned_failure_code`, `planned_failure_message`, `checkout_token`, `expires_at`, `settle_at`, `provider_call`, `amount_refunded`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL, NULL, NULL, ?, NULL, NULL, NULL, NULL, ?, ?, ?, ?, '0')";

export const MERCHANT_BY_ID = 'SELECT `m`.`id` AS `m_id`, `m`.`name` AS `m_name`, `m`.`created_at` AS `m_created_at` FROM `merchants` `m` WHERE `m`.`id` = ?';
