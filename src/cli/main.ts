import { runCli } from './program.js';

/** Entry point of `npx social-intel-mcp <command>` (see bin/social-intel-mcp.js). */
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
