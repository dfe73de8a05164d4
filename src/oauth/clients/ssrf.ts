import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a server-side fetch of a client-supplied URL must never reach: private, loopback,
 * link-local, shared (CGNAT), documentation, benchmarking, multicast and reserved ranges
 * (IANA special-purpose registries, RFC 6890).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    // IPv4-mapped and -compatible IPv6 addresses reach the embedded IPv4 address.
    const mapped = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
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
