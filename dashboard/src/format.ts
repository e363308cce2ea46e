/**
 * Amounts come from the GraphQL `Money` fields (`decimal`: major units with exactly
 * `exponent` fraction digits, no grouping): the dashboard groups the digits and never turns
 * them into a JavaScript number, and carries no currency table of its own.
 */
export interface MoneyParts {
  decimal: string;
  currency: string;
}

export function money(m: MoneyParts): string {
  const negative = m.decimal.startsWith('-');
  const [whole, fraction] = (negative ? m.decimal.slice(1) : m.decimal).split('.');
  if (!/^\d+$/.test(whole)) return `${m.decimal} ${m.currency}`;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${fraction === undefined ? grouped : `${grouped}.${fraction}`} ${m.currency}`;
}

/** A minor-unit string (an event's raw object) as Money, given the currency's exponent (from a Money field). */
export function fromMinor(amount: string, currency: string, exponent: number): MoneyParts {
  if (!/^-?\d+$/.test(amount) || exponent === 0) return { decimal: amount, currency };
  const negative = amount.startsWith('-');
  const digits = (negative ? amount.slice(1) : amount).padStart(exponent + 1, '0');
  const decimal = `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return { decimal: negative ? `-${decimal}` : decimal, currency };
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}

/** The server counts a reason in code points (src/domain/validation.ts CANCEL_REASON_MAX); so does this. */
export const REASON_MAX = 512;
export const codePoints = (s: string): number => [...s].length;

export const label = (status: string): string => status.toLowerCase().replace(/_/g, ' ');

/** The id of the object an event is about ('' when it has none); ids are strings on the wire. */
export function objectIdOf(e: { data: { object: Record<string, unknown> } }): string {
  const id = e.data.object.id;
  return typeof id === 'string' ? id : '';
}

/**
 * A User-Agent header as people say it: "Firefox 128 on macOS". The browser is the first
 * known product in the order that tells them apart (Edge and Opera also say Chrome; Chrome
 * also says Safari); a string naming none is shown as "Other browser".
 */
export function browserAndOs(ua: string | null | undefined): string {
  if (!ua) return 'Unknown browser';
  const browsers: [RegExp, string][] = [
    [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
    [/OPR\/(\d+)/, 'Opera'],
    [/Firefox\/(\d+)/, 'Firefox'],
    [/FxiOS\/(\d+)/, 'Firefox'],
    [/CriOS\/(\d+)/, 'Chrome'],
    [/Chrom(?:e|ium)\/(\d+)/, 'Chrome'],
    [/Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
  ];
  const systems: [RegExp, string][] = [
    [/Windows/, 'Windows'],
    [/iPhone|iPad|iPod/, 'iOS'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/Android/, 'Android'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ];
  const found = browsers.find(([re]) => re.test(ua));
  const browser = found ? `${found[1]} ${ua.match(found[0])![1]}` : 'Other browser';
  const system = systems.find(([re]) => re.test(ua));
  return system ? `${browser} on ${system[1]}` : browser;
}
