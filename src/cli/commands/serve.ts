/**
 * `social-intel-mcp serve`: the hosted server (src/main.ts), as `npm start` runs it from a checkout,
 * for an installed package that has no npm scripts to run. It reads the same environment and keeps
 * running until SIGTERM or SIGINT, which main.ts handles (graceful shutdown, then exit).
 */
export async function serveCommand(): Promise<void> {
  await import('../../main.js');
}
