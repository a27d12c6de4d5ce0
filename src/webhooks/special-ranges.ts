// The one table of addresses a webhook must never reach, kept beside IANA's registries so a review
// can diff it line by line: the IPv4 and IPv6 Special-Purpose Address Registries (entries whose
// "Globally Reachable" is False or N/A), plus multicast and the deprecated ranges that are no longer
// listed there (IPv4-compatible ::/96, site-local fec0::/10). IPv6 is an allow-list first: only
// global unicast (2000::/3) may be called, so every reserved or unassigned block, and every form
// that embeds an IPv4 address outside it (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64
// 64:ff9b::/96 and 64:ff9b:1::/48), is refused whatever IPv4 address it carries. Inside 2000::/3 the
// tunnelling forms that embed an IPv4 address the partner chooses (6to4 2002::/16, Teredo 2001::/32)
// are refused whole: they are deprecated, and the embedded address may be private.
import { BlockList, isIP } from 'node:net';

type Range = readonly [cidr: string, name: string];

/** IANA IPv4 Special-Purpose Address Registry (not globally reachable), plus multicast. */
export const IPV4_SPECIAL: readonly Range[] = [
  ['0.0.0.0/8', '"this network" (RFC 791)'],
  ['10.0.0.0/8', 'private-use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space, carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local, cloud metadata (RFC 3927)'],
  ['172.16.0.0/12', 'private-use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private-use (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved and limited broadcast (RFC 1112, RFC 919)'],
];

/** Where an IPv6 webhook may be: global unicast (IANA IPv6 Address Space). */
const IPV6_GLOBAL_UNICAST = '2000::/3';

/** IANA IPv6 Special-Purpose Address Registry entries inside 2000::/3 that are not globally reachable. */
export const IPV6_SPECIAL: readonly Range[] = [
  ['2001::/23', 'IETF protocol assignments, Teredo 2001::/32 and benchmarking included (RFC 2928, RFC 4380)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['2002::/16', '6to4, embeds an IPv4 address (RFC 3056, deprecated by RFC 7526)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
];

/** Outside 2000::/3, named for the refusal's log line; all of it is refused. */
const IPV6_OUTSIDE: readonly Range[] = [
  ['::/128', 'unspecified (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['::ffff:0:0/96', 'IPv4-mapped (RFC 4291)'],
  ['::/96', 'IPv4-compatible, deprecated (RFC 4291)'],
  ['64:ff9b::/96', 'NAT64 well-known prefix, embeds an IPv4 address (RFC 6052)'],
  ['64:ff9b:1::/48', 'local-use NAT64 (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['5f00::/16', 'SRv6 SIDs (RFC 9602)'],
  ['fc00::/7', 'unique local (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'site-local, deprecated (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
];

function listOf(ranges: readonly Range[], family: 'ipv4' | 'ipv6'): { list: BlockList; ranges: { list: BlockList; name: string }[] } {
  const list = new BlockList();
  const named = ranges.map(([cidr, name]) => {
    const [net, prefix] = cidr.split('/') as [string, string];
    const one = new BlockList();
    one.addSubnet(net, Number(prefix), family);
    list.addSubnet(net, Number(prefix), family);
    return { list: one, name };
  });
  return { list, ranges: named };
}

const v4 = listOf(IPV4_SPECIAL, 'ipv4');
const v6 = listOf(IPV6_SPECIAL, 'ipv6');
const v6Outside = listOf(IPV6_OUTSIDE, 'ipv6');
const globalUnicast = listOf([[IPV6_GLOBAL_UNICAST, 'global unicast']], 'ipv6').list;

/**
 * Why an address must not be called, or undefined for a public one. Anything that is not an IP
 * address (a name, an IPv6 zone index) is refused too: callers pass resolved addresses.
 */
export function specialPurpose(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return v4.list.check(address, 'ipv4') ? v4.ranges.find((r) => r.list.check(address, 'ipv4'))!.name : undefined;
  if (family !== 6 || address.includes('%')) return 'not an IP address';
  if (!globalUnicast.check(address, 'ipv6')) {
    return v6Outside.ranges.find((r) => r.list.check(address, 'ipv6'))?.name ?? 'reserved or unassigned IPv6 (outside global unicast 2000::/3)';
  }
  return v6.list.check(address, 'ipv6') ? v6.ranges.find((r) => r.list.check(address, 'ipv6'))!.name : undefined;
}
