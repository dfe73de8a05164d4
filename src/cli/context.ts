import { type Config, ConfigError, loadConfig } from '../config.js';
import { closeDatabase, type Db, openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';

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
 * Runs `work` against the database the server uses (same path, same pragmas, migrations applied
 * first, exactly as `npm start` does), and closes it afterwards whatever happens.
 */
export async function withDatabase<T>(
  io: CliIo,
  work: (db: Db, config: Config) => T | Promise<T>,
): Promise<T> {
  const config = cliConfig(io);
  const db = openDatabase(config.databasePath);
  try {
    migrate(db);
    return await work(db, config);
  } finally {
    closeDatabase(db);
  }
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(`${line}\n`);
}
