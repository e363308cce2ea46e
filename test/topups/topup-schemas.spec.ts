/** The topup create body as the pipeline checks it, and the normalised input parse makes of it. */
import { check } from '../../src/domain/schema';
import { CreateTopupIntentBody } from '../../src/modules/topups/topup.schemas';
import { parseCreateTopup } from '../../src/modules/topups/topup.service';
import { expectValidation } from '../helpers/unit';

const parse = (raw: unknown) => parseCreateTopup(check(CreateTopupIntentBody, raw, 'body'));
const valid = { amount: '1000', currency: 'THB', country: 'TH', merchant_reference: 'tu-1' };

describe('create topup body', () => {
  test('normalises amount, currency and country; environment is ignored', () => {
    expect(parse({ ...valid, amount: '0001000', currency: ' thb ', country: 'th', environment: 'live' })).toEqual({
      amount: 1000n,
      currency: 'THB',
      country: 'TH',
      merchant_reference: 'tu-1',
    });
    expect(parse({ ...valid, merchant_reference: '😀'.repeat(256) }).merchant_reference).toHaveLength(512);
  });

  test.each([
    ['missing amount', { amount: undefined }, 'amount'],
    ['numeric amount', { amount: 100 }, 'amount'],
    ['zero amount', { amount: '000' }, 'amount'],
    ['decimal amount', { amount: '10.5' }, 'amount'],
    ['31-digit amount', { amount: '1' + '0'.repeat(30) }, 'amount'],
    ['bad currency', { currency: 'TH1' }, 'currency'],
    ['null currency', { currency: null }, 'currency'],
    ['bad country', { country: 'THA' }, 'country'],
    ['empty merchant_reference', { merchant_reference: '' }, 'merchant_reference'],
    ['too long merchant_reference', { merchant_reference: 'x'.repeat(257) }, 'merchant_reference'],
    ['unknown field', { colour: 'red' }, 'colour'],
  ])('%s -> validation_error naming %s', (_name, overrides, param) => {
    const raw: Record<string, unknown> = { ...valid, ...overrides };
    for (const k of Object.keys(raw)) if (raw[k] === undefined) delete raw[k];
    expectValidation(() => parse(raw), param);
  });

  test('the body must be an object', () => {
    for (const raw of [undefined, null, ['x'], 'x']) expectValidation(() => parse(raw), 'body');
  });
});
