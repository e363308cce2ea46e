/**
 * `Date.prototype.toISOString()` without its cost. V8 formats an ISO instant in C++ through
 * its general date printer, about 0.5 µs a call; every wire record prints two (created_at,
 * updated_at): 50 calls for a 25-row page. This one takes about 0.1 µs.
 *
 * `isoInstant(d)` is the same string, computed with integer arithmetic: the civil date from the
 * day count (H. Hinnant's `civil_from_days`, exact for the proleptic Gregorian calendar that
 * ECMAScript uses; the date of the last day printed is kept, since a page's rows mostly share
 * a day), written as one string of 24 character codes (one allocation). Outside years
 * 0000-9999 (where toISOString prints a signed six-digit year) and for an invalid date
 * (RangeError) it defers to toISOString.
 * test/domain/instant.spec.ts checks it against toISOString over the whole range.
 */
const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

const ZERO = 48;

/** The day of the last instant printed, and its date's ten character codes (`2026-11-24`): rows of a page mostly share a day. */
let lastDay = NaN;
const dateCodes = new Array<number>(10).fill(ZERO);

function setDate(days: number): void {
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
  const digits = [
    Math.floor(year / 1000),
    Math.floor(year / 100) % 10,
    Math.floor(year / 10) % 10,
    year % 10,
    Math.floor(month / 10),
    month % 10,
    Math.floor(day / 10),
    day % 10,
  ];
  // yyyy-mm-dd: digits at 0-3, 5-6 and 8-9.
  [0, 1, 2, 3, 5, 6, 8, 9].forEach((at, i) => {
    dateCodes[at] = ZERO + digits[i];
  });
  dateCodes[4] = dateCodes[7] = 45; // -
  lastDay = days;
}

export function isoInstant(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= FIRST && ms <= LAST)) return date.toISOString();
  const days = Math.floor(ms / DAY_MS);
  if (days !== lastDay) setDate(days);
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const d = dateCodes;
  // One allocation: the 24 characters at once (a template literal built and then flattened
  // several intermediate strings per call).
  return String.fromCharCode(
    d[0],
    d[1],
    d[2],
    d[3],
    d[4],
    d[5],
    d[6],
    d[7],
    d[8],
    d[9],
    84 /* T */,
    ZERO + Math.floor(hours / 10),
    ZERO + (hours % 10),
    58 /* : */,
    ZERO + Math.floor(minutes / 10),
    ZERO + (minutes % 10),
    58,
    ZERO + Math.floor(seconds / 10),
    ZERO + (seconds % 10),
    46 /* . */,
    ZERO + Math.floor(millis / 100),
    ZERO + (Math.floor(millis / 10) % 10),
    ZERO + (millis % 10),
    90 /* Z */,
  );
}
