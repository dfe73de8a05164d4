import { expect } from 'vitest';
import { type SandboxServer, startSandboxServer } from '../../src/sandbox/server.js';
import { FormClient } from './forms.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * A server for the browser-form security tests (tests/web/*-security.test.ts): sandbox upstream, and
 * TRUST_PROXY on, so each FormClient stands for its own address (X-Forwarded-For) and per-IP limits are
 * testable.
 */
export async function startFormSecurityServer(): Promise<{ sandbox: SandboxServer; server: TestServer }> {
  const sandbox = await startSandboxServer({ port: 0, speed: 'instant' });
  const server = await startTestServer({
    upstream: { searchUrl: sandbox.searchUrl, agentUrl: sandbox.agentUrl },
    env: { TRUST_PROXY: 'true' },
  });
  return { sandbox, server };
}

export const PASSWORD = 'violet tractor umbrella';
let n = 0;
/** An email address no other test uses. */
export const freshEmail = () => `person${++n}-${process.pid}-${Date.now()}@example.com`;

/** A browser that signed up (and so is signed in) on the server. */
export async function signedIn(
  server: TestServer,
  email = freshEmail(),
  password = PASSWORD,
): Promise<FormClient> {
  const client = new FormClient(server.url);
  const res = await client.signUp(email, password);
  expect(res.status).toBe(303);
  return client;
}
