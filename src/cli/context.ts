import { type Config, ConfigError, loadConfig } from '../config.js';
import { openMigratedStore, type Store } from '../db/store/index.js';

/** A failure the operator can act on: printed as one line, exit status 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** What a command may read and write besides the database: injectable so output stays testable. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** The server's own configuration loading (src/config.ts), with its problems as one CliError. */
export function cliConfig(io: CliIo): Config {
  try {
    return loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(`invalid configuration: ${error.problems.join('; ')}`);
    }
    throw error;
  }
}

/**
 * Runs `work` against the database the server uses (DATABASE_URL's PostgreSQL, else the SQLite file;
 * migrations applied first, exactly as `npm start` does), and closes it afterwards whatever happens.
 */
export async function withDatabase<T>(
  io: CliIo,
  work: (db: Store, config: Config) => T | Promise<T>,
): Promise<T> {
  const config = cliConfig(io);
  const { store } = await openMigratedStore(
    { databaseUrl: config.databaseUrl ?? undefined, databasePath: config.databasePath },
    { max: 2, prepare: config.databasePrepare },
  );
  try {
    return await work(store, config);
  } finally {
    await store.close();
  }
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}
