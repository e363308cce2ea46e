/**
 * Environment variables -> one typed, validated configuration object.
 * Names and meanings follow CONTRACT.md "Configuration"; additions are documented in README.
 */
import path from 'node:path';

export type DatabaseConfig =
  | { kind: 'mysql'; url: string }
  | { kind: 'sqlite'; file: string };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  redisUrl?: string;
  nodeEnv: string;
  logLevel: string;
  webhookAllowLoopback: boolean;
  /** Delay before simulated providers settle on their own; 0 = never. */
  simulatedSettleMs: number;
  /** How often the in-process scheduler looks for due work (settlements, expiries). */
  schedulerIntervalMs: number;
  /** Base64 of 32 bytes used to encrypt stored bank account numbers (AES-256-GCM). */
  dataEncryptionKey?: string;
  /** Earlier data keys, still used to open values sealed before a rotation (DATA_ENCRYPTION_KEYS_PREVIOUS, comma list of base64). */
  dataEncryptionKeysPrevious: string[];
  /** Directory for the embedded database and the generated development key. */
  dataDir: string;
  /** Public base URL used in links (hosted checkout). Defaults to http://localhost:PORT. */
  publicBaseUrl?: string;
  /** How long an in-flight idempotency lock is honoured before a crashed request's key may be taken over. */
  idempotencyLockTimeoutMs: number;
  /** Requests per second per API key (plus as many again per 10 s as a burst), shared through Redis when set; 0 disables the limit. */
  rateLimitPerSecond: number;
  /** Create the demo merchant on first start of an empty embedded database. */
  seedDemo: boolean;
  /** Webhook retry delays after each failed attempt (WEBHOOK_RETRY_SCHEDULE_MS, comma list of ms). */
  webhookRetryScheduleMs: number[];
  /** Per-attempt webhook request timeout (WEBHOOK_TIMEOUT_MS). */
  webhookTimeoutMs: number;
  /** How long past the timeout a claimed attempt stays leased; after that another process repeats it (WEBHOOK_LEASE_MARGIN_MS). */
  webhookLeaseMarginMs: number;
  /** Run webhook delivery in this process (WEBHOOK_DELIVERY=0 turns it off). */
  webhookDelivery: boolean;
  /** How often subscriptions look for new events in the database (EVENTS_POLL_MS). */
  eventsPollMs: number;
  /** How often each process asks the database whether the keys of its open graphql-ws sockets were revoked (REVOCATION_POLL_MS). */
  revocationPollMs: number;
}

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (CONTRACT.md "Events and webhooks"). */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

function msList(name: string, value: string | undefined, fallback: number[]): number[] {
  if (value === undefined || value.trim() === '') return fallback;
  const parts = value.split(',').map((v) => v.trim());
  if (parts.some((v) => !/^\d+$/.test(v))) throw new Error(`${name} must be a comma-separated list of whole milliseconds, got "${value}"`);
  return parts.map(Number);
}

function int(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new Error(`${name} must be a whole number >= ${min}, got "${value}"`);
  }
  return Number(value);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const url = env.DATABASE_URL?.trim();
  let database: DatabaseConfig;
  if (url) {
    if (!/^mysql:\/\//.test(url) && !/^mariadb:\/\//.test(url)) {
      throw new Error('DATABASE_URL must start with mysql:// (unset it to use the embedded SQLite file)');
    }
    database = { kind: 'mysql', url: url.replace(/^mariadb:/, 'mysql:') };
  } else {
    database = { kind: 'sqlite', file: path.resolve(env.SQLITE_FILE ?? path.join(dataDir, 'payments.sqlite')) };
  }
  return {
    port: int('PORT', env.PORT, 4000),
    host: env.HOST ?? '0.0.0.0',
    database,
    redisUrl: env.REDIS_URL || undefined,
    nodeEnv: env.NODE_ENV ?? 'development',
    logLevel: env.LOG_LEVEL ?? 'info',
    webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === '1',
    simulatedSettleMs: int('SIMULATED_SETTLE_MS', env.SIMULATED_SETTLE_MS, 2000),
    schedulerIntervalMs: int('SCHEDULER_INTERVAL_MS', env.SCHEDULER_INTERVAL_MS, 250, 10),
    dataEncryptionKey: env.DATA_ENCRYPTION_KEY || undefined,
    dataEncryptionKeysPrevious: (env.DATA_ENCRYPTION_KEYS_PREVIOUS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== ''),
    dataDir,
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    idempotencyLockTimeoutMs: int('IDEMPOTENCY_LOCK_TIMEOUT_MS', env.IDEMPOTENCY_LOCK_TIMEOUT_MS, 60_000, 1),
    seedDemo: env.SEED_DEMO !== '0',
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', env.RATE_LIMIT_PER_SECOND, 1000),
    webhookRetryScheduleMs: msList('WEBHOOK_RETRY_SCHEDULE_MS', env.WEBHOOK_RETRY_SCHEDULE_MS, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000, 1),
    webhookLeaseMarginMs: int('WEBHOOK_LEASE_MARGIN_MS', env.WEBHOOK_LEASE_MARGIN_MS, 30_000),
    webhookDelivery: env.WEBHOOK_DELIVERY !== '0',
    eventsPollMs: int('EVENTS_POLL_MS', env.EVENTS_POLL_MS, 100, 5),
    revocationPollMs: int('REVOCATION_POLL_MS', env.REVOCATION_POLL_MS, 250, 10),
  };
}
