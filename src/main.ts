/** Start: config -> database (migrations) -> server -> listen -> scheduler. */
import 'reflect-metadata';
import { loadConfig } from './config';
import { createApp, createLogger } from './app';
import { buildServer } from './server';
import { provisioningHint, seedDemoMerchant } from './seed';
import { exitOnStartError } from './start-error';
import type { DatabaseConfig } from './config';

/** The longest a graceful shutdown may take before the process exits anyway (code 1). */
const SHUTDOWN_LIMIT_MS = 30_000;

/** Known once the configuration is read: lets a failed start name the database. */
let database: DatabaseConfig | undefined;

async function main(): Promise<void> {
  const config = loadConfig();
  database = config.database;
  const log = createLogger(config);
  const app = await createApp(config, log);
  const demo = await seedDemoMerchant(app);
  const hint = demo ? undefined : await provisioningHint(app);
  const server = await buildServer(app);
  const address = await server.listen({ port: config.port, host: config.host });
  app.scheduler.start();
  const port = server.server.address() && typeof server.server.address() === 'object' ? (server.server.address() as { port: number }).port : config.port;
  log.info({ address, port, metricsPort: server.metricsAddress?.()?.port, database: app.db.kind }, 'listening');
  if (demo) {
    const base = `http://localhost:${port}`;
    process.stdout.write(
      [
        '',
        'Created a demo merchant with a TEST key pair (shown once; the secret is stored only as a hash):',
        `  public key: ${demo.public_key}`,
        `  secret key: ${demo.secret_key}`,
        'Set them for the README examples, then try one:',
        `  export PK=${demo.public_key} SK=${demo.secret_key} BASE=${base}`,
        '  curl -s -u $PK:$SK $BASE/v1/balances',
        '',
      ].join('\n') + '\n',
    );
  } else if (hint) {
    process.stdout.write(['', ...hint, ''].join('\n') + '\n');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Every step is bounded (database deadlines, a bounded pool close); this is the net under them.
    setTimeout(() => {
      log.error({ signal, afterMs: SHUTDOWN_LIMIT_MS }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    const closing = server.close();
    // Node closes idle keep-alive connections once, when close() starts; one busy then (a request
    // waiting on the database) turns idle after its answer and would hold close() until the
    // client drops it. Closing those as they turn idle bounds close() by the requests in flight.
    const idle = setInterval(() => server.server.closeIdleConnections(), 100);
    await Promise.all([app.scheduler.stop(), closing]);
    clearInterval(idle);
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

// A failed start (configuration, database, port) is one line on stderr and exit code 1.
main().catch((err) => exitOnStartError('payments-gateway', err, database));
