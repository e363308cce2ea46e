/** Minor units -> human amounts (src/domain/currency.ts), by string arithmetic. */
import { exponentOf, formatForDisplay, toMajorString } from '../../src/domain/currency';

test('exponents: 2 by default (also for token symbols), 0 and 3 where ISO 4217 says so', () => {
  expect(exponentOf('THB')).toBe(2);
  expect(exponentOf('USD')).toBe(2);
  expect(exponentOf('USDC')).toBe(2);
  expect(exponentOf('JPY')).toBe(0);
  expect(exponentOf('KRW')).toBe(0);
  expect(exponentOf('KWD')).toBe(3);
  expect(exponentOf('BHD')).toBe(3);
});

describe('toMajorString (EMVCo field 54 form)', () => {
  test.each([
    [15050n, 'THB', '150.50'],
    [100n, 'THB', '1.00'],
    [1n, 'THB', '0.01'],
    [10n, 'THB', '0.10'],
    [0n, 'THB', '0.00'],
    [5n, 'JPY', '5'],
    [0n, 'JPY', '0'],
    [1234n, 'JPY', '1234'],
    [1n, 'KWD', '0.001'],
    [1234567n, 'KWD', '1234.567'],
  ])('%s %s is %s', (amount, currency, expected) => {
    expect(toMajorString(amount, currency)).toBe(expected);
  });

  test('30-digit amounts stay exact (no JavaScript number in between)', () => {
    expect(toMajorString(999999999999999999999999999999n, 'THB')).toBe('9999999999999999999999999999.99');
    expect(toMajorString(123456789012345678901234567891n, 'IDR')).toBe('1234567890123456789012345678.91');
  });
});

describe('formatForDisplay', () => {
  test.each([
    [1234550n, 'THB', '12,345.50 THB'],
    [100n, 'THB', '1.00 THB'],
    [99n, 'THB', '0.99 THB'],
    [100000n, 'THB', '1,000.00 THB'],
    [1234567n, 'JPY', '1,234,567 JPY'],
    [999n, 'JPY', '999 JPY'],
    [1000n, 'JPY', '1,000 JPY'],
    [1234567n, 'KWD', '1,234.567 KWD'],
    [999999999999999999999999999999n, 'USD', '9,999,999,999,999,999,999,999,999,999.99 USD'],
  ])('%s %s is %s', (amount, currency, expected) => {
    expect(formatForDisplay(amount, currency)).toBe(expected);
  });
});
