/** Formula cells: what neutralise leaves alone and what it prefixes with a quote. */
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { neutralise } from '../../src/modules/finance/report-sources';

test('cells a spreadsheet would run as formulas get a leading quote; amounts and plain text do not', () => {
  for (const cell of ['=1+1', '+cmd', '-2+3', '@SUM(A1)', '\tTAB', '\rCR', '-', '=']) expect(neutralise(cell)).toBe(`'${cell}`);
  for (const cell of ['-883', '0', '12345', 'order-1', 'สมชาย', 'a=b', '']) expect(neutralise(cell)).toBe(cell);
  expect(neutralise(null)).toBe('');
  expect(neutralise(-5)).toBe('-5');
});

test('RFC 4180 round trip: quotes, commas, newlines and UTF-8 come back as written (neutralised)', () => {
  const row = ['a,b', 'say "hi"', 'two\nlines', 'ไทย 😀', '=x', '\r\nCRLF'];
  const back: string[] = parse(stringify([row.map(neutralise)]))[0];
  expect(back).toEqual(['a,b', 'say "hi"', 'two\nlines', 'ไทย 😀', "'=x", "'\r\nCRLF"]);
});
