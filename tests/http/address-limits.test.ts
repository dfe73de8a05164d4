import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey } from '../../src/http/address-key.js';
import { UPSTREAM_HEADER_REJECTIONS } from '../../src/mcp/auth/upstream-headers.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import { freshEmail, PASSWORD, startFormSecurityServer } from '../helpers/form-security.js';
import { FormClient } from '../helpers/forms.js';
import type { TestServer } from '../helpers/server.js';

/**
 * Per-address limits count an IPv6 client by its /64 (one subscriber's usual allocation), an
 * IPv4-mapped IPv6 address as its IPv4 address: behind TRUST_PROXY, sixty addresses of one /64 are
 * held like one address.
 */
describe('addressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:C000:0201', '192.0.2.1'],
    ['[::ffff:192.0.2.1]', '192.0.2.1'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['[2001:db8:1:2::5]', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8::192.0.2.1', '2001:db8:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s is counted as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('tells two /64s apart', () => {
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
  });
});

describe('behind TRUST_PROXY, the addresses of one /64 share one budget', () => {
  let sandbox: SandboxServer;
  let server: TestServer;
  beforeAll(async () => {
    ({ sandbox, server } = await startFormSecurityServer());
  });
  afterAll(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it('rejected upstream tokens from 60 addresses of one /64: the 21st is refused without asking', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      // Sixty different interface identifiers of 2001:db8:aa:1::/64.
      const address = `2001:db8:aa:1:${(i + 1).toString(16)}:${(i * 7 + 3).toString(16)}:0:1`;
      const res = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-forwarded-for': address,
          'X-SERVICE-TOKEN': `sbx_guess_${i}_${randomUUID()}`,
          'X-SERVICE-USER-ID': 'u',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(UPSTREAM_HEADER_REJECTIONS.limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - UPSTREAM_HEADER_REJECTIONS.limit);
    // An IPv4-mapped form of an address is that address; another /64 has its own budget.
    const other = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-forwarded-for': '2001:db8:aa:2::1',
        'X-SERVICE-TOKEN': `sbx_guess_other_${randomUUID()}`,
        'X-SERVICE-USER-ID': 'u',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(other.status).toBe(401);
  });

  it('sign-ups from 30 addresses of one /64 and its IPv4-mapped twin are counted as one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const address = `2001:db8:bb:1:${(i + 1).toString(16)}::9`;
      const res = await new FormClient(server.url, address).signUp(freshEmail(), PASSWORD);
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 303)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    for (let i = 0; i < 21; i++) {
      const res = await new FormClient(server.url, i % 2 ? '::ffff:192.0.2.77' : '192.0.2.77').signUp(
        freshEmail(),
        PASSWORD,
      );
      statuses.push(res.status);
    }
    expect(statuses.slice(30).filter((s) => s === 429)).toHaveLength(1);
  });
});
