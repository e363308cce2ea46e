/**
 * SSRF rules for merchant-supplied webhook URLs (their syntax, http(s) without credentials,
 * is WebhookUrl in webhook.schemas.ts): every address the host resolves to must be public. Checked when the endpoint is created and
 * again on every delivery, where the connection is pinned to the checked address (the
 * `lookup` hook of the HTTP request), so DNS rebinding cannot slip in between check and
 * connect. Redirects are never followed (a 3xx is a failed attempt).
 */
import dns from 'node:dns/promises';
import net from 'node:net';

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'], ['10.0.0.0', 8, 'private'], ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'], ['169.254.0.0', 16, 'link-local/metadata'], ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol'], ['192.0.2.0', 24, 'documentation'], ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'], ['198.51.100.0', 24, 'documentation'], ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'], ['240.0.0.0', 4, 'reserved'],
];
const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'unspecified'], ['::1', 128, 'loopback'], ['fc00::', 7, 'unique local (private; includes fd00:ec2::254 metadata)'],
  ['fe80::', 10, 'link-local'], ['ff00::', 8, 'multicast'], ['2001:db8::', 32, 'documentation'], ['100::', 64, 'discard'],
  ['64:ff9b::', 96, 'NAT64'], ['64:ff9b:1::', 48, 'NAT64'], ['2002::', 16, '6to4'], ['::', 96, 'IPv4-compatible'],
];

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:xxxx), if any. */
export function unmapIpv4(address: string): string | undefined {
  const m = /^(?:0{0,4}:){0,5}:?ffff:(.+)$/i.exec(address) ?? /^::ffff:(.+)$/i.exec(address);
  if (!m) return undefined;
  const rest = m[1];
  if (net.isIPv4(rest)) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Why an address may not be called, or null when it is public (or loopback while allowed). */
export function blockedReason(address: string, allowLoopback: boolean): string | null {
  const mapped = net.isIPv6(address) ? unmapIpv4(address) : undefined;
  if (mapped) return blockedReason(mapped, allowLoopback);
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null;
  if (!family) return 'not an IP address';
  const table = family === 'ipv4' ? V4_BLOCKED : V6_BLOCKED;
  for (const [base, prefix, reason] of table) {
    const list = new net.BlockList();
    list.addSubnet(base, prefix, family);
    if (list.check(address, family)) {
      if (reason === 'loopback' && allowLoopback) return null;
      return reason;
    }
  }
  if (family === 'ipv4' && address === '255.255.255.255') return 'broadcast';
  return null;
}

export class SsrfError extends Error {}

/** The host has no DNS answer right now: not proof of a blocked address, only of no address. */
export class UnresolvedHostError extends SsrfError {}

/** Resolves `hostname` (all addresses) and throws SsrfError if any is blocked. */
export async function resolvePublic(hostname: string, allowLoopback: boolean): Promise<{ address: string; family: number }[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await dns.lookup(host, { all: true, verbatim: true });
    } catch {
      throw new UnresolvedHostError(`the host ${host} could not be resolved`);
    }
  }
  if (addresses.length === 0) throw new UnresolvedHostError(`the host ${host} has no addresses`);
  for (const a of addresses) {
    const reason = blockedReason(a.address, allowLoopback);
    if (reason) throw new SsrfError(`the host ${host} resolves to a ${reason} address (${a.address})`);
  }
  return addresses;
}
