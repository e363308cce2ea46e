/**
 * The merchant's method settings: which catalogue methods a merchant offers, per
 * environment. A method without a row is enabled; routing leaves out disabled ones.
 */
import type { EntityManager } from 'typeorm';
import { ApiError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Scope } from '../../domain/scope';
import type { Db } from '../../db/db';
import { compiledSelect } from '../../db/compiled-select';
import type { RequestContext } from '../auth/request-context';
import type { Done } from '../../ops/operation';
import { PAYMENT_METHODS, PaymentMethodName } from './catalogue';
import { PaymentMethodSetting } from './method-setting.entity';
import type { UpdatePaymentMethodSettingBody } from './method.schemas';
import { PaymentMethodSettingWire, settingToWire } from './method.wire';
import { lockedOne } from '../../db/locking-read';

/** The parsed body of POST /v1/payment_method_settings/:payment_method (also the idempotency fingerprint). */
export interface SettingUpdate {
  payment_method: PaymentMethodName;
  enabled: boolean;
}

/** The path's method (404 outside the catalogue) and a body the schema accepted. */
export function parseSettingUpdate(method: string, body: UpdatePaymentMethodSettingBody): SettingUpdate {
  if (!(PAYMENT_METHODS as readonly string[]).includes(method)) throw new ApiError('not_found', `No such payment method: ${method}.`);
  return { payment_method: method as PaymentMethodName, enabled: body.enabled };
}

export class MethodSettings {
  constructor(private readonly db: Db) {}

  async disabledMethods(em: EntityManager, scope: Scope): Promise<Set<string>> {
    // Read by every discovery and every payment create: the SELECT is built once (compiledSelect).
    const rows = await compiledSelect(em, 'methodSettings.disabled', { merchantId: scope.merchantId, environment: scope.environment }, () =>
      em.createQueryBuilder(PaymentMethodSetting, 's').where('s.merchant_id = :merchantId AND s.environment = :environment AND s.enabled = 0'),
    );
    return new Set(rows.map((r) => r.paymentMethod));
  }

  async listSettings(scope: Scope): Promise<PaymentMethodSettingWire[]> {
    const rows = await this.db.read((em) =>
      em
        .createQueryBuilder(PaymentMethodSetting, 's')
        .where('s.merchant_id = :merchantId AND s.environment = :environment', {
          merchantId: scope.merchantId,
          environment: scope.environment,
        })
        .getMany(),
    );
    const byMethod = new Map(rows.map((r) => [r.paymentMethod, r]));
    return PAYMENT_METHODS.map((m) => settingToWire(m, byMethod.get(m)));
  }

  /** Enables or disables one method for the caller's merchant and environment (an upsert in the caller's transaction). */
  async update(em: EntityManager, ctx: RequestContext, input: SettingUpdate): Promise<Done<PaymentMethodSettingWire>> {
    const now = new Date();
    const find = () =>
      lockedOne(
        em,
        em.createQueryBuilder(PaymentMethodSetting, 's').where('s.merchant_id = :merchantId AND s.environment = :environment AND s.payment_method = :method', {
          merchantId: ctx.merchantId,
          environment: ctx.environment,
          method: input.payment_method,
        }),
      );
    let row = await find();
    if (!row) {
      try {
        row = Object.assign(new PaymentMethodSetting(), {
          id: newId('paymentMethodSetting', now.getTime()),
          merchantId: ctx.merchantId,
          environment: ctx.environment,
          paymentMethod: input.payment_method,
          enabled: input.enabled,
          updatedAt: now,
        });
        await em.getRepository(PaymentMethodSetting).insert(row);
        return { outcome: 'done', value: settingToWire(input.payment_method, row) };
      } catch (err) {
        if (!this.db.isUniqueViolation(err)) throw err;
        row = await find();
        if (!row) throw err;
      }
    }
    await em
      .createQueryBuilder()
      .update(PaymentMethodSetting)
      .set({ enabled: input.enabled, updatedAt: now })
      .where('id = :id AND merchant_id = :merchantId AND environment = :environment', {
        id: row.id,
        merchantId: ctx.merchantId,
        environment: ctx.environment,
      })
      .execute();
    Object.assign(row, { enabled: input.enabled, updatedAt: now });
    return { outcome: 'done', value: settingToWire(input.payment_method, row) };
  }
}
