import { describe, expect, it } from 'vitest';
import { fetchClientMetadataDocument } from '../../src/oauth/clients/cimd-fetch.js';
import { isForbiddenAddress } from '../../src/oauth/clients/ssrf.js';

/**
 * The address check every Client ID Metadata Document fetch goes through (CIMD draft §8, RFC 9700
 * §4.x): on literal hosts before connecting, and on every address DNS answers (cimd.test.ts drives
 * those through real fetches).
 */
const refused = (addresses: string[]) => addresses.filter((a) => !isForbiddenAddress(a));
const allowed = (addresses: string[]) => addresses.filter((a) => isForbiddenAddress(a));

describe('SSRF guard for metadata documents', () => {
  it('IPv4-compatible IPv6 (::/96, RFC 4291 §2.5.5.1) is refused, whatever IPv4 it embeds', () => {
    expect(refused(['::7f00:1', '::127.0.0.1', '::a00:1', '::c0a8:101', '::8.8.8.8', '::808:808'])).toEqual(
      [],
    );
  });

  it('site-local IPv6 (fec0::/10, RFC 3879) is refused', () => {
    expect(refused(['fec0::1', 'fec0:0:0:1::5', 'feff:ffff::1'])).toEqual([]);
  });

  it('6to4 (2002::/16, RFC 3056 §2) is judged by the IPv4 address it embeds', () => {
    // 127.0.0.1, 10.0.0.1, 192.168.1.1, 169.254.169.254 (cloud metadata), 0.0.0.0
    expect(
      refused(['2002:7f00:1::1', '2002:a00:1::', '2002:c0a8:101::1', '2002:a9fe:a9fe::', '2002::1']),
    ).toEqual([]);
    // 8.8.8.8 and 1.1.1.1 are public.
    expect(allowed(['2002:808:808::1', '2002:101:101::'])).toEqual([]);
  });

  it('IPv4-mapped IPv6 is judged by its IPv4 address, in dotted and in hexadecimal form', () => {
    expect(refused(['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a00:1', '::ffff:a9fe:a9fe'])).toEqual([]);
    expect(allowed(['::ffff:8.8.8.8', '::ffff:808:808'])).toEqual([]);
  });

  it('private, loopback, link-local, shared, documentation, multicast and reserved ranges are refused', () => {
    expect(
      refused([
        '0.0.0.0',
        '10.1.2.3',
        '100.64.0.1',
        '127.0.0.1',
        '169.254.169.254',
        '172.16.0.1',
        '192.0.0.8',
        '192.0.2.1',
        '192.168.0.1',
        '198.18.0.1',
        '198.51.100.1',
        '203.0.113.1',
        '224.0.0.1',
        '240.0.0.1',
        '255.255.255.255',
        '::',
        '::1',
        'fc00::1',
        'fd12:3456::1',
        'fe80::1',
        'ff02::1',
        '64:ff9b::7f00:1',
        '64:ff9b::808:808',
        '2001::1',
        '2001:db8::1',
        '100::1',
      ]),
    ).toEqual([]);
  });

  it('public addresses pass', () => {
    expect(
      allowed(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001::200e']),
    ).toEqual([]);
  });

  it('anything that is not an IP address is refused', () => {
    expect(refused(['', 'localhost', '999.1.1.1', '::g'])).toEqual([]);
  });

  it('a literal site-local or IPv4-compatible client_id host is refused before connecting', async () => {
    for (const host of ['[fec0::1]', '[::7f00:1]', '[2002:7f00:1::1]']) {
      await expect(
        fetchClientMetadataDocument(`https://${host}/client.json`, {
          allowPrivateHosts: false,
          timeoutMs: 500,
        }),
      ).rejects.toThrow(/is not a public address/);
    }
  });
});
