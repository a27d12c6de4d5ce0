// The SSRF guard: a partner's webhook URL must not make us call into our own network. Checked when
// the endpoint is registered and again on every delivery, at connect time, against the addresses
// the name resolves to then (a name that resolved to a public address at registration may point
// inward later: DNS rebinding). WEBHOOK_ALLOW_PRIVATE_HOSTS=true lifts it (tests, on-premise).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { InvalidWebhookUrl, WebhookUrlNotAllowed } from '../commands/errors.js';
import { specialPurpose } from './special-ranges.js';

/**
 * True for loopback, private, link-local, metadata, tunnelling and every other special-purpose
 * address (and non-addresses): the one table in special-ranges.ts decides.
 */
export function isForbiddenAddress(address: string): boolean {
  return specialPurpose(address) !== undefined;
}

const MAX_URL_LENGTH = 2048;

/** The URL as we will call it, or InvalidWebhookUrl naming what is wrong with it. */
export function parseWebhookUrl(raw: string): URL {
  // The URL parser drops leading and trailing spaces and control characters and tabs or newlines
  // inside, so " https://x/hook" was stored and listed as given and called as another string:
  // refused, so what is registered is what is called.
  if (/[\x00-\x20\x7f]/.test(raw)) throw new InvalidWebhookUrl('The webhook url must not hold spaces or control characters (percent-encode them).');
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
