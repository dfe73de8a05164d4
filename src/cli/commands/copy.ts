import { existsSync } from 'node:fs';
import { CopyRefused, copyStore } from '../../db/copy.js';
import { isPostgresUrl, type OpenStore, openMigratedStore, type Store } from '../../db/store/index.js';
import { SecretBox } from '../../security/secrets.js';
import { CliError, type CliIo, cliConfig, writeLine } from '../context.js';

/**
 * Moves a server from its SQLite file to PostgreSQL: copies DATABASE_PATH into the empty database at
 * DATABASE_URL (migrated first) in one transaction, checks every table's row count, and opens every
 * upstream credential with SECRET_KEY (or SECRET_KEY_PREVIOUS) before committing, so nothing is
 * committed that the server could not use. The URL is read from the environment, never from the
 * command line, since it usually carries a password.
 */
export async function copyToPostgresCommand(io: CliIo): Promise<void> {
  const url = io.env.DATABASE_URL;
  if (!url || !isPostgresUrl(url)) {
    throw new CliError(
      'copy-to-postgres needs DATABASE_URL set to the empty PostgreSQL database to copy into (postgres://user:password@host:port/database)',
    );
  }
  const config = cliConfig(io);
  if (!existsSync(config.databasePath)) {
    throw new CliError(`there is no SQLite database at ${config.databasePath} (DATABASE_PATH) to copy from`);
  }
  const secrets = new SecretBox(config.secretKeys);
  const opened: OpenStore[] = [];
  try {
    const source = (await openMigratedStore({ databasePath: config.databasePath })).store;
    opened.push(source);
    const target = await openMigratedStore({ databaseUrl: url, databasePath: config.databasePath }).catch(
      (error: unknown) => {
        throw new CliError(`cannot prepare the PostgreSQL database: ${firstLine(error)}`);
      },
    );
    opened.push(target.store);
    let credentials = 0;
    const result = await copyStore(source, target.store, {
      beforeCommit: async (tx) => {
        credentials = await openEveryCredential(tx, secrets);
      },
    });
    for (const { table, rows } of result.rows) writeLine(io.stdout, `${table}: ${rows}`);
    writeLine(io.stdout, `upstream credentials opened with the configured key: ${credentials}`);
    writeLine(
      io.stdout,
      'copied in one transaction; start the server with this DATABASE_URL and the same SECRET_KEY',
    );
  } catch (error) {
    if (error instanceof CopyRefused) throw new CliError(`${error.message}; nothing was copied`);
    if (error instanceof CliError) throw error;
    throw new CliError(`the copy failed and was rolled back: ${firstLine(error)}`);
  } finally {
    for (const store of opened) await store.close();
  }
}

/** Opens every credential as the copy has it; a single failure refuses the whole copy. */
async function openEveryCredential(tx: Store, secrets: SecretBox): Promise<number> {
  const { upstreamCredentials: c } = tx.t;
  const rows = await tx.orm.select({ workspaceId: c.workspaceId, envelope: c.tokenCiphertext }).from(c);
  const unreadable = rows.filter((row) => {
    try {
      secrets.open(row.envelope, row.workspaceId);
      return false;
    } catch {
      return true;
    }
  });
  if (unreadable.length) {
    throw new CliError(
      `${unreadable.length} upstream credential${unreadable.length === 1 ? '' : 's'} (workspace ${unreadable
        .map((r) => r.workspaceId)
        .join(
          ', ',
        )}) could not be opened with SECRET_KEY or SECRET_KEY_PREVIOUS; set the key the server uses; nothing was copied`,
    );
  }
  return rows.length;
}

function firstLine(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}
