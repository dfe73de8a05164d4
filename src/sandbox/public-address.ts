import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether the emulator may send a webhook to `address`: only global unicast addresses, by ipaddr.js's
 * range tables (RFC 6890 special-purpose ranges: loopback, private, link-local, CGNAT, documentation,
 * multicast, reserved… are all refused). The same rule as the gateway's guard for client metadata
 * documents, kept here because the emulator shares no code with the gateway. IPv6 forms carrying an
 * IPv4 address are judged by it (IPv4-mapped, RFC 4291 §2.5.5.2; 6to4, RFC 3056 §2); `::/96`
 * (IPv4-compatible, `::`, `::1`) is refused outright.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(whatwgForm(address));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address().toString());
  if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
  const range = v6.range();
  if (range === '6to4') {
    const [, high = 0, low = 0] = v6.parts;
    return isPublicAddress(ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString());
  }
  return range === 'unicast';
}

/** IPv6 as WHATWG URL serialises it: ipaddr.js would read the dotted `::a.b.c.d` form as IPv4-mapped. */
function whatwgForm(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return new URL(`http://[${address}]`).hostname.slice(1, -1);
  throw new Error('not an IP address');
}
