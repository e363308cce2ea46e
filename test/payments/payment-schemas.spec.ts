/** The payment create body's schema, checked as the pipeline checks a body, and the normalisation after it. */
import { check } from '../../src/domain/schema';
import { parseCheckoutForm, parseCreatePayment } from '../../src/modules/payments/payment.input';
import { CreatePaymentIntentBody } from '../../src/modules/payments/payment-request.schemas';
import { expectValidation } from '../helpers/unit';

const base = { amount: '50000', currency: 'THB', country: 'TH', merchant_reference: 'r-1', customer: { name: 'A' } };
const valid = (extra: Record<string, unknown> = {}) => check(CreatePaymentIntentBody, { ...base, ...extra }, 'body');
const invalid = (extra: Record<string, unknown>, param: string) => expectValidation(() => valid(extra), param);

describe('customer', () => {
  test('at least one field with a value; null means omitted', () => {
    valid({ customer: { reference: 'c' } });
    valid({ customer: { name: null, email: 'a@b.co' } });
    for (const customer of [{}, { name: null }, { name: null, email: null, phone: null, reference: null }]) {
      expect(invalid({ customer }, 'customer').message).toBe('customer must contain at least one of name, email, phone, reference.');
    }
    // An unknown field is named even when no known field has a value.
    invalid({ customer: { nickname: 'B' } }, 'customer.nickname');
    invalid({ customer: { name: null, nickname: 'B' } }, 'customer.nickname');
  });

  test('e-mail: a domain ending in two letters, surrounding spaces allowed; normalised', () => {
    expect(parseCreatePayment(valid({ customer: { email: ' Somchai@EXAMPLE.com ' } })).customer).toEqual({ email: 'Somchai@example.com' });
    for (const email of ['nope', 'a@localhost', 'a@b.c', 'a b@c.co', 'a@@b.co', '']) invalid({ customer: { email } }, 'customer.email');
  });

  test('phone: E.164 once spaces, hyphens, dots and brackets are removed', () => {
    expect(parseCreatePayment(valid({ customer: { phone: ' +66 (81) 234-56.78 ' } })).customer).toEqual({ phone: '+66812345678' });
    valid({ customer: { phone: '+1234567' } });
    valid({ customer: { phone: '+123456789012345' } });
    for (const phone of ['0812345678', '+66abc12345', '+6612', '+0812345678', '+1234567890123456', '66+812345678', `+66${' '.repeat(40)}812345678`]) {
      invalid({ customer: { phone } }, 'customer.phone');
    }
  });

  test('name: not blank, runs of spaces collapsed; the limit counts the characters as sent', () => {
    expect(parseCreatePayment(valid({ customer: { name: '  Somchai   Jaidee ' } })).customer).toEqual({ name: 'Somchai Jaidee' });
    valid({ customer: { name: 'x'.repeat(256) } });
    invalid({ customer: { name: 'x'.repeat(257) } }, 'customer.name');
    invalid({ customer: { name: ' \t ' } }, 'customer.name');
  });
});

describe('payment_method_options', () => {
  test('account_number: 6 to 20 digits once spaces and hyphens are removed', () => {
    const opts = (account_number: string) => ({ payment_method_options: { account_number } });
    expect(parseCreatePayment(valid(opts(' 123-456 7890 '))).payment_method_options).toEqual({ account_number: '1234567890' });
    valid(opts('123456'));
    valid(opts('1'.repeat(20)));
    for (const n of ['12345', '1'.repeat(21), '12ab56', '-----', '１２３４５６']) invalid(opts(n), 'payment_method_options.account_number');
  });

  test('bank: trimmed and upper-cased; name_th: Thai script', () => {
    expect(parseCreatePayment(valid({ payment_method_options: { bank: ' kbank ', name_th: ' สมชาย   ใจดี ' } })).payment_method_options).toEqual({
      bank: 'KBANK',
      name_th: 'สมชาย ใจดี',
    });
    for (const bank of ['K', '1BANK', 'K-BANK', 'K'.repeat(33)]) invalid({ payment_method_options: { bank } }, 'payment_method_options.bank');
    for (const name_th of ['Somchai', '.สมชาย', 'สมชาย1', '']) invalid({ payment_method_options: { name_th } }, 'payment_method_options.name_th');
  });

  test('the discovery object and record are named with a hint', () => {
    expect(invalid({ payment_method_options: { payer: {} } }, 'payment_method_options.payer').message).toContain('customer_name -> customer.name');
    expect(invalid({ options: null }, 'options').message).toContain('must not be sent back');
  });
});

describe('checkout_mode', () => {
  test('direct or hosted, trimmed and case-insensitive; default direct', () => {
    expect(parseCreatePayment(valid()).checkout_mode).toBe('direct');
    expect(parseCreatePayment(valid({ checkout_mode: null })).checkout_mode).toBe('direct');
    expect(parseCreatePayment(valid({ checkout_mode: ' Hosted ' })).checkout_mode).toBe('hosted');
    for (const checkout_mode of ['popup', '', true, 'hosted-ish']) invalid({ checkout_mode }, 'checkout_mode');
  });

  test('hosted names no method and no options (null and an empty object are omitted)', () => {
    valid({ checkout_mode: 'HOSTED', payment_method: null, payment_method_options: { bank: null } });
    valid({ checkout_mode: 'hosted', payment_method_options: {} });
    expect(invalid({ checkout_mode: 'hosted', payment_method: 'promptpay' }, 'payment_method').message).toContain('Omit payment_method');
    expect(invalid({ checkout_mode: ' hosted', payment_method_options: { bank: 'KBANK' } }, 'payment_method_options').message).toContain(
      'Omit payment_method_options',
    );
    // direct may name both.
    valid({ checkout_mode: 'direct', payment_method: 'bank_transfer', payment_method_options: { bank: 'KBANK' } });
  });
});

describe('return_url', () => {
  const accepted = [
    'https://shop.example/return',
    'http://localhost:3000/r?x=1#top',
    'HTTPS://Shop.Example',
    'https://shop.example.:443/',
    'http://1.2.3.4/r',
    'https://a-b.c0.example/ä?q=1',
    'https://shop.example:65535',
  ];
  const refused = [
    '/thanks',
    'javascript:alert(1)',
    'https://user:pw@shop.example/',
    'https://@shop.example/',
    'ftp://shop.example/',
    ' https://shop.example/',
    'https://shop.example/a b',
    'http:shop.example',
    'https://shop.example:65536/',
    'https://256.1.1.1/',
    'https://1.2.3.4.5/',
    'https://shop.1/',
    'https://xn--a.com/',
    'https://xn--ls8h.la/',
    'https://[::1]/',
    'https://',
    'https:///x',
    `https://shop.example/${'x'.repeat(2030)}`,
  ];

  test('an absolute http(s) URL without credentials, stored as sent', () => {
    for (const url of accepted) expect(parseCreatePayment(valid({ return_url: url })).return_url).toBe(url);
    for (const url of refused) invalid({ return_url: url }, 'return_url');
  });

  test('whatever the schema accepts, the hosted page can parse (it appends the outcome)', () => {
    for (const url of accepted) expect(() => new URL(url)).not.toThrow();
  });
});

describe('metadata and the other optional fields', () => {
  test('metadata: up to 50 keys of 1 to 40 characters, string values up to 500', () => {
    valid({ metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'.repeat(500)])) });
    invalid({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata');
    invalid({ metadata: { ['k'.repeat(41)]: 'v' } }, `metadata.${'k'.repeat(41)}`);
    invalid({ metadata: { '': 'v' } }, 'metadata.');
    invalid({ metadata: { note: 'v'.repeat(501) } }, 'metadata.note');
    invalid({ metadata: { order: null } }, 'metadata.order');
    expect(parseCreatePayment(valid({ metadata: null })).metadata).toEqual({});
  });

  test('null optional fields are omitted; empty strings are refused', () => {
    const input = parseCreatePayment(
      valid({ payment_method: null, return_url: null, device_fingerprint: null, external_reference: null, payment_method_options: null }),
    );
    expect(input).toMatchObject({
      payment_method: null,
      return_url: null,
      device_fingerprint: null,
      external_reference: null,
      payment_method_options: {},
    });
    for (const name of ['payment_method', 'return_url', 'device_fingerprint', 'external_reference']) invalid({ [name]: '' }, name);
  });

  test('payment_method: a well-formed name, trimmed and lower-cased', () => {
    expect(parseCreatePayment(valid({ payment_method: ' Bank_Transfer ' })).payment_method).toBe('bank_transfer');
    valid({ payment_method: 'x'.repeat(40) });
    for (const m of ['Prompt Pay!', '1pay', 'x'.repeat(41)]) invalid({ payment_method: m }, 'payment_method');
  });
});

describe('the hosted page form uses the same schemas', () => {
  test('valid fields are normalised; invalid ones are reported by their form name', () => {
    expect(parseCheckoutForm({ payment_method: 'Bank_Transfer', bank: 'kbank', account_name: ' A  B ', account_number: '123-4567' })).toEqual({
      selection: { method: 'bank_transfer', bank: 'KBANK', payer: { account_name: 'A B', account_number: '1234567', bank: 'KBANK' } },
      errors: {},
    });
    const { selection, errors } = parseCheckoutForm({ payment_method: 'promptpay', customer_phone: '0812', name_th: 'Somchai' });
    expect(selection).toBeUndefined();
    expect(Object.keys(errors).sort()).toEqual(['customer_phone', 'name_th']);
    expect(errors.customer_phone).toMatch(/^customer_phone /);
  });
});
