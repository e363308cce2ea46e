/**
 * First start on an empty embedded database: create a demo merchant with a test key
 * pair and print it once, so a newcomer can call the API at once. Never on MySQL,
 * never live keys. On MySQL/MariaDB (or with SEED_DEMO=0) an empty database instead
 * gets the provisioning command printed (provisioningHint).
 */
import type { App } from './app';
import type { IssuedKey } from './modules/auth/auth.service';
import { redactUrl } from './start-error';

export async function seedDemoMerchant(app: App): Promise<IssuedKey | undefined> {
  if (app.db.kind !== 'sqlite' || !app.config.seedDemo) return undefined;
  if ((await app.auth.listMerchants()).length > 0) return undefined;
  const merchant = await app.auth.createMerchant('demo');
  return app.auth.issueKey(merchant.id, 'test');
}

/**
 * The exact command that provisions a merchant with a test key pair on the database this
 * process uses: the CLI reads the same environment, so the variables that chose the
 * database are repeated in front of it (a password in DATABASE_URL is shown as <password>).
 */
export function provisioningCommand(env: NodeJS.ProcessEnv = process.env): string {
  const prefix: string[] = [];
  const url = env.DATABASE_URL?.trim();
  if (url) {
    prefix.push(`DATABASE_URL='${redactUrl(url, '<password>')}'`);
  } else {
    if (env.SQLITE_FILE) prefix.push(`SQLITE_FILE='${env.SQLITE_FILE}'`);
    if (env.DATA_DIR) prefix.push(`DATA_DIR='${env.DATA_DIR}'`);
  }
  return [...prefix, 'npm run --silent cli -- keys create --merchant acme --env test'].join(' ');
}

/** Lines to print when the database has no merchant yet (and no demo was created), else undefined. */
export async function provisioningHint(app: App, env: NodeJS.ProcessEnv = process.env): Promise<string[] | undefined> {
  if ((await app.auth.listMerchants()).length > 0) return undefined;
  const why =
    app.db.kind === 'mysql'
      ? 'No merchant yet (the demo merchant is created only on the embedded SQLite database).'
      : 'No merchant yet (SEED_DEMO=0: no demo merchant was created).';
  return [
    why,
    'Create a merchant with a TEST key pair (prints {"merchant_id","public_key","secret_key"}; the secret is shown once):',
    `  ${provisioningCommand(env)}`,
  ];
}
