import { DEFAULT_HOST, DEFAULT_PORT } from './constants.js';
import { startSandboxServer } from './server.js';
import { parseSpeed } from './speed.js';

/** `npm run sandbox`: both hosts on SANDBOX_PORT, the three lines other tools parse, clean shutdown. */
async function main(): Promise<void> {
  const rawPort = process.env.SANDBOX_PORT;
  const port = rawPort === undefined || rawPort === '' ? DEFAULT_PORT : Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`SANDBOX_PORT must be an integer 0–65535; got "${rawPort}"`);
  }
  const speed = parseSpeed(process.env.SANDBOX_SPEED);
  const sandbox = await startSandboxServer({ port, host: process.env.SANDBOX_HOST || DEFAULT_HOST, speed });
  process.stdout.write(
    `SEARCH_URL=${sandbox.searchUrl}\nAGENT_URL=${sandbox.agentUrl}\nTOKEN=${sandbox.token}\n`,
  );
  process.stderr.write(`[sandbox] speed=${speed}; control API at ${sandbox.searchUrl}/__sandbox/\n`);
  const stop = () => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`[sandbox] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
