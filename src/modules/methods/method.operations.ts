/** The method-settings operation: what it parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import { MethodSettings, parseSettingUpdate } from './method-settings.service';
import { UpdatePaymentMethodSettingBody } from './method.schemas';

export function methodOperations(settings: MethodSettings) {
  return {
    updateSetting: defineOperation({
      name: 'method.setting.update',
      label: 'POST /v1/payment_method_settings/:payment_method',
      ...withBody(UpdatePaymentMethodSettingBody, (body, { payment_method }: { payment_method: string }) => parseSettingUpdate(payment_method, body)),
      execute: (em, ctx, input) => settings.update(em, ctx, input),
    }),
  };
}
