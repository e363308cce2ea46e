/**
 * `cli approvals set|list|delete`: an operator sets a merchant's approval policies (the
 * dashboard's owners do the same through `setApprovalPolicy`).
 *
 *   approvals set --merchant <id|name> --env test|live --currency THB --min-amount 100000 --approvals 2 [--keys-count]
 *   approvals list --merchant <id|name> --env test|live
 *   approvals delete --merchant <id|name> --env test|live --currency THB
 */
import type { App } from '../app';
import { approvalsModule } from '../modules/approvals/approval.module';
import { parsePolicy } from '../modules/approvals/approval-policy.service';
import { SetApprovalPolicyBody } from '../modules/approvals/approval.schemas';
import { check } from '../domain/schema';
import { ENVIRONMENTS, type Environment } from '../domain/scope';

export interface CliIo {
  option(name: string): string | undefined;
  flag(name: string): boolean;
  fail(message: string): never;
  print(value: unknown): void;
}

export async function approvalsCommand(app: App, command: string, io: CliIo): Promise<number> {
  const merchantArg = io.option('merchant') ?? io.fail(`approvals ${command} needs --merchant <id|name>`);
  const environment = io.option('env') ?? 'test';
  if (!ENVIRONMENTS.includes(environment as Environment)) io.fail('--env must be test or live');
  const merchant = (await app.auth.findMerchant(merchantArg)) ?? io.fail(`no such merchant: ${merchantArg}`);
  const scope = { merchantId: merchant.id, environment: environment as Environment };
  const { approvalPolicies } = app.modules.of(approvalsModule);
  try {
    if (command === 'list') {
      io.print(await approvalPolicies.list(scope));
      return 0;
    }
    const currency = io.option('currency') ?? io.fail(`approvals ${command} needs --currency <ISO 4217>`);
    if (command === 'delete') {
      io.print((await app.db.tx((tx) => approvalPolicies.remove(tx, scope, currency))).value);
      return 0;
    }
    const body = check(
      SetApprovalPolicyBody,
      {
        currency,
        min_amount: io.option('min-amount') ?? io.fail('approvals set needs --min-amount <minor units>'),
        approvals: Number(io.option('approvals') ?? io.fail('approvals set needs --approvals 1|2|3')),
        keys_count: io.flag('keys-count'),
      },
      'body',
    );
    io.print((await app.db.tx((tx) => approvalPolicies.set(tx, scope, parsePolicy(body)))).value);
    return 0;
  } catch (err) {
    return io.fail((err as Error).message);
  }
}
