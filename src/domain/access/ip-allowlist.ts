/**
 * IP allow-lists of API keys: validation and normalisation of entries, and a compiled matcher.
 *
 * Entries are single addresses (`203.0.113.9`, `2001:db8::1`) or CIDR ranges (`203.0.113.0/24`,
 * `2001:db8::/32`). Rules, chosen so that what is stored is exactly what was meant:
 * - a range whose address has host bits set (`10.0.0.1/8`) is REJECTED, not silently widened —
 *   it is usually a typo for `/32` or for the network address, and the message suggests the latter;
 * - IPv4 needs four decimal octets without leading zeros (`010.0.0.1` could mean octal);
 * - zone ids (`fe80::1%eth0`), ports, spaces inside an entry and prefix lengths with signs or
 *   leading zeros are rejected;
 * - entries are stored canonical: IPv6 lower-case and compressed (RFC 5952), `/32` and `/128`
 *   dropped, IPv4-mapped IPv6 entries (`::ffff:198.51.100.0/120`) rewritten in IPv4 form
 *   (`198.51.100.0/24`), duplicates removed.
 * Matching normalises the client address the same way, so an IPv4-mapped client address
 * (`::ffff:203.0.113.9`, as dual-stack sockets report it) matches IPv4 rules. IPv6 rules only
 * ever match IPv6 clients and IPv4 rules only IPv4 clients.
 */
import net from 'node:net';

/** At most this many entries per key: a longer list is a sign that the key is shared too widely. */
export const MAX_ALLOW_LIST_ENTRIES = 100;

type Family = 4 | 6;

interface Address {
  family: Family;
  bytes: Uint8Array;
}

/** The outcome of validating one entry. */
export type AllowListEntryResult = { ok: true; entry: string } | { ok: false; detail: string };

function ipv4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** Bytes of an address that `net.isIPv6` accepted (no zone id). */
function ipv6Bytes(text: string): Uint8Array {
  let s = text.toLowerCase();
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const [a, b, c, d] = ipv4Bytes(s.slice(lastColon + 1)) as unknown as [number, number, number, number];
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  const left = halves[0] ? halves[0].split(':') : [];
  const right = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = halves.length > 1 ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  });
  return bytes;
}

function isV4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

function parseAddress(text: string): Address | null {
  if (text.includes('%')) return null;
  if (net.isIPv4(text)) return { family: 4, bytes: ipv4Bytes(text) };
  if (net.isIPv6(text)) return { family: 6, bytes: ipv6Bytes(text) };
  return null;
}

function format(address: Address): string {
  const b = address.bytes;
  if (address.family === 4) return Array.from(b).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  // RFC 5952: compress the longest run (≥ 2) of zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** Zeroes the bits after `prefix`; returns whether any were set. */
function maskHostBits(bytes: Uint8Array, prefix: number): { network: Uint8Array; hostBitsSet: boolean } {
  const network = Uint8Array.from(bytes);
  let hostBitsSet = false;
  for (let i = 0; i < network.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    const mask = keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    if ((network[i]! & ~mask & 0xff) !== 0) hostBitsSet = true;
    network[i] = network[i]! & mask;
  }
  return { network, hostBitsSet };
}

/** Validates one allow-list entry and returns its canonical form, or why it is refused. */
export function normalizeAllowListEntry(raw: unknown): AllowListEntryResult {
  if (typeof raw !== 'string') return { ok: false, detail: 'must be a string' };
  const text = raw.trim();
  if (text === '') return { ok: false, detail: 'is empty' };
  if (text.length > 64) return { ok: false, detail: 'is too long to be an address or CIDR range' };
  const parts = text.split('/');
  if (parts.length > 2) return { ok: false, detail: `"${text}" is not an address or CIDR range` };
  const address = parseAddress(parts[0]!);
  if (!address) return { ok: false, detail: `"${parts[0]}" is not an IPv4 or IPv6 address (zone ids and ports are not allowed)` };
  const maxPrefix = address.family === 4 ? 32 : 128;
  let prefix = maxPrefix;
  if (parts.length === 2) {
    if (!/^(0|[1-9]\d{0,2})$/.test(parts[1]!)) return { ok: false, detail: `prefix length "/${parts[1]}" must be a whole number from 0 to ${maxPrefix}` };
    prefix = Number(parts[1]);
    if (prefix > maxPrefix) return { ok: false, detail: `prefix length /${prefix} is longer than ${maxPrefix} bits (IPv${address.family})` };
  }
  const { network, hostBitsSet } = maskHostBits(address.bytes, prefix);
  let canonical: Address = { family: address.family, bytes: network };
  if (hostBitsSet) {
    return { ok: false, detail: `"${text}" has host bits set; the range is ${format(canonical)}/${prefix} (or use /${maxPrefix} for the single address)` };
  }
  // IPv4-mapped IPv6 ranges are IPv4 ranges in disguise: store them as such so they match
  // IPv4 clients. (A mapped network with a prefix below 96 always has host bits set.)
  if (canonical.family === 6 && prefix >= 96 && isV4Mapped(canonical.bytes)) {
    canonical = { family: 4, bytes: canonical.bytes.slice(12) };
    prefix -= 96;
  }
  const full = canonical.family === 4 ? 32 : 128;
  return { ok: true, entry: prefix === full ? format(canonical) : `${format(canonical)}/${prefix}` };
}

/**
 * Validates a whole allow-list: canonical entries (duplicates removed, order kept) and, per bad
 * entry, its index and what is wrong. An empty list is refused: it would lock the key out
 * (clear the list instead to allow any address).
 */
export function validateAllowList(entries: readonly unknown[]): { entries: string[]; errors: Array<{ index: number; detail: string }> } {
  const errors: Array<{ index: number; detail: string }> = [];
  const out: string[] = [];
  if (entries.length === 0) errors.push({ index: -1, detail: 'must name at least one address or range; clear the list to allow any address' });
  if (entries.length > MAX_ALLOW_LIST_ENTRIES) errors.push({ index: -1, detail: `must have at most ${MAX_ALLOW_LIST_ENTRIES} entries` });
  entries.forEach((raw, index) => {
    const result = normalizeAllowListEntry(raw);
    if (!result.ok) errors.push({ index, detail: result.detail });
    else if (!out.includes(result.entry)) out.push(result.entry);
  });
  return { entries: out, errors };
}

/**
 * A client address as matching sees it: zone id dropped, IPv4-mapped IPv6 turned into IPv4.
 * Null for anything that is not an address.
 */
export function normalizeClientAddress(ip: string): { family: Family; address: string } | null {
  const text = ip.trim().replace(/%.*$/, '');
  const parsed = parseAddress(text);
  if (!parsed) return null;
  if (parsed.family === 6 && isV4Mapped(parsed.bytes)) return { family: 4, address: format({ family: 4, bytes: parsed.bytes.slice(12) }) };
  return { family: parsed.family, address: format(parsed) };
}

/**
 * A matcher for a stored allow-list: null allows any address; otherwise only addresses on the
 * list. Entries that do not validate are skipped (fail closed: they allow nothing), so a list
 * edited by hand in the database can never widen access.
 */
export function compileAllowList(entries: readonly string[] | null): (ip: string) => boolean {
  if (entries === null) return () => true;
  // One list per family, so that a rule of one family can never match a client of the other
  // whatever BlockList does with mixed families.
  const lists = { 4: new net.BlockList(), 6: new net.BlockList() };
  for (const raw of entries) {
    const result = normalizeAllowListEntry(raw);
    if (!result.ok) continue;
    const [address, prefixText] = result.entry.split('/') as [string, string | undefined];
    const family: Family = net.isIPv4(address) ? 4 : 6;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) lists[family].addAddress(address, type);
    else lists[family].addSubnet(address, Number(prefixText), type);
  }
  return (ip: string) => {
    const client = normalizeClientAddress(ip);
    if (!client) return false;
    return lists[client.family].check(client.address, client.family === 4 ? 'ipv4' : 'ipv6');
  };
}
