/**
 * First start on an empty embedded database: create a demo merchant with a test key
 * pair and print it once, so a newcomer can call the API at once. Never on MySQL,
 * never live keys.
 */
import type { App } from './app';
import type { IssuedKey } from './modules/auth/auth.service';

export async function seedDemoMerchant(app: App): Promise<IssuedKey | undefined> {
  if (app.db.kind !== 'sqlite' || !app.config.seedDemo) return undefined;
  if ((await app.auth.listMerchants()).length > 0) return undefined;
  const merchant = await app.auth.createMerchant('demo');
  return app.auth.issueKey(merchant.id, 'test');
}
