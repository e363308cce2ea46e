/** Wire amounts (src/domain/money.ts): digits only, positive, at most 30 significant digits, exact. */
import { MAX_AMOUNT_DIGITS, formatAmount, parseAmount } from '../../src/domain/money';
import { expectValidation } from '../helpers/unit';

describe('parseAmount', () => {
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

  test.each([1000, 1000n, null, undefined, ['1'], { amount: '1' }])('non-string %p is refused', (value) => {
    expectValidation(() => parseAmount(value), 'amount');
  });

  test('the error names the given parameter', () => {
    expectValidation(() => parseAmount('x', 'min_amount'), 'min_amount');
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
