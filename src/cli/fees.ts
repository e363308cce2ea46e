/**
 * `cli fees set|show` (docs/finance.md): the operator's fee schedule of a merchant in one
 * environment. `set` changes only what it is given:
 *   fees set --merchant <id|name> --env test [--method <m> --percent-bps <n> --fixed <minor>] [--payout-fixed <minor>] [--tax-bps <n>]
 *   fees show --merchant <id|name> --env test
 */
import type { App } from '../app';
import { ENVIRONMENTS, type Environment } from '../modules/auth/api-key.entity';
import { PAYMENT_METHODS } from '../modules/methods/catalogue';
import { MAX_BPS } from '../domain/fees';
import type { FeeScheduleUpdate } from '../modules/balances/fee.service';

type Option = (name: string) => string | undefined;

function bps(value: string | undefined, name: string, fail: (m: string) => never): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > MAX_BPS) fail(`--${name} must be a whole number of basis points from 0 to ${MAX_BPS}`);
  return Number(value);
}

function minor(value: string | undefined, name: string, fail: (m: string) => never): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,30}$/.test(value)) fail(`--${name} must be an amount in minor units (digits only)`);
  return BigInt(value);
}

/** Runs `fees set` or `fees show`; the JSON to print. */
export async function feesCommand(app: App, command: 'set' | 'show', option: Option, fail: (m: string) => never): Promise<unknown> {
  const merchantArg = option('merchant') ?? fail(`fees ${command} needs --merchant <id|name>`);
  const env = option('env') ?? 'test';
  if (!ENVIRONMENTS.includes(env as Environment)) fail('--env must be test or live');
  const merchant = (await app.auth.findMerchant(merchantArg)) ?? fail(`no such merchant: ${merchantArg}`);
  const scope = { merchantId: merchant.id, environment: env as Environment };
  if (command === 'show') return (await app.fees.show(scope)) ?? { merchant_id: merchant.id, environment: env, schedule: null };
  const update: FeeScheduleUpdate = {
    taxBps: bps(option('tax-bps'), 'tax-bps', fail),
    payoutFixed: minor(option('payout-fixed'), 'payout-fixed', fail),
  };
  const method = option('method');
  if (method !== undefined) {
    if (!(PAYMENT_METHODS as readonly string[]).includes(method)) fail(`--method must be one of: ${PAYMENT_METHODS.join(', ')}`);
    update.method = {
      name: method,
      percentBps: bps(option('percent-bps'), 'percent-bps', fail) ?? 0,
      fixed: minor(option('fixed'), 'fixed', fail) ?? 0n,
    };
  } else if (option('percent-bps') !== undefined || option('fixed') !== undefined) {
    fail('--percent-bps and --fixed need --method <payment method>');
  }
  if (update.taxBps === undefined && update.payoutFixed === undefined && !update.method) fail('fees set needs --method, --payout-fixed or --tax-bps');
  return app.fees.set(scope, update);
}
