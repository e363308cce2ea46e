/**
 * The composition root: configuration -> database -> services. Both surfaces (REST and
 * GraphQL) and the CLI receive the same `App`.
 */
import 'reflect-metadata';
import pino, { Logger } from 'pino';
import type { Config } from './config';
import { createDataSource } from './db/data-source';
import { Db } from './db/db';
import { isMariaDb, refuseLossyCharset } from './db/charset';
import { guardProcedureWorks, type GuardForm } from './db/batch';
import { CountingLogger } from './db/query-counter';
import { REDACTED_PATHS, serializeError } from './db/safe-log';
import { provideMigrationCipher } from './db/migrations/cipher';
import { RedisBus } from './db/redis';
import { FieldCipher } from './domain/crypto';
import { PublicBaseUrl } from './domain/public-url';
import type { Credentials } from './domain/scope';
import { useCursorKeys } from './domain/list-cursor';
import { Scheduler } from './jobs/scheduler';
import { IdempotencyService } from './modules/idempotency/idempotency.service';
import { keyClaimOf } from './modules/idempotency/key-claims';
import { OperationPipeline } from './ops/pipeline';
import { composeModules, Composition, ENTITIES } from './modules';
import type { ServicesOf } from './modules/module';
import type { AuthService } from './modules/auth/auth.service';
import type { RevocationWatcher } from './modules/auth/revocation-watcher';
import type { SessionService } from './modules/people/session.service';
import type { TeamService } from './modules/people/team.service';
import type { AuditService } from './modules/audit/audit.service';
import type { EventService } from './modules/events/event.service';
import type { EventHub } from './modules/events/event.hub';
import type { WebhookEndpointService } from './modules/webhooks/webhook-endpoint.service';
import type { WebhookDeliveryService } from './modules/webhooks/webhook-delivery.service';
import type { LedgerService } from './modules/balances/ledger.service';
import type { FeeService } from './modules/balances/fee.service';
import type { PayoutService } from './modules/payouts/payout.service';
import type { TopupService } from './modules/topups/topup.service';
import type { MethodRouting } from './modules/methods/method-routing.service';
import type { MethodSettings } from './modules/methods/method-settings.service';
import type { PaymentService } from './modules/payments/payment.service';
import type { PaymentLifecycle } from './modules/payments/payment-lifecycle.service';
import type { CheckoutService } from './modules/payments/checkout.service';
import type { RefundService } from './modules/refunds/refund.service';
import type { ProviderAccounts } from './modules/providers/provider-accounts.service';
import { providersModule } from './modules/providers/provider.module';
import { auditModule } from './modules/audit/audit.module';
import { authModule } from './modules/auth/auth.module';
import { peopleModule } from './modules/people/people.module';
import { balancesModule } from './modules/balances/balance.module';
import { eventsModule } from './modules/events/event.module';
import { methodsModule } from './modules/methods/method.module';
import { paymentsModule } from './modules/payments/payment.module';
import { payoutsModule } from './modules/payouts/payout.module';
import { refundsModule } from './modules/refunds/refund.module';
import { topupsModule } from './modules/topups/topup.module';
import { webhooksModule } from './modules/webhooks/webhook.module';

/**
 * The running application: the kernel, the modules' services (`modules`), the pipeline and
 * the scheduler. The REST server and the GraphQL schema take each module's services from
 * `modules`; the named members below are the same services, for the CLI, the jobs and tests.
 */
export interface App {
  config: Config;
  log: Logger;
  db: Db;
  /** The data keyring: the current key seals, earlier keys still open (docs/operations.md, rotating the data key). */
  cipher: FieldCipher;
  /** The base of every link the service gives out (PUBLIC_BASE_URL; else the address it listens on). */
  publicUrl: PublicBaseUrl;
  auth: AuthService;
  /** Closes open graphql-ws sockets of revoked keys, on every process. */
  revocations: RevocationWatcher;
  /** Dashboard sign-in sessions (cookie authentication). */
  sessions: SessionService;
  /** Closes open graphql-ws sockets of ended sessions, on every process. */
  sessionWatch: RevocationWatcher;
  /** Who is calling, for every surface: API keys (`auth`) and session cookies (`sessions`). */
  credentials: Credentials;
  /** Merchants' people and roles. */
  team: TeamService;
  /** The shared Redis connections when REDIS_URL is set. */
  redis?: RedisBus;
  idempotency: IdempotencyService;
  audit: AuditService;
  events: EventService;
  eventHub: EventHub;
  webhookEndpoints: WebhookEndpointService;
  webhookDelivery: WebhookDeliveryService;
  ledger: LedgerService;
  fees: FeeService;
  payouts: PayoutService;
  topups: TopupService;
  methodRouting: MethodRouting;
  methodSettings: MethodSettings;
  paymentLifecycle: PaymentLifecycle;
  payments: PaymentService;
  checkout: CheckoutService;
  refunds: RefundService;
  /** The operator's accounts at real providers (cli providers ...). */
  providerAccounts: ProviderAccounts;
  /** Every state-changing call runs through this pipeline (REST and GraphQL alike). */
  pipeline: OperationPipeline;
  /** The operations each surface dispatches, by module. */
  ops: Operations;
  /** Every module's services, built by the module (`provide`), by module. */
  modules: Composition;
  scheduler: Scheduler;
  close(): Promise<void>;
}

/** The operations each surface dispatches, by module. */
export interface Operations {
  payouts: ServicesOf<typeof payoutsModule>['ops'];
  topups: ServicesOf<typeof topupsModule>['ops'];
  payments: ServicesOf<typeof paymentsModule>['ops'];
  methods: ServicesOf<typeof methodsModule>['ops'];
  webhooks: ServicesOf<typeof webhooksModule>['ops'];
  refunds: ServicesOf<typeof refundsModule>['ops'];
}

/**
 * The service's logger. Errors are written by `serializeError` (type, message, code,
 * errno, stack; a database error's quoted values replaced with `?`), never with the SQL
 * and parameters TypeORM attaches to them; credentials, Idempotency-Keys, SQL and GraphQL
 * variables are redacted wherever a caller might put them (src/db/safe-log.ts).
 */
export function createLogger(config: Config, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'payments-gateway' },
    serializers: { err: serializeError },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    hooks: {
      // `log.error(err)` would take the error's own message as the line's: take the safe one.
      logMethod(args, method) {
        const [first, second] = args as unknown[];
        if (first instanceof Error && typeof second !== 'string') {
          return method.apply(this, [{ err: first }, serializeError(first).message] as never);
        }
        return method.apply(this, args);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export async function createApp(config: Config, log = createLogger(config)): Promise<App> {
  const cipher = FieldCipher.load({
    base64: config.dataEncryptionKey,
    previous: config.dataEncryptionKeysPrevious,
    dataDir: config.dataDir,
    production: config.nodeEnv === 'production',
  });
  // Migrations that seal stored data use the service's key.
  provideMigrationCipher(() => cipher);
  const ds = createDataSource(config.database, ENTITIES, new CountingLogger(log.child({ component: 'sql' })), config.db);
  await ds.initialize();
  const applied = await ds.runMigrations({ transaction: 'each' });
  if (applied.length > 0) log.info({ migrations: applied.map((m) => m.name) }, 'migrations applied');
  // A database that would lose text (not utf8mb4) is refused with one line saying how to fix it.
  await refuseLossyCharset(ds);
  // End-of-unit batches guard their UPDATEs with an IF on MariaDB, with the guard procedure on
  // MySQL 8 (if this user may CALL it; else the row count is read before the COMMIT);
  // idempotency keys are claimed inline on MariaDB only (SET STATEMENT).
  const mysql = ds.options.type === 'mysql';
  const mariaDb = mysql && (await isMariaDb(ds));
  let guards: GuardForm | false = false;
  if (mysql) {
    guards = mariaDb ? 'if' : (await guardProcedureWorks(ds)) ? 'call' : false;
    if (!mariaDb && !guards)
      log.warn(
        'MySQL: the late guard procedure is missing or not executable by this user (see docs/decisions/0042-mysql-8.md); each write checks its row count before COMMIT, one round trip more',
      );
  }
  // Plain reads on DATABASE_READ_URLS, if any (every unit of work stays on the writer); the same
  // statement counter. Their schema is the writer's: migrations run on the writer only.
  const sqlLogger = ds.logger as CountingLogger;
  const readers =
    config.database.kind === 'mysql'
      ? config.database.readUrls.map((url) => createDataSource({ kind: 'mysql', url, readUrls: [] }, ENTITIES, sqlLogger, config.db))
      : [];
  await Promise.all(readers.map((r) => r.initialize()));
  const db = new Db(ds, { settings: config.db, log: log.child({ component: 'db' }), guardProviderCalls: config.txGuard, guards, readers });

  const redis = config.redisUrl ? new RedisBus(config.redisUrl, log.child({ component: 'redis' })) : undefined;
  const publicUrl = new PublicBaseUrl(config.publicBaseUrl, config.host);
  useCursorKeys(cipher.derivedKeys('list cursor'));
  const modules = composeModules({ config, log, db, dataSource: ds, cipher, redis, publicUrl });
  const { auth, revocations } = modules.of(authModule);
  const { sessions, sessionWatch, team } = modules.of(peopleModule);
  const { audit } = modules.of(auditModule);
  const { events, eventHub } = modules.of(eventsModule);
  const { webhookEndpoints, webhookDelivery } = modules.of(webhooksModule);
  const { ledger, fees } = modules.of(balancesModule);
  const { payouts } = modules.of(payoutsModule);
  const { topups } = modules.of(topupsModule);
  const { methodRouting, methodSettings } = modules.of(methodsModule);
  const { paymentLifecycle, payments, checkout } = modules.of(paymentsModule);
  const { refunds } = modules.of(refundsModule);
  const { providerAccounts } = modules.of(providersModule);
  const ops: Operations = {
    payouts: modules.of(payoutsModule).ops,
    topups: modules.of(topupsModule).ops,
    payments: modules.of(paymentsModule).ops,
    methods: modules.of(methodsModule).ops,
    webhooks: modules.of(webhooksModule).ops,
    refunds: modules.of(refundsModule).ops,
  };
  // Idempotency keys are claimed inline on MariaDB only (SET STATEMENT).
  const idempotency = new IdempotencyService(db, config.idempotencyLockTimeoutMs, cipher, mariaDb);
  const pipeline = new OperationPipeline(db, { claim: keyClaimOf(idempotency), hooks: idempotency.hooks }, audit);
  const jobs = [
    ...modules.jobs(config),
    { name: 'idempotency.purge', run: () => idempotency.purgeExpired(), everyMs: 60_000 },
    { name: 'idempotency.release', run: () => idempotency.flushReleases() },
  ];
  const scheduler = new Scheduler(
    [...jobs.filter((j) => !('last' in j)), ...jobs.filter((j) => 'last' in j)],
    config.schedulerIntervalMs,
    log.child({ component: 'scheduler' }),
  );

  return {
    config,
    log,
    db,
    cipher,
    publicUrl,
    auth,
    revocations,
    sessions,
    sessionWatch,
    credentials: {
      authenticate: (header) => auth.authenticate(header),
      authenticateCookie: (headers, method, publicBase) => sessions.authenticateCookie(headers, method, publicBase),
    },
    team,
    redis,
    idempotency,
    audit,
    events,
    eventHub,
    webhookEndpoints,
    webhookDelivery,
    ledger,
    fees,
    payouts,
    topups,
    methodRouting,
    methodSettings,
    paymentLifecycle,
    payments,
    checkout,
    refunds,
    providerAccounts,
    pipeline,
    ops,
    modules,
    scheduler,
    async close() {
      await scheduler.stop();
      await modules.close();
      await db.close();
      redis?.close();
    },
  };
}
