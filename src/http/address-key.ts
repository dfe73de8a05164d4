import { isIPv4, isIPv6 } from 'node:net';

/**
 * What a per-address limit counts: an IPv4 address as it is, an IPv6 address by its /64 prefix. One
 * subscriber is routinely handed a whole /64 (RFC 6177, RFC 8981 temporary addresses), so counting
 * each IPv6 address alone would give one person 2^64 budgets. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2) is the IPv4 address it maps. Anything that is not an
 * address (a proxy's odd header) is counted as written, lower-cased.
 */
export function addressKey(address: string): string {
  let value = address.trim().toLowerCase();
  if (value.startsWith('[') && value.includes(']')) value = value.slice(1, value.indexOf(']'));
  const zone = value.indexOf('%');
  if (zone > 0) value = value.slice(0, zone);
  if (isIPv4(value)) return value;
  if (!isIPv6(value)) return value;
  const groups = expandIPv6(value);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a trailing dotted IPv4 part expanded. */
function expandIPv6(value: string): number[] {
  let text = value;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
