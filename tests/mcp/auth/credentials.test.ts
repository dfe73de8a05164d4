import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectV1, connectV2, type Harness, startHarness } from '../../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { captureUpstream: true });
});
afterAll(async () => {
  await h?.close();
});

it('upstream sees the workspace credential and user id, never our bearer token', async () => {
  const upstreamToken = await h.credential();
  const access = await h.token({ upstreamToken, upstreamUserId: 'member-42' });
  for (const connect of [connectV2, connectV1]) {
    const client = await connect(h.mcpUrl, access);
    await client.callTool({ name: 'submit_keyword_search', arguments: { query: 'bearer check' } });
    await client.callTool({ name: 'start_agent_run', arguments: { question: 'Bearer check?' } });
    await client.callTool({ name: 'usage', arguments: {} });
    await client.close();
  }
  const wire = h.upstreamBytes();
  expect(wire).toMatch(/POST \/api\/iq\/keyword_search HTTP\/1\.1/);
  expect(wire).toMatch(/POST \/agent\/api\/v1\/runs HTTP\/1\.1/);
  expect(wire.toLowerCase()).toContain(`x-service-token: ${upstreamToken}`.toLowerCase());
  expect(wire.toLowerCase()).toContain('x-service-user-id: member-42');
  expect(wire).not.toContain(access);
  expect(wire.toLowerCase()).not.toContain('authorization:');
  // Nor does any log line hold either token.
  const logs = JSON.stringify(h.logs);
  expect(h.logs.length).toBeGreaterThan(0);
  expect(logs).not.toContain(upstreamToken);
  expect(logs).not.toContain(access);
});
