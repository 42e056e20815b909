/**
 * Which network addresses a webhook may be delivered to (SSRF protection). A webhook URL is
 * chosen by a customer and fetched by our servers, so without this anyone could make us call our
 * own loopback services, the private network or the cloud metadata endpoint.
 *
 * Policy: only public unicast addresses. IPv4: everything in the IANA special-purpose registry
 * that is not globally reachable is refused (loopback, RFC 1918, CGNAT, link-local with the
 * metadata address, "this network", IETF assignments, documentation and benchmarking ranges,
 * the 6to4 relay anycast, multicast, reserved and broadcast). IPv6: only global unicast
 * (2000::/3) minus its special-purpose and documentation blocks; addresses that carry an IPv4
 * address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address, so
 * `::ffff:127.0.0.1` is loopback. Every other IPv6 form (IPv4-compatible, SIIT, Teredo, local-use
 * NAT64) is refused outright.
 *
 * The check runs on every resolved address, at registration and again at connect time (see
 * delivery.ts), and the connection goes to the address that was checked.
 */
import { promises as dns } from 'node:dns';
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

/** Resolves a host name to every address it has (A and AAAA). Injected in tests. */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, as connections would use), every address in resolver order. */
export const systemResolver: HostResolver = async (hostname) => {
  const results = await dns.lookup(hostname, { all: true, verbatim: true });
  return results.map((r) => r.address);
};

/** Why an address may not be a target (null: it may). `refusalReason` is the policy; tests swap it. */
export type AddressPolicy = (address: string) => string | null;

/** A delivery target refused by the address policy. */
export class TargetRefusedError extends Error {
  readonly code = 'WEBHOOK_TARGET_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

function list(entries: Array<[string, number]>, type: 'ipv4' | 'ipv6'): BlockList {
  const blocks = new BlockList();
  for (const [network, prefix] of entries) blocks.addSubnet(network, prefix, type);
  return blocks;
}

// Each IPv4 block with the name used in refusals (checked in this order).
const IPV4_BLOCKS: Array<[string, BlockList]> = [
  ['"this network" / unspecified (0.0.0.0/8)', list([['0.0.0.0', 8]], 'ipv4')],
  ['loopback (127.0.0.0/8)', list([['127.0.0.0', 8]], 'ipv4')],
  ['private (RFC 1918)', list([['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]], 'ipv4')],
  ['shared address space / CGNAT (100.64.0.0/10)', list([['100.64.0.0', 10]], 'ipv4')],
  ['link-local, incl. cloud metadata (169.254.0.0/16)', list([['169.254.0.0', 16]], 'ipv4')],
  ['IETF protocol assignments (192.0.0.0/24)', list([['192.0.0.0', 24]], 'ipv4')],
  ['documentation (TEST-NET)', list([['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24]], 'ipv4')],
  ['6to4 relay anycast (192.88.99.0/24)', list([['192.88.99.0', 24]], 'ipv4')],
  ['benchmarking (198.18.0.0/15)', list([['198.18.0.0', 15]], 'ipv4')],
  ['multicast (224.0.0.0/4)', list([['224.0.0.0', 4]], 'ipv4')],
  ['reserved / broadcast (240.0.0.0/4)', list([['240.0.0.0', 4]], 'ipv4')],
];

const IPV6_GLOBAL_UNICAST = list([['2000::', 3]], 'ipv6');

// Blocks inside 2000::/3 that are not ordinary public unicast.
const IPV6_BLOCKS: Array<[string, BlockList]> = [
  ['IETF special-purpose, incl. Teredo (2001::/23)', list([['2001::', 23]], 'ipv6')],
  ['documentation (2001:db8::/32, 3fff::/20)', list([['2001:db8::', 32], ['3fff::', 20]], 'ipv6')],
];

/** The 16 bytes of an IPv6 address (zone id dropped), or null when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | null {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  if (!isIPv6(text)) return null;
  const words: number[] = [];
  const parseSide = (side: string): number[] => {
    if (side === '') return [];
    const out: number[] = [];
    for (const part of side.split(':')) {
      if (part.includes('.')) {
        const [a, b, c, d] = part.split('.').map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(Number.parseInt(part, 16));
    }
    return out;
  };
  const gap = text.indexOf('::');
  if (gap >= 0) {
    const head = parseSide(text.slice(0, gap));
    const tail = parseSide(text.slice(gap + 2));
    words.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail);
  } else words.push(...parseSide(text));
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = (w >> 8) & 0xff;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return bytes;
}

const dotted = (b: Uint8Array, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const allZero = (b: Uint8Array, from: number, to: number) => b.slice(from, to).every((x) => x === 0);

/** The IPv4 address an IPv6 address carries (mapped, NAT64 well-known prefix, 6to4), if any. */
export function embeddedIPv4(bytes: Uint8Array): { kind: string; ipv4: string } | null {
  if (allZero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return { kind: 'IPv4-mapped', ipv4: dotted(bytes, 12) };
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && allZero(bytes, 4, 12)) {
    return { kind: 'NAT64', ipv4: dotted(bytes, 12) };
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { kind: '6to4', ipv4: dotted(bytes, 2) };
  return null;
}

function ipv6Name(bytes: Uint8Array): string {
  if (allZero(bytes, 0, 16)) return 'unspecified (::)';
  if (allZero(bytes, 0, 15) && bytes[15] === 1) return 'loopback (::1)';
  if ((bytes[0]! & 0xfe) === 0xfc) return 'unique local (fc00::/7)';
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return 'link-local (fe80::/10)';
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0xc0) return 'site-local (fec0::/10)';
  if (bytes[0] === 0xff) return 'multicast (ff00::/8)';
  if (allZero(bytes, 0, 12)) return 'IPv4-compatible (::/96)';
  if (allZero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff) return 'IPv4-translated (::ffff:0:0:0/96)';
  return 'not a global unicast address';
}

/**
 * Why `address` (an IP literal) may not be a webhook target, or null when it may.
 * Anything that is not an IP address is refused too.
 */
export function refusalReason(address: string): string | null {
  const text = address.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(text)) {
    for (const [name, blocks] of IPV4_BLOCKS) if (blocks.check(text, 'ipv4')) return `${text} is ${name}`;
    return null;
  }
  const bytes = ipv6Bytes(text);
  if (!bytes) return `${text} is not an IP address`;
  const embedded = embeddedIPv4(bytes);
  if (embedded) {
    const inner = refusalReason(embedded.ipv4);
    return inner ? `${text} is ${embedded.kind} and ${inner}` : null;
  }
  const bare = text.replace(/%.*$/, '');
  if (!IPV6_GLOBAL_UNICAST.check(bare, 'ipv6')) return `${text} is ${ipv6Name(bytes)}`;
  for (const [name, blocks] of IPV6_BLOCKS) if (blocks.check(bare, 'ipv6')) return `${text} is ${name}`;
  return null;
}

/** Names that always mean this machine, whatever DNS says (RFC 6761). */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The addresses to connect to for `hostname` (a URL host: a name, an IPv4 literal or a bracketed
 * IPv6 literal), every one of them checked. Throws TargetRefusedError when any resolved address is
 * refused (a name with one public and one private address is refused: the resolver's order is
 * not ours to trust), or when the name does not resolve.
 */
export async function resolveTarget(hostname: string, resolver: HostResolver, policy: AddressPolicy = refusalReason): Promise<string[]> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    const reason = policy(host);
    if (reason) throw new TargetRefusedError(`target address refused: ${reason}`);
    return [host];
  }
  if (policy === refusalReason && isLocalName(host)) throw new TargetRefusedError(`target address refused: ${host} names this machine`);
  let addresses: string[];
  try {
    addresses = await resolver(host);
  } catch (err) {
    throw new TargetRefusedError(`could not resolve ${host}: ${(err as { code?: string }).code ?? (err as Error).message}`);
  }
  if (addresses.length === 0) throw new TargetRefusedError(`could not resolve ${host}: no addresses`);
  for (const address of addresses) {
    const reason = policy(address);
    if (reason) throw new TargetRefusedError(`target address refused: ${host} resolves to ${reason}`);
  }
  return addresses;
}
