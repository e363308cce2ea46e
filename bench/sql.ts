/**
 * The SQL the gateway sends for each benchmark scenario, captured once from MariaDB's general
 * log (SET GLOBAL general_log=1, log_output='TABLE') and hard-coded here for the floor server
 * (bench/floor.ts), which must run exactly these statements. TypeORM interpolates parameters
 * client-side (mysql2 `query`, text protocol); the floor does the same with `?` placeholders,
 * so the server receives the same text. When the gateway's statements change (e.g. a new
 * keyset predicate or column list), capture them again and update this file: the floor's
 * answers are checked byte for byte against the gateway's before anything is measured, but
 * the statements themselves are not.
 */

export const AUTH =
  'SELECT `ApiKey`.`id` AS `ApiKey_id`, `ApiKey`.`merchant_id` AS `ApiKey_merchant_id`, `ApiKey`.`environment` AS `ApiKey_environment`, `ApiKey`.`public_key` AS `ApiKey_public_key`, `ApiKey`.`secret_hash` AS `ApiKey_secret_hash`, `ApiKey`.`created_at` AS `ApiKey_created_at`, `ApiKey`.`revoked_at` AS `ApiKey_revoked_at` FROM `api_keys` `ApiKey` WHERE ((`ApiKey`.`public_key` = ?)) LIMIT 1';

const PAYOUT_COLUMNS =
  '`r`.`id` AS `r_id`, `r`.`merchant_id` AS `r_merchant_id`, `r`.`environment` AS `r_environment`, `r`.`amount` AS `r_amount`, `r`.`currency` AS `r_currency`, `r`.`country` AS `r_country`, `r`.`status` AS `r_status`, `r`.`failure_code` AS `r_failure_code`, `r`.`failure_message` AS `r_failure_message`, `r`.`created_at` AS `r_created_at`, `r`.`updated_at` AS `r_updated_at`, `r`.`merchant_reference` AS `r_merchant_reference`, `r`.`recipient_type` AS `r_recipient_type`, `r`.`recipient_bank_code` AS `r_recipient_bank_code`, `r`.`recipient_holder_name` AS `r_recipient_holder_name`, `r`.`recipient_account_last4` AS `r_recipient_account_last4`, `r`.`recipient_account_encrypted` AS `r_recipient_account_encrypted`, `r`.`settle_at` AS `r_settle_at`';

/** REST and GraphQL list, first page (limit 25 + 1). */
export const PAYOUT_LIST_FIRST =
  `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? ORDER BY \`r\`.\`created_at\` DESC, \`r\`.\`id\` DESC LIMIT 26`;

/** REST and GraphQL list after a cursor: params merchant, env, t, t, id. */
export const PAYOUT_LIST_AFTER =
  `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND (\`r\`.\`created_at\` < ? OR (\`r\`.\`created_at\` = ? AND \`r\`.\`id\` < ?)) ORDER BY \`r\`.\`created_at\` DESC, \`r\`.\`id\` DESC LIMIT 26`;

/** REST GET /v1/payout_intents/:id. */
export const PAYOUT_GET =
  `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND \`r\`.\`id\` = ?`;

/** GraphQL payoutIntent(id) goes through a DataLoader: an IN list. */
export const PAYOUT_GET_GQL =
  `SELECT ${PAYOUT_COLUMNS} FROM \`payout_intents\` \`r\` WHERE \`r\`.\`merchant_id\` = ? AND \`r\`.\`environment\` = ? AND \`r\`.\`id\` IN (?)`;

/** GET /v1/payment_method_options: the merchant's disabled methods. */
export const METHOD_SETTINGS_DISABLED =
  'SELECT `s`.`id` AS `s_id`, `s`.`merchant_id` AS `s_merchant_id`, `s`.`environment` AS `s_environment`, `s`.`payment_method` AS `s_payment_method`, `s`.`enabled` AS `s_enabled`, `s`.`updated_at` AS `s_updated_at` FROM `payment_method_settings` `s` WHERE `s`.`merchant_id` = ? AND `s`.`environment` = ? AND `s`.`enabled` = 0';

// ---- writes: the rows the gateway writes for one create (the gateway: 2-3 transactions; the floor: one) ----

export const INSERT_IDEMPOTENCY =
  'INSERT INTO `idempotency_keys`(`id`, `api_key_id`, `idem_key`, `fingerprint`, `state`, `response_status`, `response_body`, `request_id`, `locked_at`, `created_at`, `expires_at`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

export const INSERT_PAYOUT =
  'INSERT INTO `payout_intents`(`id`, `merchant_id`, `environment`, `amount`, `currency`, `country`, `status`, `failure_code`, `failure_message`, `created_at`, `updated_at`, `merchant_reference`, `recipient_type`, `recipient_bank_code`, `recipient_holder_name`, `recipient_account_last4`, `recipient_account_encrypted`, `settle_at`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, ?, ?, NULL)';

export const BALANCE_FOR_UPDATE =
  'SELECT `b`.`id` AS `b_id`, `b`.`merchant_id` AS `b_merchant_id`, `b`.`environment` AS `b_environment`, `b`.`currency` AS `b_currency`, `b`.`available` AS `b_available`, `b`.`pending` AS `b_pending`, `b`.`reserved` AS `b_reserved`, `b`.`updated_at` AS `b_updated_at` FROM `balances` `b` WHERE `b`.`merchant_id` = ? AND `b`.`environment` = ? AND `b`.`currency` = ? FOR UPDATE';

export const UPDATE_BALANCE =
  'UPDATE `balances` SET `available` = ?, `pending` = ?, `reserved` = ?, `updated_at` = ? WHERE `id` = ?';

export const INSERT_LEDGER_PAIR =
  'INSERT INTO `ledger_entries`(`id`, `merchant_id`, `environment`, `currency`, `bucket`, `amount`, `entry_type`, `source_type`, `source_id`, `created_at`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

export const NEXT_SEQ_UPSERT =
  'INSERT INTO event_sequences (merchant_id, environment, last_seq) VALUES (?, ?, 1) ON DUPLICATE KEY UPDATE last_seq = last_seq + 1';

export const NEXT_SEQ_READ =
  'SELECT last_seq FROM event_sequences WHERE merchant_id = ? AND environment = ? FOR UPDATE';

export const INSERT_EVENT =
  'INSERT INTO `events`(`id`, `merchant_id`, `environment`, `type`, `resource_id`, `data`, `request_id`, `created_at`, `seq`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';

export const INSERT_AUDIT =
  'INSERT INTO `audit_log`(`id`, `merchant_id`, `environment`, `api_key_id`, `action`, `resource_type`, `resource_id`, `reason`, `request_id`, `status_code`, `created_at`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)';

export const INSERT_PAYMENT =
  'INSERT INTO `payment_intents`(`id`, `merchant_id`, `environment`, `amount`, `currency`, `country`, `status`, `failure_code`, `failure_message`, `created_at`, `updated_at`, `merchant_reference`, `checkout_mode`, `request_fingerprint`, `payment_method`, `bank`, `provider`, `payment_reference`, `payer_encrypted`, `return_url`, `metadata`, `external_reference`, `device_fingerprint`, `next_action`, `processing_reason`, `receipt`, `planned_failure_code`, `planned_failure_message`, `checkout_token`, `expires_at`, `settle_at`, `provider_call`, `amount_refunded`) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL, NULL, NULL, NULL, ?, NULL, NULL, NULL, NULL, ?, ?, NULL, NULL, \'0\')';

export const MERCHANT_BY_ID =
  'SELECT `m`.`id` AS `m_id`, `m`.`name` AS `m_name`, `m`.`created_at` AS `m_created_at` FROM `merchants` `m` WHERE `m`.`id` = ?';
