// The SSRF guard: a partner's webhook URL must not make us call into our own network. Checked when
// the endpoint is registered and again on every delivery, at connect time, against the addresses
// the name resolves to then (a name that resolved to a public address at registration may point
// inward later: DNS rebinding). WEBHOOK_ALLOW_PRIVATE_HOSTS=true lifts it (tests, on-premise).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { InvalidWebhookUrl, WebhookUrlNotAllowed } from '../commands/errors.js';

const forbidden = new BlockList();
const V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], // private
  ['100.64.0.0', 10], // carrier-grade NAT (and Alibaba's metadata at 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata at 169.254.169.254
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], // special and documentation
  ['224.0.0.0', 4], ['240.0.0.0', 4], // multicast, reserved and broadcast
];
const V6: [string, number][] = [
  ['::', 128], ['::1', 128], // unspecified, loopback
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], // NAT64, which can reach private IPv4
  ['fc00::', 7], // unique local (AWS metadata at fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], ['100::', 64], // documentation, discard
];
for (const [net, prefix] of V4) forbidden.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) forbidden.addSubnet(net, prefix, 'ipv6');
// BlockList checks an IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1) against the IPv4 rules.

/** True for loopback, private, link-local, metadata and other non-public addresses (and non-addresses). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return forbidden.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const MAX_URL_LENGTH = 2048;

/** The URL as we will call it, or InvalidWebhookUrl naming what is wrong with it. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidWebhookUrl('The webhook url is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidWebhookUrl('The webhook url must use https (or http).');
  if (url.username || url.password) throw new InvalidWebhookUrl('The webhook url must not carry credentials; verify our signature instead.');
  if (raw.length > MAX_URL_LENGTH) throw new InvalidWebhookUrl(`The webhook url is longer than ${MAX_URL_LENGTH} characters.`);
  return url;
}

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Registration: the URL is well formed and every address its host resolves to now is public. */
export async function vetWebhookUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(raw);
  const host = bareHost(url);
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    throw new InvalidWebhookUrl(`The webhook url's host ${host} does not resolve.`);
  }
  if (!allowPrivate && addresses.some(isForbiddenAddress)) throw new WebhookUrlNotAllowed();
  return url;
}

export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves as usual and refuses to connect when any address is
 * forbidden, so the address checked is the address connected to.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true } as { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate && list.some((a) => isForbiddenAddress(a.address))) {
        return callback(new ForbiddenAddressError(`${hostname} resolves to a non-public address`), []);
      }
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Delivery: an IP-literal host never reaches `lookup`, so it is checked here. */
export function literalHostAllowed(url: URL, allowPrivate: boolean): boolean {
  const host = bareHost(url);
  return allowPrivate || isIP(host) === 0 || !isForbiddenAddress(host);
}
