import { runStdioServer, StdioStartError } from './serve.js';

/**
 * The stdio server as a process entry of its own: the MCP Bundle's entry point (manifest.json). It is
 * what `social-intel-mcp stdio` runs, with the same one-line failures, but without the admin command
 * line, whose commands load native modules (SQLite, argon2) that a bundle built on one platform
 * cannot carry for another: nothing on this path loads one.
 */
try {
  await runStdioServer({ env: process.env, stdin: process.stdin, stdout: process.stdout });
} catch (error) {
  const message =
    error instanceof StdioStartError
      ? `stdio: ${error.message}`
      : `unexpected error: ${error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error)}`;
  process.stderr.write(`social-intel-mcp: ${message}\n`);
  process.exitCode = 1;
}
