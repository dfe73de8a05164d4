import type { Readable, Writable } from 'node:stream';
import { CliError, type CliIo } from '../context.js';

/**
 * `social-intel-mcp stdio`: the local MCP server (src/stdio/serve.ts), loaded only for this command,
 * so the admin commands load nothing of the tool catalog. A start-up failure is the CLI's one line.
 */
export async function stdioCommand(io: CliIo): Promise<void> {
  const { runStdioServer, StdioStartError } = await import('../../stdio/serve.js');
  try {
    await runStdioServer({ env: io.env, stdin: io.stdin as Readable, stdout: io.stdout as Writable });
  } catch (error) {
    if (error instanceof StdioStartError) throw new CliError(`stdio: ${error.message}`);
    throw error;
  }
}
