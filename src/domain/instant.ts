/**
 * `Date.prototype.toISOString()` without its cost. V8 formats an ISO instant in C++ through
 * its general date printer, about 0.5 µs a call; every wire record prints two (created_at,
 * updated_at): 50 calls for a 25-row page. This one takes about 0.1 µs.
 *
 * `isoInstant(d)` is the same string, computed with integer arithmetic: the civil date from the
 * day count (H. Hinnant's `civil_from_days`, exact for the proleptic Gregorian calendar that
 * ECMAScript uses; the date part of the last day printed is kept, since a page's rows mostly
 * share a day) and zero-padded fields from tables made once. Outside years 0000-9999 (where toISOString prints
 * a signed six-digit year) and for an invalid date (RangeError) it defers to toISOString.
 * test/domain/instant.spec.ts checks it against toISOString over the whole range.
 */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');
/** Zero-padded 00-59 and 000-999, made once. */
const TWO = Array.from({ length: 60 }, (_, n) => pad(n, 2));
const THREE = Array.from({ length: 1000 }, (_, n) => pad(n, 3));

/** The date part (`2026-11-24T`) of the last day printed: rows of a page mostly share a day. */
let lastDay = NaN;
let lastPrefix = '';

function datePrefix(days: number): string {
  // civil_from_days: eras of 400 years (146,097 days) starting on 0000-03-01.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad(year, 4)}-${TWO[month]}-${TWO[day]}T`;
}

export function isoInstant(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= FIRST && ms <= LAST)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay) {
    lastPrefix = datePrefix(days);
    lastDay = days;
  }
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastPrefix}${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1000]}Z`;
}
