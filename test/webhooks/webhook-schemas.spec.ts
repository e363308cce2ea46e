/**
 * The webhook endpoint create body (src/modules/webhooks/webhook.schemas.ts), checked as the
 * pipeline checks it, and its normalisation: whatever the schema accepts, the WHATWG URL
 * parser accepts too, and the stored form fits the column.
 */
import { check } from '../../src/domain/schema';
import { CreateWebhookEndpointBody, URL_MAX, URL_PATTERN } from '../../src/modules/webhooks/webhook.schemas';
import { parseCreateEndpoint } from '../../src/modules/webhooks/webhook.wire';
import { expectValidation } from '../helpers/unit';

const create = (raw: unknown) => parseCreateEndpoint(check(CreateWebhookEndpointBody, raw, 'body'));
const url = (u: string) => create({ url: u }).url;

describe('url', () => {
  test('absolute http(s) URLs are accepted and stored normalised', () => {
    expect(url('https://hooks.example.com:8443/path?q=1')).toBe('https://hooks.example.com:8443/path?q=1');
    expect(url('http://example.com')).toBe('http://example.com/');
    expect(url('HTTPS://Example.COM:443/A#frag')).toBe('https://example.com/A#frag');
    expect(url('http://[::1]:8080/x')).toBe('http://[::1]:8080/x');
    expect(url('http://[::ffff:127.0.0.1]/')).toBe('http://[::ffff:7f00:1]/');
    expect(url('http://127.0.0.1:3000/hook')).toBe('http://127.0.0.1:3000/hook');
    expect(url('https://a_b.example-1.com./x')).toBe('https://a_b.example-1.com./x');
  });

  test.each([
    '/relative',
    'not a url',
    '',
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'gopher://example.com',
    'https://user:pass@example.com/',
    'https://user@example.com/',
    'https://:pass@example.com/',
    ' https://example.com',
    'https://example.com/a b',
    'https://example.com/ü',
    'https://exa mple.com/',
    'https:/example.com',
    'http://2130706433/',
    'http://example.123/',
    'http://1.2.3.4.5/',
    'http://256.1.1.1/',
    'http://[::1::]/',
    'http://[1:2:3:4:5:6:7:8:9]/',
    'https://example.com:65536/',
    'https://xn--zz.com/',
    'https://example.com\\x',
  ])('%j is refused on `url`', (value) => {
    expectValidation(() => create({ url: value }), 'url');
  });

  test('null, a number or missing: `url`', () => {
    for (const raw of [{}, { url: null }, { url: 5 }, { enabled_events: ['*'] }]) expectValidation(() => create(raw), 'url');
  });

  test(`at most ${URL_MAX} characters; the stored form fits 2048`, () => {
    const host = `https://${'a'.repeat(URL_MAX - 'https://.com'.length)}.com`;
    expect(host).toHaveLength(URL_MAX);
    expect(url(host).length).toBeLessThanOrEqual(2048);
    expectValidation(() => create({ url: `${host}x` }), 'url');
    const v6 = `http://[1::2:3:4:5:6:7]?${'q'.repeat(URL_MAX - 'http://[1::2:3:4:5:6:7]?'.length)}`;
    expect(url(v6).length).toBeLessThanOrEqual(2048);
  });

  test('whatever the pattern accepts, the WHATWG parser accepts, and it grows by at most 2 characters', () => {
    const re = new RegExp(URL_PATTERN, 'u');
    const pick = <T>(a: readonly T[]): T => a[Math.floor(Math.random() * a.length)];
    const chars = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).concat(['ü', '\u00a0']);
    const hosts = [
      'example.com',
      'a',
      'x',
      'xn',
      'xn-',
      'xn-a',
      'xna--b',
      '_.-',
      'A.B.',
      '1.2.3.4',
      '[::]',
      '[1::2:3:4:5:6:7]',
      '[::ffff:1.2.3.4]',
      '[fd00:ec2::254]',
    ];
    let matched = 0;
    for (let i = 0; i < 20000; i++) {
      const candidate =
        pick(['http://', 'HTTPS://', 'ftp://']) +
        pick(hosts) +
        pick(['', ':', ':0', ':65535', ':65536']) +
        pick(['', '/', '?', '#']) +
        Array.from({ length: Math.floor(Math.random() * 6) }, () => pick(chars)).join('');
      if (!re.test(candidate)) continue;
      matched++;
      const parsed = new URL(candidate);
      expect(['http:', 'https:']).toContain(parsed.protocol);
      expect(parsed.username + parsed.password).toBe('');
      expect(parsed.href.length).toBeLessThanOrEqual(candidate.length + 2);
    }
    expect(matched).toBeGreaterThan(1000);
  });
});

describe('enabled_events', () => {
  const base = { url: 'https://example.com/hook' };
  test('omitted or null: all; "*" anywhere: all; types trimmed and deduplicated', () => {
    expect(create(base).enabled_events).toEqual(['*']);
    expect(create({ ...base, enabled_events: null }).enabled_events).toEqual(['*']);
    expect(create({ ...base, enabled_events: ['payout_intent.created', '*'] }).enabled_events).toEqual(['*']);
    expect(create({ ...base, enabled_events: [' payout_intent.cancelled ', 'payment_intent.*', 'payout_intent.cancelled'] }).enabled_events).toEqual([
      'payout_intent.cancelled',
      'payment_intent.*',
    ]);
    expect(create({ ...base, enabled_events: Array.from({ length: 50 }, () => 'refund.created') }).enabled_events).toEqual(['refund.created']);
  });

  test.each([
    [[]],
    [['nope']],
    [['PAYOUT.created']],
    [['payout_intent.']],
    [[' * ']],
    [['*', 'nope']],
    [[5]],
    ['payout_intent.*'],
    [{}],
    [Array.from({ length: 51 }, () => 'refund.created')],
  ])('%j is refused on `enabled_events`', (value) => {
    expectValidation(() => create({ ...base, enabled_events: value }), 'enabled_events');
  });

  test('unknown fields are refused by name; environment is ignored', () => {
    expectValidation(() => create({ ...base, secret: 'whsec_mine' }), 'secret');
    expect(create({ ...base, environment: 'live' }).url).toBe('https://example.com/hook');
  });
});
