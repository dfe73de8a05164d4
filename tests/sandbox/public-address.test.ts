import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/oauth/clients/ssrf.js';
import { isPublicAddress } from '../../src/sandbox/public-address.js';

/**
 * The emulator's webhook guard keeps its own copy of the gateway's rule for client metadata documents
 * (the two share no code by design): both must judge every address alike.
 */
const ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '127.0.0.1',
  '10.1.2.3',
  '172.16.0.1',
  '192.168.0.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '192.0.2.1',
  '224.0.0.1',
  '255.255.255.255',
  '::1',
  '::',
  '::ffff:127.0.0.1',
  '::ffff:8.8.8.8',
  '::127.0.0.1',
  '2002:7f00:1::1',
  '2002:0808:0808::1',
  'fe80::1',
  'fc00::1',
  'ff02::1',
  '64:ff9b::7f00:1',
  '2001::1',
  '2001:db8::1',
  '2606:4700:4700::1111',
  'not an address',
];

describe('the sandbox webhook guard', () => {
  it.each(ADDRESSES)('judges %s as the metadata-document guard does', (address) => {
    expect(isPublicAddress(address)).toBe(!isForbiddenAddress(address));
  });

  it('lets public addresses through and nothing of loopback or private ranges', () => {
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(['127.0.0.1', '10.1.2.3', '::1', '::ffff:127.0.0.1', 'fe80::1'].some(isPublicAddress)).toBe(false);
  });
});
