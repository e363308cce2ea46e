/**
 * Environment variables -> one typed, validated configuration object.
 * Names and meanings follow docs/contract.md "Configuration"; additions are documented in docs/operations.md.
 */
import path from 'node:path';

/**
 * MySQL/MariaDB: `url` (DATABASE_URL) takes every write and every read that must see the latest
 * write (a unit of work: idempotency keys, locked reads); `readUrls` (DATABASE_READ_URLS, comma
 * separated, may be empty) take the plain reads, e.g. the other nodes of a Galera cluster with
 * one writer node (docs/decisions/0058-galera-one-writer.md).
 */
export type DatabaseConfig =
  | { kind: 'mysql'; url: string; readUrls: string[] }
  /** `synchronous`: FULL in production, NORMAL elsewhere (docs/decisions/0188-embedded-sqlite-durability.md). */
  | { kind: 'sqlite'; file: string; synchronous: 'NORMAL' | 'FULL' };

/**
 * How long the service waits on MySQL/MariaDB (src/db/db.ts; docs/decisions/0030-database-timeouts-and-outages.md "Database
 * timeouts and outages"). Two mechanisms: hard limits on each wait, and a probe that tells a
 * server that is slow (lock waits, load) from one that does not answer at all (frozen,
 * stopped, partitioned). SQLite, embedded and synchronous, cannot stall by network.
 */
export interface DbSettings {
  /** Connections in the pool (DB_POOL_SIZE). */
  poolSize: number;
  /** TCP connect and handshake of a new connection (DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** Hard limit on waiting for a pooled connection, a new one's connect included (DB_ACQUIRE_TIMEOUT_MS). */
  acquireTimeoutMs: number;
  /** Hard limit on one statement (DB_QUERY_TIMEOUT_MS). */
  queryTimeoutMs: number;
  /** Hard limit on one unit of work, from asking for a connection to COMMIT, retries included (DB_TX_TIMEOUT_MS). */
  txTimeoutMs: number;
  /** A wait (for a connection or a statement) this long has the server probed (DB_PROBE_AFTER_MS). */
  probeAfterMs: number;
  /** A server that does not answer the probe's query this fast is out (DB_PROBE_TIMEOUT_MS). */
  probeTimeoutMs: number;
  /** /readyz: the database must answer this fast (DB_PING_TIMEOUT_MS). */
  pingTimeoutMs: number;
}

/**
 * Defaults. A frozen server is found by the probe: a wait of 1 s, then 3 s without an
 * answer to the probe, and every request waiting on it is answered 503 (about 4 s); a
 * stopped one refuses at once. The hard limits are for a server that answers the probe but
 * not this request (a lock held by a lost client, overload): 8 s per wait and 9 s per unit
 * of work keep such a request inside the 10 s the contract allows, while ordinary lock waits
 * under load (seconds) still succeed.
 */
export const DEFAULT_DB_SETTINGS: DbSettings = {
  poolSize: 20,
  connectTimeoutMs: 5000,
  acquireTimeoutMs: 8000,
  queryTimeoutMs: 8000,
  txTimeoutMs: 9000,
  probeAfterMs: 1000,
  probeTimeoutMs: 3000,
  pingTimeoutMs: 1000,
};

/**
 * Limits on slow clients (docs/operations.md, "Timeouts and outages"). A client that sends
 * its request line and headers, or its whole request, slower than these gets 408
 * request_timeout and the connection is closed; an idle connection is closed after
 * `idleMs`. Node checks the first two every `checkEveryMs`.
 */
export interface HttpTimeouts {
  /** Request line and headers (HTTP_HEADERS_TIMEOUT_MS, default 10 s). */
  headersMs: number;
  /** The whole request, body included (HTTP_REQUEST_TIMEOUT_MS, default 30 s). */
  requestMs: number;
  /** A connection with no traffic either way, and a kept-alive one between requests (HTTP_IDLE_TIMEOUT_MS, default 30 s). */
  idleMs: number;
  keepAliveMs: number;
  checkEveryMs: number;
}

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /** Pool size and time limits of the MySQL/MariaDB connection. */
  db: DbSettings;
  redisUrl?: string;
  nodeEnv: string;
  /**
   * Whether a provider call inside a database transaction throws (DB_TX_GUARD=1/0; default:
   * on, except with NODE_ENV=production, where it would cost every promise a hook).
   */
  txGuard: boolean;
  logLevel: string;
  webhookAllowLoopback: boolean;
  /**
   * Whether live-mode keys reach the simulated providers (SIMULATED_PROVIDERS_IN_LIVE=1; demo
   * only). Off: live discovery lists nothing and live creates are 422 no_provider_available.
   */
  simulatedProvidersInLive: boolean;
  /** Delay before simulated providers settle on their own; 0 = never. */
  simulatedSettleMs: number;
  /** How long a record may wait at a real provider before the reconciliation job reads it back (PROVIDER_RECONCILE_AFTER_MS). */
  providerReconcileAfterMs: number;
  /** How long a call to a real provider may take before it counts as unavailable (PROVIDER_TIMEOUT_MS). */
  providerTimeoutMs: number;
  /** How often the in-process scheduler looks for due work (settlements, expiries). */
  schedulerIntervalMs: number;
  /** How long a process holds a report run it generates before another may take it over (REPORT_LEASE_MS, default 60 s; renewed per chunk). */
  reportLeaseMs: number;
  /** Base64 of 32 bytes used to encrypt stored bank account numbers (AES-256-GCM). */
  dataEncryptionKey?: string;
  /** Earlier data keys, still used to open values sealed before a rotation (DATA_ENCRYPTION_KEYS_PREVIOUS, comma list of base64). */
  dataEncryptionKeysPrevious: string[];
  /** Directory for the embedded database and the generated development key. */
  dataDir: string;
  /** Base of every link (PUBLIC_BASE_URL, no trailing slash); required with NODE_ENV=production. Unset: the address the server listens on. */
  publicBaseUrl?: string;
  /** Proxies whose X-Forwarded-* headers are believed (TRUST_PROXY: comma list of addresses or CIDR ranges); none by default. */
  trustProxy: string[];
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
  /**
   * GRAPHQL_TRUSTED_DOCUMENTS: `accept` (default: registered documents by documentId, and any
   * text) or `only` (signed-in members run the dashboard's registered documents only).
   */
  trustedDocuments: 'accept' | 'only';
  /** How often each process asks the database whether the keys of its open graphql-ws sockets were revoked (REVOCATION_POLL_MS). */
  revocationPollMs: number;
  /** How long a process uses an API key it read before reading it again (API_KEY_CACHE_MS; 0: every request reads it). Under 1000 keeps revocation within a second without Redis. */
  apiKeyCacheMs: number;
  /** How long a client may take to send a request and how long a connection may idle (HTTP_*_TIMEOUT_MS). */
  http: HttpTimeouts;
  /** Where Prometheus metrics are served (METRICS_PORT, METRICS_HOST default 127.0.0.1); never on the API port. Unset: not served. */
  metrics?: { port: number; host: string };
  /** Dashboard sign-in sessions: idle and absolute timeouts (SESSION_IDLE_TIMEOUT_MS, SESSION_ABSOLUTE_TIMEOUT_MS). */
  sessions: { idleMs: number; absoluteMs: number };
  /** argon2id cost of new password hashes (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES; one lane). */
  passwordHashing: { memoryKib: number; passes: number };
  /** Failed sign-ins allowed per account and per address before a lock of `lockS` seconds (SIGN_IN_*). */
  signIn: { perAccount: number; perAddress: number; windowS: number; lockS: number };
}

/** About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (docs/contract.md "Events and webhooks"). */
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

function dbSettings(env: NodeJS.ProcessEnv): DbSettings {
  const d = DEFAULT_DB_SETTINGS;
  const s: DbSettings = {
    poolSize: int('DB_POOL_SIZE', env.DB_POOL_SIZE, d.poolSize, 1),
    connectTimeoutMs: int('DB_CONNECT_TIMEOUT_MS', env.DB_CONNECT_TIMEOUT_MS, d.connectTimeoutMs, 100),
    acquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', env.DB_ACQUIRE_TIMEOUT_MS, d.acquireTimeoutMs, 100),
    queryTimeoutMs: int('DB_QUERY_TIMEOUT_MS', env.DB_QUERY_TIMEOUT_MS, d.queryTimeoutMs, 100),
    txTimeoutMs: int('DB_TX_TIMEOUT_MS', env.DB_TX_TIMEOUT_MS, d.txTimeoutMs, 100),
    probeAfterMs: int('DB_PROBE_AFTER_MS', env.DB_PROBE_AFTER_MS, d.probeAfterMs, 10),
    probeTimeoutMs: int('DB_PROBE_TIMEOUT_MS', env.DB_PROBE_TIMEOUT_MS, d.probeTimeoutMs, 100),
    pingTimeoutMs: int('DB_PING_TIMEOUT_MS', env.DB_PING_TIMEOUT_MS, d.pingTimeoutMs, 100),
  };
  // The unit of work's deadline bounds everything inside it; a longer part limit would never apply.
  for (const [name, value] of [
    ['DB_ACQUIRE_TIMEOUT_MS', s.acquireTimeoutMs],
    ['DB_QUERY_TIMEOUT_MS', s.queryTimeoutMs],
  ] as const) {
    if (value > s.txTimeoutMs) throw new Error(`${name} (${value}) must not exceed DB_TX_TIMEOUT_MS (${s.txTimeoutMs})`);
  }
  return s;
}

function publicBaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.PUBLIC_BASE_URL?.trim();
  if (!value) {
    if (env.NODE_ENV === 'production')
      throw new Error('PUBLIC_BASE_URL must be set when NODE_ENV=production (the base of checkout links, e.g. https://pay.example.com)');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`PUBLIC_BASE_URL must be an absolute http(s) URL such as https://pay.example.com, got "${value}"`);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw new Error(`PUBLIC_BASE_URL must be an http(s) URL without credentials, query or fragment, got "${value}"`);
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const t: HttpTimeouts = {
    headersMs: int('HTTP_HEADERS_TIMEOUT_MS', env.HTTP_HEADERS_TIMEOUT_MS, 10_000, 100),
    requestMs: int('HTTP_REQUEST_TIMEOUT_MS', env.HTTP_REQUEST_TIMEOUT_MS, 30_000, 100),
    idleMs: int('HTTP_IDLE_TIMEOUT_MS', env.HTTP_IDLE_TIMEOUT_MS, 30_000, 100),
    keepAliveMs: 0,
    checkEveryMs: 0,
  };
  if (t.headersMs > t.requestMs) throw new Error(`HTTP_HEADERS_TIMEOUT_MS (${t.headersMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${t.requestMs})`);
  // A kept-alive connection waits for its next request as long as any idle connection: a
  // shorter keep-alive raced clients that reuse a connection just as the server closes it.
  t.keepAliveMs = t.idleMs;
  // Node looks for late requests every 30 s by default: often enough to keep every limit within a second of itself.
  t.checkEveryMs = Math.min(1000, t.headersMs);
  return t;
}

/** DATABASE_READ_URLS: comma-separated mysql:// URLs of the servers that take plain reads. */
function readUrls(value: string | undefined): string[] {
  const urls = (value ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  for (const u of urls) if (!/^(mysql|mariadb):\/\//.test(u)) throw new Error('DATABASE_READ_URLS must be comma-separated mysql:// URLs');
  return urls.map((u) => u.replace(/^mariadb:/, 'mysql:'));
}

function trustedDocumentsMode(value: string | undefined): 'accept' | 'only' {
  if (value === undefined || value === '' || value === 'accept') return 'accept';
  if (value === 'only') return 'only';
  throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS must be accept or only, got "${value}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? 'data');
  const url = env.DATABASE_URL?.trim();
  let database: DatabaseConfig;
  if (url) {
    if (!/^mysql:\/\//.test(url) && !/^mariadb:\/\//.test(url)) {
      throw new Error('DATABASE_URL must start with mysql:// (unset it to use the embedded SQLite file)');
    }
    database = { kind: 'mysql', url: url.replace(/^mariadb:/, 'mysql:'), readUrls: readUrls(env.DATABASE_READ_URLS) };
  } else {
    if (env.DATABASE_READ_URLS?.trim()) throw new Error('DATABASE_READ_URLS needs DATABASE_URL (the writer); the embedded SQLite file has no readers');
    database = {
      kind: 'sqlite',
      file: path.resolve(env.SQLITE_FILE ?? path.join(dataDir, 'payments.sqlite')),
      synchronous: env.NODE_ENV === 'production' ? 'FULL' : 'NORMAL',
    };
  }
  return {
    port: int('PORT', env.PORT, 4000),
    host: env.HOST ?? '0.0.0.0',
    database,
    db: dbSettings(env),
    redisUrl: env.REDIS_URL || undefined,
    nodeEnv: env.NODE_ENV ?? 'development',
    txGuard: env.DB_TX_GUARD ? env.DB_TX_GUARD !== '0' : env.NODE_ENV !== 'production',
    logLevel: env.LOG_LEVEL ?? 'info',
    webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === '1',
    simulatedProvidersInLive: env.SIMULATED_PROVIDERS_IN_LIVE === '1',
    simulatedSettleMs: int('SIMULATED_SETTLE_MS', env.SIMULATED_SETTLE_MS, 2000),
    providerReconcileAfterMs: int('PROVIDER_RECONCILE_AFTER_MS', env.PROVIDER_RECONCILE_AFTER_MS, 600_000),
    providerTimeoutMs: int('PROVIDER_TIMEOUT_MS', env.PROVIDER_TIMEOUT_MS, 10_000, 100),
    schedulerIntervalMs: int('SCHEDULER_INTERVAL_MS', env.SCHEDULER_INTERVAL_MS, 250, 10),
    reportLeaseMs: int('REPORT_LEASE_MS', env.REPORT_LEASE_MS, 60_000, 100),
    dataEncryptionKey: env.DATA_ENCRYPTION_KEY || undefined,
    dataEncryptionKeysPrevious: (env.DATA_ENCRYPTION_KEYS_PREVIOUS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
    dataDir,
    publicBaseUrl: publicBaseUrl(env),
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''),
    idempotencyLockTimeoutMs: int('IDEMPOTENCY_LOCK_TIMEOUT_MS', env.IDEMPOTENCY_LOCK_TIMEOUT_MS, 60_000, 1),
    seedDemo: env.SEED_DEMO !== '0',
    rateLimitPerSecond: int('RATE_LIMIT_PER_SECOND', env.RATE_LIMIT_PER_SECOND, 1000),
    webhookRetryScheduleMs: msList('WEBHOOK_RETRY_SCHEDULE_MS', env.WEBHOOK_RETRY_SCHEDULE_MS, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000, 1),
    webhookLeaseMarginMs: int('WEBHOOK_LEASE_MARGIN_MS', env.WEBHOOK_LEASE_MARGIN_MS, 30_000),
    webhookDelivery: env.WEBHOOK_DELIVERY !== '0',
    eventsPollMs: int('EVENTS_POLL_MS', env.EVENTS_POLL_MS, 100, 5),
    trustedDocuments: trustedDocumentsMode(env.GRAPHQL_TRUSTED_DOCUMENTS),
    revocationPollMs: int('REVOCATION_POLL_MS', env.REVOCATION_POLL_MS, 250, 10),
    apiKeyCacheMs: int('API_KEY_CACHE_MS', env.API_KEY_CACHE_MS, 500),
    http: httpTimeouts(env),
    sessions: {
      idleMs: int('SESSION_IDLE_TIMEOUT_MS', env.SESSION_IDLE_TIMEOUT_MS, 30 * 60_000, 1000),
      absoluteMs: int('SESSION_ABSOLUTE_TIMEOUT_MS', env.SESSION_ABSOLUTE_TIMEOUT_MS, 12 * 3600_000, 1000),
    },
    passwordHashing: {
      memoryKib: int('PASSWORD_HASH_MEMORY_KIB', env.PASSWORD_HASH_MEMORY_KIB, 19_456, 8_192),
      passes: int('PASSWORD_HASH_PASSES', env.PASSWORD_HASH_PASSES, 2, 1),
    },
    signIn: {
      perAccount: int('SIGN_IN_FAILURES_PER_ACCOUNT', env.SIGN_IN_FAILURES_PER_ACCOUNT, 5, 1),
      perAddress: int('SIGN_IN_FAILURES_PER_ADDRESS', env.SIGN_IN_FAILURES_PER_ADDRESS, 50, 1),
      windowS: int('SIGN_IN_FAILURE_WINDOW_S', env.SIGN_IN_FAILURE_WINDOW_S, 900, 1),
      lockS: int('SIGN_IN_LOCK_S', env.SIGN_IN_LOCK_S, 900, 1),
    },
    metrics: env.METRICS_PORT ? { port: int('METRICS_PORT', env.METRICS_PORT, 0), host: env.METRICS_HOST || '127.0.0.1' } : undefined,
  };
}
