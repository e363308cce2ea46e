/** Wire amounts (the `Amount` schema, src/domain/money.ts): digits only, positive, at most 30 significant digits, exact. */
import { Amount, amountOf, Obj } from '../../src/domain/fields';
import { MAX_AMOUNT_DIGITS, formatAmount } from '../../src/domain/money';
import { check } from '../../src/domain/schema';
import { expectValidation } from '../helpers/unit';

const AmountBody = Obj({ amount: Amount });
/** An amount as a create body carries it: checked by the schema, then read exactly. */
const parseAmount = (value: unknown): bigint => amountOf(check(AmountBody, { amount: value }, 'body').amount);

describe('the Amount schema', () => {
  test('parses digit strings into exact bigints, dropping leading zeros', () => {
    expect(parseAmount('1000')).toBe(1000n);
    expect(parseAmount('0001')).toBe(1n);
    expect(parseAmount('9'.repeat(30))).toBe(10n ** 30n - 1n);
    expect(parseAmount('000' + '9'.repeat(30))).toBe(10n ** 30n - 1n);
  });

  test('30 significant digits is the limit', () => {
    expect(MAX_AMOUNT_DIGITS).toBe(30);
    expect(parseAmount('1' + '0'.repeat(29))).toBe(10n ** 29n);
    expectValidation(() => parseAmount('1' + '0'.repeat(30)), 'amount');
  });

  test.each(['0', '000', ''])('%j is not greater than zero', (value) => {
    expectValidation(() => parseAmount(value), 'amount');
  });

  test.each(['-1', '+1', '1.5', '1,000', ' 1', '1 ', '1e3', '０１', '0x10', '١٢'])('%j is refused', (value) => {
    expectValidation(() => parseAmount(value), 'amount');
  });

  test.each([1000, null, ['1'], { amount: '1' }])('non-string %p is refused', (value) => {
    expectValidation(() => parseAmount(value), 'amount');
  });

  test('absent is refused as required', () => {
    expectValidation(() => parseAmount(undefined), 'amount');
  });
});

describe('formatAmount', () => {
  test('writes decimal digits, exactly, and round-trips through parseAmount', () => {
    expect(formatAmount(0n)).toBe('0');
    for (const s of ['1', '1000', '9'.repeat(30), '123456789012345678901234567890']) {
      expect(formatAmount(parseAmount(s))).toBe(s);
    }
    expect(formatAmount(10n ** 40n)).toBe('1' + '0'.repeat(40));
  });
});
