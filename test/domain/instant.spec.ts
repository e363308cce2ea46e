/** isoInstant (src/domain/instant.ts) prints exactly what Date.prototype.toISOString() prints. */
import fc from 'fast-check';
import { isoInstant } from '../../src/domain/instant';
import { scaled } from '../helpers/scale';

const YEAR_0 = new Date('0000-01-01T00:00:00.000Z').getTime();
const YEAR_9999_END = new Date('9999-12-31T23:59:59.999Z').getTime();

test('the same string as toISOString at any millisecond of years 0000-9999', () => {
  fc.assert(
    fc.property(fc.integer({ min: YEAR_0, max: YEAR_9999_END }), (ms) => isoInstant(new Date(ms)) === new Date(ms).toISOString()),
    { numRuns: scaled(50_000) },
  );
});

test('every day boundary, leap day and month end from 1899 to 2401, and the range ends', () => {
  const cases = [YEAR_0, YEAR_0 - 1, YEAR_0 + 1, YEAR_9999_END, YEAR_9999_END + 1, 0, -1, 951_782_400_000 /* 2000-02-29 */];
  for (let ms = Date.UTC(1899, 0, 1); ms <= Date.UTC(2401, 0, 1); ms += 86_400_000) cases.push(ms, ms - 1);
  const wrong = cases.filter((ms) => isoInstant(new Date(ms)) !== new Date(ms).toISOString());
  expect(cases.length).toBeGreaterThan(360_000);
  expect(wrong.map((ms) => new Date(ms).toISOString())).toEqual([]);
});

test('outside years 0000-9999 the signed six-digit year of toISOString; an invalid date throws as toISOString does', () => {
  expect(isoInstant(new Date(YEAR_0 - 1))).toBe('-000001-12-31T23:59:59.999Z');
  expect(isoInstant(new Date(YEAR_9999_END + 1))).toBe('+010000-01-01T00:00:00.000Z');
  expect(() => isoInstant(new Date(NaN))).toThrow(RangeError);
});
