/** Fee arithmetic: half-up rounding, and fee + tax + net = amount exactly for every amount and rate. */
import fc from 'fast-check';
import { bpsOf, feeSplit, MAX_BPS } from '../../src/domain/fees';

const amount = fc.bigInt({ min: 1n, max: 10n ** 30n - 1n });
const rate = fc.record({
  percentBps: fc.integer({ min: 0, max: MAX_BPS }),
  fixed: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  taxBps: fc.integer({ min: 0, max: MAX_BPS }),
});

describe('bpsOf', () => {
  test('rounds half-up to a whole minor unit', () => {
    expect(bpsOf(10_000n, 165)).toBe(165n); // 165.0
    expect(bpsOf(50n, 100)).toBe(1n); // 0.5 -> 1
    expect(bpsOf(49n, 100)).toBe(0n); // 0.49 -> 0
    expect(bpsOf(150n, 100)).toBe(2n); // 1.5 -> 2
    expect(bpsOf(165n, 700)).toBe(12n); // 11.55 -> 12
    expect(bpsOf(0n, 700)).toBe(0n);
  });

  test('is within half a minor unit of the exact value', () => {
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: MAX_BPS }), (v, bps) => {
        const r = bpsOf(v, bps);
        const exact2 = v * BigInt(bps) * 2n; // 2 * 10000 * exact
        expect(r * 20_000n - exact2 <= 10_000n).toBe(true);
        expect(exact2 - r * 20_000n < 10_000n).toBe(true);
      }),
    );
  });
});

describe('feeSplit', () => {
  test('the worked example of docs/finance.md: 500.00 THB by PromptPay at 1.65% + VAT 7%', () => {
    expect(feeSplit(50_000n, { percentBps: 165, fixed: 0n, taxBps: 700 }, true)).toEqual({ fee: 825n, tax: 58n, net: 49_117n });
  });

  test('fee + tax + net = amount exactly, for every amount and rate, capped or not', () => {
    fc.assert(
      fc.property(amount, rate, fc.boolean(), (a, r, capped) => {
        const { fee, tax, net } = feeSplit(a, r, capped);
        expect(fee + tax + net).toBe(a);
        expect(fee >= 0n && tax >= 0n).toBe(true);
        if (capped) expect(net >= 0n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  test('uncapped: the fee is the rate, the tax half-up of the fee', () => {
    fc.assert(
      fc.property(amount, rate, (a, r) => {
        const { fee, tax } = feeSplit(a, r, false);
        expect(fee).toBe(bpsOf(a, r.percentBps) + r.fixed);
        expect(tax).toBe(bpsOf(fee, r.taxBps));
      }),
    );
  });

  test('capped: a fee above the amount takes all of it, split by the tax rate', () => {
    expect(feeSplit(100n, { percentBps: 0, fixed: 2500n, taxBps: 700 }, true)).toEqual({ fee: 93n, tax: 7n, net: 0n });
    expect(feeSplit(1n, { percentBps: 0, fixed: 5n, taxBps: 0 }, true)).toEqual({ fee: 1n, tax: 0n, net: 0n });
  });
});
