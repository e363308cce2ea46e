import fs from 'node:fs';
import crypto, { createHash, randomBytes } from 'node:crypto';
import { useCursorKeys } from '../../src/domain/list-cursor';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
/** The listing parser (src/domain/listing.ts) on its own: limits, cursors, filters, unknown parameters. */
import { DEFAULT_LIMIT, MAX_LIMIT, ListSpec, decodeCursor, encodeCursor, parseIsoInstant, parseListQuery, toPage } from '../../src/domain/listing';
import type { Scope } from '../../src/domain/scope';
import { expectValidation } from '../helpers/unit';

const scope: Scope = { merchantId: 'mer_a', environment: 'test' };
const [currentKey, previousKey] = [randomBytes(32), randomBytes(32)];
beforeAll(() => useCursorKeys([currentKey, previousKey]));
const spec: ListSpec = { resource: 'payout_intent', statuses: ['requires_approval', 'processing', 'succeeded', 'failed', 'cancelled'] };
const parse = (query: Record<string, unknown>, s: ListSpec = spec, sc: Scope = scope) => parseListQuery(query, s, sc);

describe('limit', () => {
  test('defaults to 25 with no filters', () => {
    expect(DEFAULT_LIMIT).toBe(25);
    expect(parse({})).toEqual({ limit: 25, extra: {} });
  });

  test.each(['1', '25', '99', '100', '007'])('%s is accepted as a number', (limit) => {
    expect(parse({ limit }).limit).toBe(Number(limit));
  });

  test.each(['0', '101', '1000', '-1', '1.5', '', ' 5', '5 ', 'ten', '1e2', '0x10'])('%j is refused naming limit', (limit) => {
    expectValidation(() => parse({ limit }), 'limit');
  });

  test('the maximum is 100', () => {
    expect(MAX_LIMIT).toBe(100);
  });

  test('given twice (an array from the query string) is refused naming limit', () => {
    expectValidation(() => parse({ limit: ['10', '20'] }), 'limit');
  });
});

describe('unknown parameters', () => {
  test('an unknown parameter is refused naming itself', () => {
    expectValidation(() => parse({ colour: 'red' }), 'colour');
  });

  test('unknown parameters are reported before bad values of known ones', () => {
    expectValidation(() => parse({ limit: '0', starting_after: 'x' }), 'starting_after');
  });

  test('environment is accepted and ignored', () => {
    expect(parse({ environment: 'live' })).toEqual({ limit: 25, extra: {} });
  });

  test('resources without country/currency/merchant_reference refuse those parameters', () => {
    const narrow: ListSpec = { ...spec, noCountryCurrency: true, noMerchantReference: true };
    expectValidation(() => parse({ country: 'TH' }, narrow), 'country');
    expectValidation(() => parse({ currency: 'THB' }, narrow), 'currency');
    expectValidation(() => parse({ merchant_reference: 'x' }, narrow), 'merchant_reference');
    expect(parse({ country: 'TH' }).country).toBe('TH');
  });
});

describe('status filter', () => {
  test('one status, a comma list with spaces, duplicates removed', () => {
    expect(parse({ status: 'processing' }).statuses).toEqual(['processing']);
    expect(parse({ status: 'processing, failed ,processing' }).statuses).toEqual(['processing', 'failed']);
  });

  test.each(['PROCESSING', 'done', 'processing,', '', 'processing,,failed'])('%j is refused naming status', (status) => {
    expectValidation(() => parse({ status }), 'status');
  });

  test("the statuses are the resource's own", () => {
    expectValidation(() => parse({ status: 'requires_action' }), 'status');
    expect(parse({ status: 'requires_action' }, { ...spec, statuses: ['requires_action'] }).statuses).toEqual(['requires_action']);
  });
});

describe('country, currency and merchant_reference', () => {
  test('valid values pass through unchanged', () => {
    expect(parse({ country: 'TH', currency: 'USDC', merchant_reference: 'ref-1' })).toMatchObject({
      country: 'TH',
      currency: 'USDC',
      merchantReference: 'ref-1',
    });
  });

  test.each([
    ['country', 'th'],
    ['country', 'THA'],
    ['currency', 'thb'],
    ['currency', 'TH'],
    ['currency', 'TOOLONG'],
  ])('%s=%j is refused', (name, value) => {
    expectValidation(() => parse({ [name]: value }), name);
  });

  test('merchant_reference is 1 to 256 characters, counted in code points', () => {
    expect(parse({ merchant_reference: 'x'.repeat(256) }).merchantReference).toHaveLength(256);
    expect(parse({ merchant_reference: '😀'.repeat(256) }).merchantReference).toBe('😀'.repeat(256));
    expectValidation(() => parse({ merchant_reference: 'x'.repeat(257) }), 'merchant_reference');
    expectValidation(() => parse({ merchant_reference: '' }), 'merchant_reference');
  });
});

describe('date filters', () => {
  test('created_gte and created_lt become epoch milliseconds, any offset', () => {
    const p = parse({ created_gte: '2026-01-31T23:59:59.000Z', created_lt: '2026-02-01T07:00:00+07:00' });
    expect(p.createdGte).toBe(Date.UTC(2026, 0, 31, 23, 59, 59));
    expect(p.createdLt).toBe(Date.UTC(2026, 1, 1, 0, 0, 0));
  });

  test('seconds and fractions are optional; sub-millisecond parts round up so bounds stay exact', () => {
    expect(parseIsoInstant('2026-01-01T00:00Z', 'x')).toBe(Date.UTC(2026, 0, 1));
    expect(parseIsoInstant('2026-01-01T00:00:00.123Z', 'x')).toBe(Date.UTC(2026, 0, 1) + 123);
    expect(parseIsoInstant('2026-01-01T00:00:00.123000Z', 'x')).toBe(Date.UTC(2026, 0, 1) + 123);
    expect(parseIsoInstant('2026-01-01T00:00:00.1230001Z', 'x')).toBe(Date.UTC(2026, 0, 1) + 124);
  });

  test.each([
    '2026-01-01',
    '2026-01-01T00:00:00',
    '2026-01-01 00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:60Z',
    '1767225600000',
    'yesterday',
  ])('%j is refused naming the parameter', (value) => {
    expectValidation(() => parse({ created_gte: value }), 'created_gte');
    expectValidation(() => parse({ created_lt: value }), 'created_lt');
  });

  test.each([
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-06-31T00:00:00Z',
    '2026-09-31T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00-05:60',
  ])('%j names no real instant (Date.parse would roll it over) and is refused', (value) => {
    expectValidation(() => parseIsoInstant(value, 'created_gte'), 'created_gte');
  });

  test.each([
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['2026-04-30T23:59:59.999Z', Date.UTC(2026, 3, 30, 23, 59, 59, 999)],
    ['2026-12-31T23:59:59+14:00', Date.UTC(2026, 11, 31, 9, 59, 59)],
    ['2026-01-01T00:00:00-23:59', Date.UTC(2026, 0, 1, 23, 59)],
  ])('%j is a real instant', (value, ms) => {
    expect(parseIsoInstant(value, 'x')).toBe(ms);
  });
});

describe('cursors', () => {
  const pos = { t: 1767225600123, id: 'po_01abc' };

  test('a cursor round-trips and becomes `after`', () => {
    const cursor = encodeCursor('payout_intent', scope, pos);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('payout_intent', scope, cursor)).toEqual(pos);
    expect(parse({ cursor }).after).toEqual(pos);
  });

  test('a cursor of another merchant, environment or resource is refused', () => {
    const cursor = encodeCursor('payout_intent', scope, pos);
    expectValidation(() => parse({ cursor }, spec, { merchantId: 'mer_b', environment: 'test' }), 'cursor');
    expectValidation(() => parse({ cursor }, spec, { merchantId: 'mer_a', environment: 'live' }), 'cursor');
    expectValidation(() => parse({ cursor }, { ...spec, resource: 'topup_intent' }), 'cursor');
  });

  test('malformed and forged cursors are refused', () => {
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const good = JSON.parse(Buffer.from(encodeCursor('payout_intent', scope, pos), 'base64url').toString('utf8'));
    // The old unkeyed form: a SHA-256 prefix of the scope anyone could compute.
    const unkeyed = forge([1, 'payout_intent', createHash('sha256').update('mer_a/test').digest('hex').slice(0, 16), pos.t, pos.id]);
    for (const cursor of [
      '',
      'not a cursor',
      'a'.repeat(513),
      '!!!!',
      forge('x'),
      forge([]),
      forge({ t: 1, id: 'x' }),
      unkeyed,
      forge([3, ...good.slice(1)]),
      forge([...good.slice(0, 2), pos.t + 1, ...good.slice(3)]),
      forge([...good.slice(0, 3), 'po_other', good[4]]),
      forge([...good.slice(0, 2), 1.5, ...good.slice(3)]),
      forge([...good.slice(0, 2), String(pos.t), ...good.slice(3)]),
      forge([...good.slice(0, 4), 'A'.repeat(22)]),
      forge([...good.slice(0, 4), 42]),
      forge([...good, 'extra']),
    ]) {
      expectValidation(() => parse({ cursor }), 'cursor');
    }
  });

  test('signed with the current key; a previous key still verifies; a key dropped from the ring does not', () => {
    const cursor = encodeCursor('payout_intent', scope, pos);
    useCursorKeys([randomBytes(32), currentKey]);
    expect(decodeCursor('payout_intent', scope, cursor)).toEqual(pos);
    useCursorKeys([randomBytes(32)]);
    expectValidation(() => decodeCursor('payout_intent', scope, cursor), 'cursor');
    useCursorKeys([currentKey, previousKey]);
  });

  test("a page signs each position once: GraphQL's endCursor is REST's nextCursor, not a second HMAC", () => {
    const rows = [0, 1, 2].map((i) => ({ id: `po_0${i}`, createdAt: new Date(pos.t - i) }));
    const hmacs = jest.spyOn(crypto, 'createHmac');
    try {
      const page = toPage(rows, { limit: 2, extra: {} }, 'payout_intent', scope, (row) => row.id);
      expect(hmacs).toHaveBeenCalledTimes(1);
      expect(page.cursorAt(1)).toBe(page.nextCursor);
      expect(page.cursorAt(0)).not.toBe(page.nextCursor);
      page.cursorAt(0);
      expect(hmacs).toHaveBeenCalledTimes(2);
      expect(decodeCursor('payout_intent', scope, page.cursorAt(1))).toEqual({ t: pos.t - 1, id: 'po_01' });
    } finally {
      hmacs.mockRestore();
    }
  });

  test('the error names the parameter it was given under (GraphQL `after`)', () => {
    expectValidation(() => decodeCursor('payout_intent', scope, 'junk!', 'after'), 'after');
  });
});

describe('resource-specific parameters', () => {
  const events: ListSpec = {
    resource: 'event',
    statuses: [],
    noCountryCurrency: true,
    noMerchantReference: true,
    extra: { type: { schema: Type.String({ pattern: '^[A-Za-z_.*]+$' }), parse: (v) => v.toLowerCase() } },
  };

  test('are accepted, validated and returned in `extra`', () => {
    expect(parse({ type: 'payout_intent.*' }, events).extra).toEqual({ type: 'payout_intent.*' });
    expectValidation(() => parse({ type: 'BAD TYPE' }, events), 'type');
    expect(parse({ type: 'Payout_Intent.*' }, events).extra).toEqual({ type: 'payout_intent.*' });
  });

  test('are unknown to resources that do not declare them', () => {
    expectValidation(() => parse({ type: 'payout_intent.created' }), 'type');
  });
});

describe('layering', () => {
  test('the listing rules import neither typeorm nor src/db (the SQL is src/db/list-query.ts)', () => {
    for (const file of ['listing.ts', 'list-cursor.ts']) {
      const text = fs.readFileSync(path.resolve(__dirname, '../../../src/domain', file), 'utf8');
      const specs = [...text.matchAll(/^\s*(?:import|export)\b[^;']*?'([^']+)'/gm)].map((m) => m[1]);
      expect(specs.length).toBeGreaterThan(2);
      expect(specs.filter((s) => s === 'typeorm' || s.startsWith('typeorm/') || s.startsWith('../db'))).toEqual([]);
    }
  });
});
