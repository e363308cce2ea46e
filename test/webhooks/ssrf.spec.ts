/** SSRF rules for webhook URLs (src/modules/webhooks/ssrf.ts), without any network access. */
import { SsrfError, UnresolvedHostError, blockedReason, isLoopbackName, resolvePublic } from '../../src/modules/webhooks/ssrf';

describe('blockedReason: IPv4 (ipaddr.js ranges; only unicast passes)', () => {
  test.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('%s is refused as %s', (address, reason) => {
    expect(blockedReason(address, false)).toBe(reason);
  });

  test.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '192.169.0.1',
    '198.20.0.1',
    '223.255.255.255',
    '11.0.0.1',
  ])('public %s is accepted', (address) => {
    expect(blockedReason(address, false)).toBeNull();
  });
});

describe('blockedReason: IPv6 (only global unicast, 2000::/3, passes)', () => {
  test.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['2002:c000:0204::1', '6to4'],
    ['::a00:1', 'not global unicast'],
    // IPv4-translated, site-local and Teredo forms that carry or reach an internal IPv4 address.
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:0:7f00:1::', 'teredo'],
    ['4000::1', 'not global unicast'],
  ])('%s is refused as %s', (address, reason) => {
    expect(blockedReason(address, false)).toBe(reason);
  });

  test.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e'])('public %s is accepted', (address) => {
    expect(blockedReason(address, false)).toBeNull();
  });
});

describe('IPv4-mapped IPv6 addresses are judged by their IPv4 address', () => {
  test.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:10.1.2.3', 'private'],
    ['0:0:0:0:0:ffff:c0a8:1', 'private'],
    ['::FFFF:10.0.0.1', 'private'],
  ])('%s is refused as %s', (address, reason) => {
    expect(blockedReason(address, false)).toBe(reason);
  });

  test('a mapped public address is accepted', () => {
    expect(blockedReason('::ffff:8.8.8.8', false)).toBeNull();
  });
});

describe('loopback allowance (tests and local development)', () => {
  test('allows loopback only, in every spelling', () => {
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(blockedReason(a, true)).toBeNull();
    for (const a of ['10.0.0.1', '169.254.169.254', '::', 'fe80::1', '0.0.0.0', '::ffff:0:7f00:1', '2001:0:7f00:1::'])
      expect(blockedReason(a, true)).not.toBeNull();
  });
});

test('a string that is not an address is refused', () => {
  expect(blockedReason('example.com', false)).toBe('not an IP address');
  expect(blockedReason('', true)).toBe('not an IP address');
});

describe('resolvePublic with literal addresses (no DNS)', () => {
  test('a public literal resolves to itself; brackets are stripped', async () => {
    await expect(resolvePublic('8.8.8.8', false)).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
    await expect(resolvePublic('[2606:4700:4700::1111]', false)).resolves.toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });

  test('a blocked literal throws SsrfError; the message names neither the range nor the address (the range is kept for the log)', async () => {
    const err = await resolvePublic('[::ffff:169.254.169.254]', false).catch((e) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect(err).not.toBeInstanceOf(UnresolvedHostError);
    expect(err.reason).toBe('linkLocal');
    expect(err.message).toBe('the host ::ffff:169.254.169.254 is not reachable as a public address');
    const loopback = await resolvePublic('127.0.0.1', false).catch((e) => e);
    expect(loopback.reason).toBe('loopback');
    expect(loopback.message).not.toMatch(/loopback/);
    await expect(resolvePublic('127.0.0.1', true)).resolves.toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  test('a name that resolves to an internal address: the message does not say which address or range', async () => {
    const err = await resolvePublic('localhost', false).catch((e) => e);
    expect(err).toBeInstanceOf(SsrfError);
    expect(err.message).toBe('the host localhost is not reachable as a public address');
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1|loopback/);
  });

  test('a name that cannot resolve is UnresolvedHostError (an SsrfError)', async () => {
    const err = await resolvePublic('no-such-host.invalid', false).catch((e) => e);
    expect(err).toBeInstanceOf(UnresolvedHostError);
    expect(err).toBeInstanceOf(SsrfError);
  });
});

describe('names that are loopback by their spelling', () => {
  test('localhost., *.localhost, ip6-localhost and ip6-loopback are refused without asking DNS', async () => {
    for (const name of [
      'localhost',
      'localhost.',
      'LocalHost..',
      'foo.localhost',
      'a.b.localhost.',
      'ip6-localhost',
      'ip6-loopback',
      'localhost.localdomain',
    ]) {
      const err = await resolvePublic(name, false).catch((e) => e);
      expect([name, err]).toEqual([name, expect.any(SsrfError)]);
      expect(err).not.toBeInstanceOf(UnresolvedHostError);
      expect(err.reason).toBe('loopback');
      expect(err.message).toBe(`the host ${name} is not reachable as a public address`);
    }
    expect(isLoopbackName('localhost.example.com')).toBe(false);
    expect(isLoopbackName('notlocalhost')).toBe(false);
  });
});
