/** The methods module's schemas: the discovery query, the method-setting body, the wire records. */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { bodyMayBeAbsent } from '../../src/domain/fields';
import { check } from '../../src/domain/schema';
import { parseDiscoveryQuery } from '../../src/modules/methods/method-query';
import { METHOD_MODELS, UpdatePaymentMethodSettingBody } from '../../src/modules/methods/method.schemas';
import { parseSettingUpdate } from '../../src/modules/methods/method-settings.service';
import { expectValidation } from '../helpers/unit';

describe('discovery query', () => {
  test('no parameters: direct checkout, no other criterion', () => {
    expect(parseDiscoveryQuery({})).toEqual({ checkoutMode: 'direct' });
    expect(parseDiscoveryQuery({ environment: 'live' })).toEqual({ checkoutMode: 'direct' });
  });

  test('values are trimmed and normalised as before the schema', () => {
    expect(parseDiscoveryQuery({ amount: '0050000', currency: ' thb ', country: 'th', checkout_mode: ' Hosted ', provider: ' SiamPay ' })).toEqual({
      amount: 50000n,
      currency: 'THB',
      country: 'TH',
      checkoutMode: 'hosted',
      provider: 'siampay',
    });
    expect(parseDiscoveryQuery({ currency: 'usdc' }).currency).toBe('USDC');
    expect(parseDiscoveryQuery({ provider: 'a'.repeat(64) }).provider).toHaveLength(64);
  });

  test.each([
    [{ amount: 'abc', currency: 'THB' }, 'amount'],
    [{ amount: '0', currency: 'THB' }, 'amount'],
    [{ amount: '-5', currency: 'THB' }, 'amount'],
    [{ amount: '1' + '0'.repeat(30), currency: 'THB' }, 'amount'],
    [{ amount: '1000' }, 'currency'],
    [{ currency: 'TH1' }, 'currency'],
    [{ currency: '' }, 'currency'],
    [{ country: 'THA' }, 'country'],
    [{ checkout_mode: 'popup' }, 'checkout_mode'],
    [{ checkout_mode: '' }, 'checkout_mode'],
    [{ provider: 'Bad Provider!' }, 'provider'],
    [{ provider: '' }, 'provider'],
    [{ provider: 'a'.repeat(65) }, 'provider'],
    [{ limit: '5' }, 'limit'],
    [{ amount: ['1', '2'], currency: 'THB' }, 'amount'],
  ])('%j -> validation_error naming %s', (query, param) => {
    expectValidation(() => parseDiscoveryQuery(query), param);
  });

  test('amount without currency names currency and says why', () => {
    expect(expectValidation(() => parseDiscoveryQuery({ amount: '1000' }), 'currency').message).toBe('currency is required when amount is given.');
  });
});

describe('method-setting body', () => {
  const body = (raw: unknown) => check(UpdatePaymentMethodSettingBody, raw === undefined && bodyMayBeAbsent(UpdatePaymentMethodSettingBody) ? {} : raw, 'body');

  test('enabled is a required boolean; environment is ignored; nothing else', () => {
    expect(parseSettingUpdate('promptpay', body({ enabled: false }))).toEqual({ payment_method: 'promptpay', enabled: false });
    expect(parseSettingUpdate('promptpay', body({ enabled: true, environment: 'live' }))).toEqual({
      payment_method: 'promptpay',
      enabled: true,
    });
    for (const enabled of ['no', 'true', 1, null]) expectValidation(() => body({ enabled }), 'enabled');
    expectValidation(() => body({}), 'enabled');
    expectValidation(() => body({ enabled: true, provider: 'siampay' }), 'provider');
    expectValidation(() => body(undefined), 'body');
  });

  test('a method outside the catalogue is not_found', () => {
    expect(() => parseSettingUpdate('cash', body({ enabled: true }))).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('wire models', () => {
  const ajv = addFormats(new Ajv({ strict: false }), ['date-time', 'uri']);
  for (const m of METHOD_MODELS) ajv.addSchema(m);
  const valid = (id: string, value: unknown) => ajv.validate(id, value);
  const expiresAt = '2026-01-31T23:59:59.000Z';

  test('NextAction: each type with its details, exactly', () => {
    expect(valid('NextAction', { type: 'redirect_to_url', url: 'http://localhost:4000/checkout/abc/authorize', expires_at: expiresAt })).toBe(true);
    expect(
      valid('NextAction', {
        type: 'display_qr_code',
        expires_at: expiresAt,
        display_qr_code: { data: '000201', image_url_svg: 'data:image/svg+xml;base64,AA' },
      }),
    ).toBe(true);
    const transfer = {
      bank: 'KBANK',
      bank_name: 'Kasikornbank',
      account_number: '0011223344',
      account_name: 'Funds',
      reference: 'TU123',
      amount: '1000',
      currency: 'THB',
    };
    expect(
      valid('NextAction', {
        type: 'display_bank_transfer_instructions',
        expires_at: expiresAt,
        display_bank_transfer_instructions: transfer,
      }),
    ).toBe(true);
    expect(valid('NextAction', { type: 'display_qr_code', expires_at: expiresAt, display_bank_transfer_instructions: transfer })).toBe(false);
    expect(valid('NextAction', { type: 'redirect_to_url', url: 'x', expires_at: expiresAt, extra: 1 })).toBe(false);
    expect(valid('NextAction', null)).toBe(false);
  });

  test('PaymentMethodOption and PaymentMethodSetting', () => {
    expect(
      valid('PaymentMethodOption', {
        object: 'payment_method_option',
        payment_method: 'bank_transfer',
        bank: 'KBANK',
        display_name: 'Bank transfer - Kasikornbank',
        next_action_type: 'display_bank_transfer_instructions',
        min_amount: '2000',
        max_amount: '50000000',
        options: { payer: { bank: { required: true } } },
      }),
    ).toBe(true);
    expect(
      valid('PaymentMethodOption', {
        object: 'payment_method_option',
        payment_method: 'direct_debit',
        bank: null,
        display_name: 'Direct debit',
        next_action_type: null,
        min_amount: null,
        max_amount: null,
        options: { payer: { provider_code: { required: true } } },
      }),
    ).toBe(false);
    expect(
      valid('PaymentMethodSetting', {
        object: 'payment_method_setting',
        payment_method: 'promptpay',
        display_name: 'PromptPay QR',
        enabled: true,
        updated_at: null,
      }),
    ).toBe(true);
    expect(
      valid('PaymentMethodSetting', {
        object: 'payment_method_setting',
        payment_method: 'cash',
        display_name: 'Cash',
        enabled: true,
        updated_at: null,
      }),
    ).toBe(false);
  });
});
