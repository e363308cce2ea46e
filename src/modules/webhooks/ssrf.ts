/**
 * SSRF rules for merchant-supplied webhook URLs (their syntax, http(s) without credentials,
 * is WebhookUrl in webhook.schemas.ts): every address the host resolves to must be public
 * unicast. Checked when the endpoint is created and again on every delivery, where the
 * connection is pinned to the checked address (the `lookup` hook of the HTTP request), so DNS
 * rebinding cannot slip in between check and connect. Redirects are never followed (a 3xx
 * is a failed attempt).
 *
 * Addresses are classified by ipaddr.js (its IANA special-purpose ranges): only `unicast`
 * passes, and for IPv6 only within global unicast (2000::/3), which also refuses the
 * deprecated IPv4-compatible ::/96. An IPv4-mapped IPv6 address is judged by its IPv4 address.
 * Messages never say what a name resolves to (that would map internal names for anyone who
 * can create an endpoint); the range stays on the error (`reason`) for code and tests.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be called (its range), or null when it is public unicast (or loopback while allowed). */
export function blockedReason(address: string, allowLoopback: boolean): string | null {
  if (!net.isIP(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === 'loopback' && allowLoopback) return null;
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return 'not global unicast';
  return null;
}

export class SsrfError extends Error {
  constructor(
    message: string,
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** The host has no DNS answer right now: not proof of a blocked address, only of no address. */
export class UnresolvedHostError extends SsrfError {}

/**
 * Names that mean this machine by their spelling, whatever DNS answers for them now:
 * `localhost` and any name under it (RFC 6761, with or without the final dot), and the
 * `/etc/hosts` names of the IPv6 loopback.
 */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === 'ip6-localhost' || name === 'ip6-loopback' || name === 'localhost.localdomain';
}

/** Resolves `hostname` (all addresses) and throws SsrfError if any is not public. */
export async function resolvePublic(hostname: string, allowLoopback: boolean): Promise<{ address: string; family: number }[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (!allowLoopback && isLoopbackName(host)) throw new SsrfError(`the host ${host} is not reachable as a public address`, 'loopback');
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
    if (reason) throw new SsrfError(`the host ${host} is not reachable as a public address`, reason);
  }
  return addresses;
}
