/**
 * Provisioning CLI (docs/contract.md "Provisioning"). Prints JSON on standard output.
 *
 *   keys create --merchant <id|name> --env test|live [--permissions r:read,r2:write]
 *                                (creates the merchant by name if needed; --permissions: a restricted key, rk_ secret)
 *   keys revoke <public_key|key_id>
 *   users create --merchant <id|name> --email <e> --role <role> [--name <display name>]
 *                                adds a member (creates the merchant by name if needed); prints the
 *                                user id and the one-time setup link (null for someone who has a password)
 *   approvals set|list|delete    approval policies (src/cli/approvals.ts)
 *   providers connect|list|disable  the operator's accounts at real providers (src/cli/providers.ts, docs/providers.md)
 *   merchants create --name <name>
 *   merchants list
 *   fees set --merchant <m> --env test [--method <m> --percent-bps <n> --fixed <minor>] [--payout-fixed <minor>] [--tax-bps <n>]
 *   fees show --merchant <m> --env test   the fee schedule (docs/finance.md)
 *   ledger verify                check every balance against the sum of its ledger rows (exit 1 on mismatch)
 *   data-key rewrap              re-encrypt every sealed column with the current data key (docs/operations.md)
 *   migrate                      apply pending migrations
 *   db fix-charset               MySQL/MariaDB: convert the tables to utf8mb4 (ids byte-exact) and make
 *                                utf8mb4 the database default; what a start refused for (rebuilds tables)
 *   schema emit                  print the GraphQL SDL (schema.graphql)
 */
import 'reflect-metadata';
import { loadConfig } from '../config';
import { createApp } from '../app';
import pino from 'pino';
import { ENVIRONMENTS, Environment } from '../modules/auth/api-key.entity';
import { describeStartError } from '../start-error';
import { rewrapSealedColumns } from '../db/rewrap';
import { SEALED } from '../modules';
import { createDataSource } from '../db/data-source';
import { alignSchema, allTables } from '../db/charset';
import { parseGrants } from '../domain/access';
import { approvalsCommand } from './approvals';
import { feesCommand } from './fees';
import { providersCommand } from './providers';

/** Statement and unit-of-work limit of the CLI's database work (see `long` in main). */
const CLI_DB_LIMIT_MS = 10 * 60_000;

const USAGE = `usage:
  cli keys create --merchant <id|name> --env test|live [--permissions payout_intents:read,balances:read]
  cli keys revoke <public_key|key_id>
  cli users create --merchant <id|name> --email <e> --role owner|admin|developer|finance|viewer [--name <display name>]
  cli approvals set --merchant <id|name> --env test|live --currency THB --min-amount 100000 --approvals 1|2|3 [--keys-count]
  cli approvals list --merchant <id|name> --env test|live
  cli approvals delete --merchant <id|name> --env test|live --currency THB
  cli providers connect --env live|test --provider stripe --secret-key <sk> --webhook-secret <whsec> [--api-base <url>] [--merchant <m>]
  cli providers connect --env live|test --provider opn --public-key <pkey> --secret-key <skey> [--webhook-secret <s>] [--api-base <url>] [--vault-base <url>] [--merchant <m>]
  cli providers list [--env live|test]
  cli providers disable <pa_id>
  cli merchants create --name <name>
  cli merchants list
  cli fees set --merchant <id|name> --env test|live [--method <m> --percent-bps <n> --fixed <minor>] [--payout-fixed <minor>] [--tax-bps <n>]
  cli fees show --merchant <id|name> --env test|live
  cli ledger verify
  cli data-key rewrap
  cli migrate
  cli db fix-charset
  cli schema emit`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'schema' && command === 'emit') {
    const { printGraphQLSchema } = await import('../graphql/schema.js');
    process.stdout.write(printGraphQLSchema());
    return 0;
  }
  if (group === 'db' && command === 'fix-charset') return fixCharset();
  const known = [
    'keys create',
    'keys revoke',
    'users create',
    'approvals set',
    'approvals list',
    'approvals delete',
    'merchants create',
    'merchants list',
    'providers connect',
    'providers list',
    'providers disable',
    'ledger verify',
    'fees set',
    'fees show',
    'data-key rewrap',
    'migrate undefined',
  ];
  if (!known.includes(`${group} ${command}`)) fail(USAGE);

  const loaded = loadConfig();
  // Operator commands read whole tables (ledger verify): the request path's statement and unit
  // limits do not fit them, unless DB_QUERY_TIMEOUT_MS / DB_TX_TIMEOUT_MS are set explicitly.
  const long = (name: string, ms: number) => (process.env[name] ? ms : Math.max(ms, CLI_DB_LIMIT_MS));
  const config = {
    ...loaded,
    db: {
      ...loaded.db,
      queryTimeoutMs: long('DB_QUERY_TIMEOUT_MS', loaded.db.queryTimeoutMs),
      txTimeoutMs: long('DB_TX_TIMEOUT_MS', loaded.db.txTimeoutMs),
    },
  };
  const app = await createApp({ ...config, logLevel: 'warn' }, pino({ level: process.env.LOG_LEVEL ?? 'warn' }, process.stderr));
  try {
    switch (`${group} ${command}`) {
      case 'migrate undefined':
        print({ migrated: true });
        return 0;
      case 'ledger verify': {
        const report = await app.ledger.verify();
        print({ ok: report.mismatches.length === 0, ...report });
        return report.mismatches.length === 0 ? 0 : 1;
      }
      case 'fees set':
      case 'fees show':
        print(await feesCommand(app, command as 'set' | 'show', (name) => option(rest, name), fail));
        return 0;
      case 'data-key rewrap':
        print(await rewrapSealedColumns(app.db, app.cipher, SEALED));
        return 0;
      case 'merchants list':
        print((await app.auth.listMerchants()).map((m) => ({ merchant_id: m.id, name: m.name, created_at: m.createdAt.toISOString() })));
        return 0;
      case 'merchants create': {
        const name = option(rest, 'name') ?? fail('merchants create needs --name <name>');
        const m = await app.auth.createMerchant(name);
        print({ merchant_id: m.id, name: m.name, created_at: m.createdAt.toISOString() });
        return 0;
      }
      case 'keys create': {
        const merchantArg = option(rest, 'merchant') ?? fail('keys create needs --merchant <id|name>');
        const env = option(rest, 'env') ?? 'test';
        if (!ENVIRONMENTS.includes(env as Environment)) fail('--env must be test or live');
        const permissions = option(rest, 'permissions');
        let grants;
        try {
          grants = permissions === undefined ? undefined : parseGrants(permissions.split(',').filter((p) => p.trim() !== ''));
        } catch (err) {
          fail((err as Error).message);
        }
        const merchant = (await app.auth.findMerchant(merchantArg)) ?? (await app.auth.createMerchant(merchantArg));
        const key = await app.auth.issueKey(merchant.id, env as Environment, grants);
        print({
          merchant_id: key.merchant_id,
          public_key: key.public_key,
          secret_key: key.secret_key,
          ...(key.permissions ? { permissions: key.permissions } : {}),
        });
        return 0;
      }
      case 'users create': {
        const merchantArg = option(rest, 'merchant') ?? fail('users create needs --merchant <id|name>');
        const email = option(rest, 'email') ?? fail('users create needs --email <e>');
        const role = option(rest, 'role') ?? fail('users create needs --role <role>');
        const merchant = (await app.auth.findMerchant(merchantArg)) ?? (await app.auth.createMerchant(merchantArg));
        // Without PUBLIC_BASE_URL (development) the link points where the server listens.
        app.publicUrl.listeningOn(config.port);
        print(await app.team.createUser(merchant.id, email, role, option(rest, 'name')));
        return 0;
      }
      case 'approvals set':
      case 'approvals list':
      case 'approvals delete':
        return await approvalsCommand(app, command, {
          option: (name) => option(rest, name),
          flag: (name) => rest.includes(`--${name}`),
          fail,
          print,
        });
      case 'providers connect':
      case 'providers list':
      case 'providers disable':
        // Without PUBLIC_BASE_URL (development) the webhook URL points where the server listens.
        app.publicUrl.listeningOn(config.port);
        print(await providersCommand(app, command as 'connect' | 'list' | 'disable', rest, (name) => option(rest, name), fail));
        return 0;
      case 'keys revoke': {
        const target = rest[0] ?? fail('keys revoke needs <public_key|key_id>');
        const ok = await app.auth.revokeKey(target);
        if (!ok) fail(`no such key: ${target}`);
        print({ revoked: target });
        return 0;
      }
    }
    return 2;
  } finally {
    await app.close();
  }
}

/**
 * Runs without createApp: createApp refuses a database this repairs. Touches only tables
 * that are not already as src/db/charset.ts describes; prints the ones it altered.
 */
async function fixCharset(): Promise<number> {
  const config = loadConfig();
  if (config.database.kind !== 'mysql') {
    print({ altered: [], note: 'SQLite stores UTF-8; nothing to convert' });
    return 0;
  }
  const ds = createDataSource(config.database, []);
  await ds.initialize();
  const qr = ds.createQueryRunner();
  try {
    print({ altered: await alignSchema(qr, await allTables(qr)) });
    return 0;
  } finally {
    await qr.release();
    await ds.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    // One line, with what to do when the database is missing or unreachable.
    let database;
    try {
      database = loadConfig().database;
    } catch {
      database = undefined;
    }
    process.stderr.write(`${describeStartError(err, database)}\n`);
    process.exit(1);
  },
);
