import type { Readable, Writable } from 'node:stream';
import { ConfigError } from '../config.js';
import { batchedDestination, createConfiguredLogger } from '../logger.js';
import { startTelemetry } from '../telemetry/start.js';
import { TelemetryConfigError, telemetrySettings } from '../telemetry/wanted.js';
import { verifyUpstreamToken } from '../upstream/verify-credential.js';
import { startLocalUpstream } from '../upstream-target.js';
import { loadStdioConfig } from './config.js';

/** Why the stdio server could not start: one line for standard error, exit status 1. */
export class StdioStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StdioStartError';
  }
}

export interface StdioIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  stdout: Writable;
}

/**
 * `social-intel-mcp stdio`: the local MCP server a client starts as a command. The environment names
 * the upstream user (UPSTREAM_TOKEN, UPSTREAM_USER_ID) and hosts (none: the built-in sandbox in this
 * process, with its ready credential unless a token is given); the token is checked with one upstream
 * call before the first message is read, so wrong credentials end the process with one line on
 * standard error instead of failing every tool. Standard output carries protocol messages only: logs go
 * to standard error. Resolves when the client closes standard input.
 */
export async function runStdioServer(io: StdioIo): Promise<void> {
  let config: ReturnType<typeof loadStdioConfig>;
  try {
    config = loadStdioConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new StdioStartError(`invalid configuration: ${error.problems.join('; ')}`);
    throw error;
  }
  let traced: boolean;
  try {
    traced = telemetrySettings(io.env) !== null;
  } catch (error) {
    if (error instanceof TelemetryConfigError)
      throw new StdioStartError(`invalid configuration: ${error.message}`);
    throw error;
  }
  const logger = createConfiguredLogger(config, batchedDestination(2), { traced });
  const telemetry = await startTelemetry(io.env, logger);
  const upstream = await startLocalUpstream({ ...config.upstream, speed: config.sandboxSpeed });
  const sandbox = upstream.sandboxToken !== null;
  try {
    const token = config.credentials.token ?? upstream.sandboxToken;
    if (token === null) throw new StdioStartError('UPSTREAM_TOKEN: missing; set it to your API token');
    const verdict = await verifyUpstreamToken({
      searchUrl: upstream.searchUrl,
      tokenHeader: config.upstream.tokenHeader,
      token,
    });
    if (verdict.status === 'rejected') {
      throw new StdioStartError(
        sandbox
          ? `the built-in sandbox (no UPSTREAM_SEARCH_URL and UPSTREAM_AGENT_URL set) rejected UPSTREAM_TOKEN (HTTP ${verdict.httpStatus}): it knows only the credential it makes itself; unset UPSTREAM_TOKEN to use that, or set both URLs to reach the real API`
          : `the upstream API rejected UPSTREAM_TOKEN (HTTP ${verdict.httpStatus}): correct it where your MCP client starts this server`,
      );
    }
    if (verdict.status === 'unavailable') {
      throw new StdioStartError(
        `could not check UPSTREAM_TOKEN: the upstream API at ${upstream.searchUrl} did not answer (${verdict.reason}); check UPSTREAM_SEARCH_URL and the network, then start again`,
      );
    }
    if (sandbox) {
      logger.warn(
        { speed: config.sandboxSpeed },
        'sandbox mode: no UPSTREAM_SEARCH_URL/UPSTREAM_AGENT_URL set, tools use the built-in emulator (its records last as long as this process)',
      );
    }
    // Loaded once the credentials are known to work: a refusal comes without loading the catalog.
    const { serveCatalogOverStdio } = await import('../mcp/stdio.js');
    const server = serveCatalogOverStdio({
      upstream: { ...config.upstream, searchUrl: upstream.searchUrl, agentUrl: upstream.agentUrl },
      credentials: { token, userId: config.credentials.userId },
      tuning: config.mcp,
      logger,
      stdin: io.stdin,
      stdout: io.stdout,
    });
    logger.info('serving MCP over stdio');
    await server.closed;
  } finally {
    await upstream.close();
    await telemetry.stop();
    logger.flush();
  }
}
