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
import { FieldCipher } from './domain/crypto';
import { Scheduler } from './jobs/scheduler';
import { AuthService } from './modules/auth/auth.service';
import { EventService } from './modules/events/event.service';
import { EventHub } from './modules/events/event.hub';
import { RevocationWatcher } from './modules/auth/revocation-watcher';
import { RedisBus } from './db/redis';
import { WebhookEndpointService } from './modules/webhooks/webhook-endpoint.service';
import { WebhookDeliveryService } from './modules/webhooks/webhook-delivery.service';
import { WebhookSender } from './modules/webhooks/webhook-sender';
import { IdempotencyService } from './ops/idempotency/idempotency.service';
import { AuditService } from './modules/audit/audit.service';
import { PayoutService } from './modules/payouts/payout.service';
import { simulatedPayoutConnector } from './modules/payouts/simulated-payout.provider';
import { LedgerService } from './modules/balances/ledger.service';
import { TopupService } from './modules/topups/topup.service';
import { MethodRouting } from './modules/methods/method-routing.service';
import { MethodSettings } from './modules/methods/method-settings.service';
import { PaymentService } from './modules/payments/payment.service';
import { PaymentLifecycle } from './modules/payments/payment-lifecycle.service';
import { CheckoutService } from './modules/payments/checkout.service';
import { paymentOperations } from './modules/payments/payment.operations';
import { payoutOperations } from './modules/payouts/payout.operations';
import { topupOperations } from './modules/topups/topup.operations';
import { methodOperations } from './modules/methods/method.operations';
import { webhookOperations } from './modules/webhooks/webhook.operations';
import { RefundService } from './modules/refunds/refund.service';
import { refundOperations } from './modules/refunds/refund.operations';
import { simulatedRefundConnector } from './modules/refunds/simulated-refund.provider';
import { OperationPipeline } from './ops/pipeline';
import { ENTITIES } from './modules';
import { defaultBaseUrl } from './modules/payments/base-url';

export interface App {
  config: Config;
  log: Logger;
  db: Db;
  /** The data keyring: the current key seals, earlier keys still open (README "Production", rotating the data key). */
  cipher: FieldCipher;
  auth: AuthService;
  /** Closes open graphql-ws sockets of revoked keys, on every process. */
  revocations: RevocationWatcher;
  /** The shared Redis connections when REDIS_URL is set. */
  redis?: RedisBus;
  idempotency: IdempotencyService;
  audit: AuditService;
  events: EventService;
  eventHub: EventHub;
  webhookEndpoints: WebhookEndpointService;
  webhookDelivery: WebhookDeliveryService;
  ledger: LedgerService;
  payouts: PayoutService;
  topups: TopupService;
  methodRouting: MethodRouting;
  methodSettings: MethodSettings;
  paymentLifecycle: PaymentLifecycle;
  payments: PaymentService;
  checkout: CheckoutService;
  refunds: RefundService;
  /** Every state-changing call runs through this pipeline (REST and GraphQL alike). */
  pipeline: OperationPipeline;
  /** The operations each surface dispatches, by module. */
  ops: Operations;
  scheduler: Scheduler;
  close(): Promise<void>;
}

export interface Operations {
  payouts: ReturnType<typeof payoutOperations>;
  topups: ReturnType<typeof topupOperations>;
  payments: ReturnType<typeof paymentOperations>;
  methods: ReturnType<typeof methodOperations>;
  webhooks: ReturnType<typeof webhookOperations>;
  refunds: ReturnType<typeof refundOperations>;
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
  const cipher = FieldCipher.load({ base64: config.dataEncryptionKey, previous: config.dataEncryptionKeysPrevious, dataDir: config.dataDir, production: config.nodeEnv === 'production' });
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
    if (!mariaDb && !guards) log.warn('MySQL: the late guard procedure is missing or not executable by this user (see docs/decisions.md, "MySQL 8, measured"); each write checks its row count before COMMIT, one round trip more');
  }
  const db = new Db(ds, { settings: config.db, log: log.child({ component: 'db' }), guardProviderCalls: config.txGuard, guards });

  const redis = config.redisUrl ? new RedisBus(config.redisUrl, log.child({ component: 'redis' })) : undefined;
  const auth = new AuthService(db);
  const revocations = new RevocationWatcher(db, config.revocationPollMs, log.child({ component: 'auth' }), redis);
  auth.afterRevoke.push((apiKeyId) => revocations.revoked(apiKeyId));
  const audit = new AuditService(db);
  const idempotency = new IdempotencyService(db, config.idempotencyLockTimeoutMs, cipher, mariaDb);
  const pipeline = new OperationPipeline(db, idempotency, audit);
  const events = new EventService(db);
  const eventHub = new EventHub(events, config.eventsPollMs, log.child({ component: 'events' }), redis);
  const webhookEndpoints = new WebhookEndpointService({ db, cipher, allowLoopback: config.webhookAllowLoopback });
  const webhookDelivery = new WebhookDeliveryService({
    db, cipher, log: log.child({ component: 'webhooks' }),
    sender: new WebhookSender({ allowLoopback: config.webhookAllowLoopback, timeoutMs: config.webhookTimeoutMs }),
    retryScheduleMs: config.webhookRetryScheduleMs, leaseMarginMs: config.webhookLeaseMarginMs,
  });
  // Every event writes its webhook deliveries inside the event's own transaction.
  events.afterRecord.push((em, event) => webhookDelivery.planFanOut(em, event));
  const ledger = new LedgerService(db);
  const lifecycle = { ledger, events };
  const topups = new TopupService({ db, lifecycle });
  const payouts = new PayoutService({
    db, cipher, lifecycle, connector: simulatedPayoutConnector(), settleMs: config.simulatedSettleMs,
  });
  const methodSettings = new MethodSettings(db);
  const methodRouting = new MethodRouting(db, methodSettings);
  const paymentLifecycle = new PaymentLifecycle({
    db, lifecycle, methods: methodRouting, cipher, settleMs: config.simulatedSettleMs, defaultBaseUrl: defaultBaseUrl(config),
  });
  const payments = new PaymentService({ db, methods: methodRouting, lifecycle: paymentLifecycle });
  const checkout = new CheckoutService({ db, methods: methodRouting, lifecycle: paymentLifecycle });
  const refunds = new RefundService({
    db, lifecycle, payments: paymentLifecycle, connector: simulatedRefundConnector(), settleMs: config.simulatedSettleMs,
  });
  const ops: Operations = {
    payouts: payoutOperations(payouts),
    topups: topupOperations(topups),
    payments: paymentOperations(payments, defaultBaseUrl(config)),
    methods: methodOperations(methodSettings),
    webhooks: webhookOperations(webhookEndpoints),
    refunds: refundOperations(refunds),
  };
  const scheduler = new Scheduler(
    [
      { name: 'payouts.settle', run: () => payouts.settleDue() },
      { name: 'topups.expire', run: () => topups.expireDue(), everyMs: 1000 },
      { name: 'payments.resume', run: () => paymentLifecycle.resumeStarts(), everyMs: 1000 },
      { name: 'payments.settle', run: () => paymentLifecycle.settleDue() },
      { name: 'payments.expire', run: () => paymentLifecycle.expireDue(), everyMs: 1000 },
      { name: 'refunds.settle', run: () => refunds.settleDue() },
      { name: 'idempotency.purge', run: () => idempotency.purgeExpired(), everyMs: 60_000 },
      { name: 'idempotency.release', run: () => idempotency.flushReleases() },
      ...(config.webhookDelivery ? [{ name: 'webhooks.deliver', run: () => webhookDelivery.deliverDue() }] : []),
    ],
    config.schedulerIntervalMs,
    log.child({ component: 'scheduler' }),
  );

  return {
    config, log, db, cipher, auth, revocations, redis, idempotency, audit, events, eventHub, webhookEndpoints, webhookDelivery, ledger, payouts, topups, methodRouting, methodSettings,
    paymentLifecycle, payments, checkout, refunds, pipeline, ops, scheduler,
    async close() {
      await scheduler.stop();
      eventHub.close();
      revocations.close();
      await webhookDelivery.drain();
      await db.close();
      redis?.close();
    },
  };
}
