// The webhook address guard (issue 21, item 5) against a table of spellings: every special-purpose
// range of IANA's registries and every form that embeds an IPv4 address. Pure classification, and
// registration through the real URL parser; nothing here ever connects anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isForbiddenAddress, vetWebhookUrl } from '../../src/webhooks/addresses.js';
import { specialPurpose } from '../../src/webhooks/special-ranges.js';

/** Address spellings that must be refused, with why. */
const REFUSED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, the whole /8'],
  ['0.0.0.0', 'this network'],
  ['10.0.0.1', 'RFC 1918'],
  ['172.16.0.1', 'RFC 1918'],
  ['172.31.255.255', 'RFC 1918'],
  ['192.168.1.1', 'RFC 1918'],
  ['100.64.0.1', 'CGNAT'],
  ['100.100.100.200', "Alibaba's metadata in CGNAT"],
  ['169.254.169.254', 'cloud metadata'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['198.18.0.1', 'benchmarking'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.251', 'multicast (mDNS)'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback, long form'],
  ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
  ['::127.0.0.1', 'IPv4-compatible, dotted'],
  ['::a9fe:a9fe', 'IPv4-compatible 169.254.169.254'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
  ['::ffff:8.8.8.8', 'IPv4-mapped, even of a public address (never needed, always ambiguous)'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped, long form'],
  ['::ffff:0:7f00:1', 'IPv4-translated (RFC 2765)'],
  ['2002:a9fe:a9fe::', '6to4 embedding 169.254.169.254'],
  ['2002:7f00:1::1', '6to4 embedding 127.0.0.1'],
  ['2002:c0a8:101::', '6to4 embedding 192.168.1.1'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001::1', 'Teredo prefix'],
  ['2001:2::1', 'benchmarking'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['64:ff9b::7f00:1', 'NAT64 embedding 127.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 embedding metadata'],
  ['64:ff9b::808:808', 'NAT64 even of a public address (reaches through our translator)'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['100::1', 'discard-only'],
  ['fc00::1', 'unique local'],
  ['fd00:ec2::254', 'unique local (AWS metadata)'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local, upper end'],
  ['fec0::1', 'site-local'],
  ['feff::1', 'site-local, upper end'],
  ['ff02::1', 'multicast'],
  ['5f00::1', 'SRv6 SIDs'],
  ['4000::1', 'unassigned, outside global unicast'],
  ['fe80::1%eth0', 'zone index'],
  ['localhost', 'not an address'],
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '192.0.3.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '2003::1', '2001:200::1'];

test('every special-purpose spelling in the table is refused, each for a named reason', () => {
  assert.ok(REFUSED.length >= 30);
  for (const [address, why] of REFUSED) {
    assert.equal(isForbiddenAddress(address), true, `${address} (${why})`);
    assert.ok(specialPurpose(address), address);
  }
});

test('public IPv4 and global-unicast IPv6 addresses pass, neighbours of private ranges included', () => {
  for (const address of PUBLIC) assert.equal(specialPurpose(address), undefined, address);
});

test('the range named in a refusal is the right one', () => {
  assert.match(specialPurpose('2002:a9fe:a9fe::')!, /6to4/);
  assert.match(specialPurpose('::7f00:1')!, /IPv4-compatible/);
  assert.match(specialPurpose('::ffff:127.0.0.1')!, /IPv4-mapped/);
  assert.match(specialPurpose('64:ff9b::7f00:1')!, /NAT64/);
  assert.match(specialPurpose('2001::1')!, /Teredo/);
  assert.match(specialPurpose('fec0::1')!, /site-local/);
  assert.match(specialPurpose('169.254.169.254')!, /metadata/);
});

/** URL spellings of refused hosts, as a partner could register them (the URL parser normalizes them first). */
const URLS = [
  'http://127.0.0.1/', 'http://127.1/', 'http://2130706433/', 'http://0x7f.0.0.1/', 'http://0177.0.0.1/', 'http://017700000001/',
  'http://[::1]/', 'http://[::7f00:1]/', 'http://[::127.0.0.1]/', 'http://[::ffff:127.0.0.1]/', 'http://[0:0:0:0:0:ffff:7f00:1]/',
  'http://[2002:a9fe:a9fe::]/', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[fec0::1]/',
  'http://169.254.169.254/latest/meta-data/', 'http://0xa9fea9fe/', 'http://[fd00:ec2::254]/', 'https://10.0.0.1:8443/hook', 'http://0/',
];

test('registration refuses every spelling of a special-purpose host (IP literals: no lookup, no connection)', async () => {
  for (const url of URLS) {
    await assert.rejects(vetWebhookUrl(url, false), (err: Error & { code?: string }) => err.code === 'webhook_url_not_allowed', url);
  }
});
