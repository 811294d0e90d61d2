import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { OutboundFailedError, type OutboundHttp, OutboundRefusedError } from '../ports/outbound-http.js';

export interface SsrfSafeHttpClientOptions {
  /**
   * Addresses (IPs or CIDRs) that may be reached although they are private, and over plain http
   * too. Empty by default: only https to public unicast addresses.
   */
  allowedNetworks: readonly string[];
  /** For the whole exchange: connect, send, and the response's headers and body. */
  timeoutMs: number;
  /** Response bodies are read up to this and discarded. */
  maxResponseBytes?: number;
  /** Name resolution (default: the system's); tests pass one that maps names to chosen addresses. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export interface OutboundRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string | Buffer;
}

const MAX_URL_LENGTH = 2048;

const systemResolve = async (hostname: string) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The one client for outbound calls to addresses a tenant supplies (callbacks). It refuses, at
 * connect time, after name resolution, any address that is not public unicast (`publicAddress`);
 * URLs spelling an address as a number (http://2130706433/) are normalised by the URL parser first
 * and checked the same way. It sends over https only, never follows redirects, bounds the time and
 * reads at most a little of the answer.
 */
export class SsrfSafeHttpClient implements OutboundHttp {
  private readonly allowed: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  private readonly resolve: (hostname: string) => Promise<string[]>;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: SsrfSafeHttpClientOptions) {
    this.allowed = options.allowedNetworks.map((entry) => {
      const parsed = entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128] as const);
      const [address, bits] = parsed;
      return [address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address, bits];
    });
    this.resolve = options.resolve ?? systemResolve;
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  }

  async check(url: string): Promise<void> {
    await this.addressesOf(this.parse(url));
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<number> {
    return this.send({ url, method: 'POST', headers, body });
  }

  /** Whether `address` may be reached with `protocol` ('http:' or 'https:'). */
  permits(address: string, protocol: string): boolean {
    const ip = parseAddress(address);
    if (!ip) return false;
    if (this.allowed.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))) return true;
    return protocol === 'https:' && publicAddress(ip);
  }

  /** Parses and checks a URL without resolving it; throws `OutboundRefusedError`. */
  parse(url: string): URL {
    if (url.length > MAX_URL_LENGTH) throw new OutboundRefusedError('invalid_url', `The URL is longer than ${MAX_URL_LENGTH} characters.`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new OutboundRefusedError('invalid_url', 'The URL cannot be parsed.');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new OutboundRefusedError('invalid_url', 'The URL must use https.');
    if (parsed.username || parsed.password) throw new OutboundRefusedError('invalid_url', 'The URL must not hold credentials; use the callback secret.');
    const literal = hostAddress(parsed);
    if (literal !== undefined && !this.permits(literal, parsed.protocol)) {
      throw new OutboundRefusedError('blocked_address', `The URL's address ${literal} is not a public address reachable over ${parsed.protocol === 'http:' ? 'https' : 'the internet'}.`);
    }
    if (literal === undefined && parsed.protocol === 'http:' && !this.allowed.length) {
      throw new OutboundRefusedError('invalid_url', 'The URL must use https.');
    }
    return parsed;
  }

  /** The checked addresses a URL's host resolves to (all must be permitted); throws `OutboundRefusedError`. */
  async addressesOf(parsed: URL): Promise<string[]> {
    const literal = hostAddress(parsed);
    if (literal !== undefined) return [literal];
    let addresses: string[];
    try {
      addresses = await this.resolve(parsed.hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') throw new OutboundRefusedError('unresolvable', `The host ${parsed.hostname} does not resolve.`);
      throw new OutboundFailedError('network', `The host ${parsed.hostname} could not be resolved now.`);
    }
    if (!addresses.length) throw new OutboundRefusedError('unresolvable', `The host ${parsed.hostname} does not resolve.`);
    const blocked = addresses.find((a) => !this.permits(a, parsed.protocol));
    if (blocked !== undefined) {
      throw new OutboundRefusedError('blocked_address', `The host ${parsed.hostname} resolves to ${blocked}, which is not a permitted address.`);
    }
    return addresses;
  }

  /**
   * Sends the request and resolves to the response status (the body is read up to the cap and
   * dropped). Refusals throw `OutboundRefusedError`; failures in transit `OutboundFailedError`.
   */
  async send(request: OutboundRequest): Promise<number> {
    const parsed = this.parse(request.url);
    // Resolved here and pinned for the connection: the address checked is the address connected to.
    const [address] = await this.addressesOf(parsed);
    const pinned: LookupFunction = (_hostname, options, callback) => {
      const family = ipaddr.parse(address!).kind() === 'ipv4' ? 4 : 6;
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: address!, family }]);
      else callback(null, address!, family);
    };
    const transport = parsed.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const req = transport.request(
        parsed,
        { method: request.method, headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) }, lookup: pinned, agent: false },
        (res) => {
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > this.maxResponseBytes) res.destroy();
          });
          res.on('error', () => undefined);
          res.on('close', () => settle(() => resolve(res.statusCode ?? 0)));
          // The status is what matters; a receiver that streams a long body does not hold the worker.
          settle(() => resolve(res.statusCode ?? 0));
          res.resume();
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        settle(() => reject(new OutboundFailedError('timeout', `No answer within ${this.options.timeoutMs} ms.`)));
      }, this.options.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => settle(() => reject(new OutboundFailedError('network', `The request failed (${error.code ?? 'network error'}).`))));
      req.end(request.body);
    });
  }
}

/** The address a URL names directly (IPv6 without brackets), or undefined for a host name. */
function hostAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return ipaddr.isValid(host) ? host : undefined;
}

/**
 * An address as the URL parser writes it, IPv4-mapped IPv6 as IPv4; undefined when it is none (or
 * carries a zone). Going through the URL parser makes a resolver's answer and a URL's literal one
 * spelling: ipaddr.js alone reads `::127.0.0.1` as the mapped `::ffff:127.0.0.1`, yet `::7f00:1`, the
 * same address, as plain IPv6.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipaddr.IPv4.parse(address);
  if (!ipaddr.IPv6.isValid(address) || address.includes('%')) return undefined;
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  return ipaddr.process(canonical);
}

/** IANA's global unicast space; everything else in IPv6 is reserved, local or a transition form. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * Whether an address is public unicast. IPv4 (and IPv4-mapped IPv6): no loopback, private,
 * link-local, CGNAT, multicast, broadcast, unspecified, reserved or documentation range. IPv6:
 * only 2000::/3 outside ipaddr.js's special ranges. That refuses every form that embeds an IPv4
 * address, whatever that address is: IPv4-compatible `::a.b.c.d` (deprecated; `::7f00:1`
 * is 127.0.0.1 to some stacks), IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, 6to4 `2002::/16` and Teredo `2001::/32`: a translator or relay on the path
 * may forward them to the IPv4 address, and its reach is not Lore's to judge.
 */
function publicAddress(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST)) return false;
  return ip.range() === 'unicast';
}
