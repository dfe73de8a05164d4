import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether a server-side fetch of a client-supplied URL must never connect to `address`. Only
 * addresses ipaddr.js classifies as global `unicast` pass: private, loopback, link-local, shared
 * (CGNAT), documentation, benchmarking, multicast, reserved and every other IANA special-purpose range
 * (RFC 6890) is refused, by the library's maintained range tables rather than a hand-written list.
 *
 * IPv6 forms that carry an IPv4 address are judged by that address:
 * - IPv4-mapped `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2) reaches a.b.c.d on a dual-stack socket;
 * - 6to4 `2002:aabb:ccdd::/48` (RFC 3056 §2) embeds a.b.c.d = aa.bb.cc.dd in bits 16–47;
 * - IPv4-compatible `::a.b.c.d` (`::/96`, deprecated by RFC 4291 §2.5.5.1) is refused outright, as
 *   are NAT64 (RFC 6052) and Teredo, whose targets the relay decides.
 */
export function isForbiddenAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(canonical(address));
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isForbiddenAddress(v6.toIPv4Address().toString());
  const parts = v6.parts;
  if (parts.slice(0, 6).every((p) => p === 0)) return true; // ::/96, including :: and ::1
  const range = v6.range();
  if (range === '6to4') {
    const [, high = 0, low = 0] = parts;
    return isForbiddenAddress(
      ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString(),
    );
  }
  return range !== 'unicast';
}

/**
 * IPv6 in the WHATWG URL serialisation (hexadecimal, compressed), the form URL hosts and DNS answers
 * arrive in. ipaddr.js reads the deprecated dotted `::a.b.c.d` form as IPv4-mapped, so that textual
 * form must not reach it.
 */
function canonical(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return new URL(`http://[${address}]`).hostname.slice(1, -1);
  throw new Error('not an IP address');
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses forbidden addresses. Because the socket connects to
 * exactly the address checked here, a DNS answer that changes between check and connect (DNS
 * rebinding) cannot slip through.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isForbiddenAddress(a.address));
      if (allowed.length === 0 || allowed.length !== addresses.length) {
        const error: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to an address that is not public`,
        );
        error.code = 'EFORBIDDENADDRESS';
        return callback(error, []);
      }
      if (options.all) return callback(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
