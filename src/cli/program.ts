import { Command, CommanderError, Option } from 'commander';
import { auditExportCommand } from './commands/audit.js';
import { configCommand } from './commands/config.js';
import { copyToPostgresCommand } from './commands/copy.js';
import { listGrantsCommand, revokeGrantsCommand } from './commands/grants.js';
import { purgeCommand, rotateKeyCommand } from './commands/maintenance.js';
import { serveCommand } from './commands/serve.js';
import { stdioCommand } from './commands/stdio.js';
import { createUserCommand, listUsersCommand, resetPasswordCommand } from './commands/users.js';
import { CliError, type CliIo } from './context.js';

export const CLI_NAME = 'social-intel-mcp';

const ENVIRONMENT_NOTE = `
Every command but stdio reads the same environment as the server (DATABASE_PATH, SECRET_KEY, …; see
docs/configuration.md) and applies pending migrations first.`;

/** The admin command line. Exported for the launcher; tests run it as a real process. */
export function buildProgram(io: CliIo): Command {
  const program = new Command(CLI_NAME)
    .description(
      'Administer a social-intel-mcp server (accounts, grants, housekeeping, keys, audit trail), or serve its tools over stdio.',
    )
    .addHelpText('after', ENVIRONMENT_NOTE)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line, named like every other failure: "social-intel-mcp: unknown command 'x' (see --help)".
      outputError: (text, write) =>
        write(
          `${CLI_NAME}: ${text
            .replace(/^error: /, '')
            .trimEnd()
            .replace(/\s*\n\s*/g, ' ')} (see --help)\n`,
        ),
    })
    .exitOverride();

  const passwordOptions = (command: Command) =>
    command
      .option('--password-stdin', 'read the password from standard input (one line)')
      .addOption(
        new Option('--password <password>', 'the password as an argument (lands in shell history: avoid)'),
      );

  const user = program.command('user').description('create users and reset passwords');
  passwordOptions(
    user
      .command('create')
      .description('create a user with a personal workspace (whatever SIGNUP says)')
      .argument('<email>', 'the address they will sign in with'),
  )
    .addHelpText(
      'after',
      '\nWithout --password-stdin or --password, a terminal prompts for the password (not echoed).\nExample:\n  printf %s "$PASSWORD" | social-intel-mcp user create ada@example.com --password-stdin',
    )
    .action((email: string, options: { passwordStdin?: boolean; password?: string }) =>
      createUserCommand(io, email, options),
    );
  passwordOptions(
    user
      .command('reset-password')
      .description(
        "set a new password, end all of the user's browser sessions and disconnect their connected apps",
      )
      .argument('<email>', 'the user')
      .option('--keep-apps', "keep the user's connected apps (their tokens keep working)"),
  ).action((email: string, options: { passwordStdin?: boolean; password?: string; keepApps?: boolean }) =>
    resetPasswordCommand(io, email, options),
  );
  user
    .command('list')
    .description('list users')
    .option('--json', 'JSON instead of text')
    .action((options: { json?: boolean }) => listUsersCommand(io, options));

  const grants = program
    .command('grants')
    .description('list or revoke the OAuth grants (connected AI clients) of a user or a client');
  grants
    .command('list')
    .description('list grants: active, expired (no live refresh token) and, with --all, revoked')
    .option('--user <email>', "the user's grants")
    .option('--client <client_id>', "the client's grants")
    .option('--all', 'include revoked grants')
    .option('--json', 'JSON instead of text')
    .action((options: { user?: string; client?: string; all?: boolean; json?: boolean }) =>
      listGrantsCommand(io, options),
    );
  grants
    .command('revoke')
    .description('revoke grants now: their access and refresh tokens stop working at once')
    .option('--user <email>', 'every grant of the user')
    .option('--client <client_id>', "every grant of the client (with --user: only that user's)")
    .option('--grant <id>', 'one grant, by the id `grants list` shows')
    .action((options: { user?: string; client?: string; grant?: string }) =>
      revokeGrantsCommand(io, options),
    );

  program
    .command('purge')
    .description('delete expired codes, tokens, sessions, dead grants and idle clients now; print counts')
    .action(() => purgeCommand(io));

  program
    .command('rotate-key')
    .description(
      're-encrypt upstream credentials under SECRET_KEY; old envelopes open with SECRET_KEY_PREVIOUS',
    )
    .addHelpText(
      'after',
      '\nSteps: set SECRET_KEY=<new> and SECRET_KEY_PREVIOUS=<old> for the server and restart it, run this\ncommand with the same environment, then remove SECRET_KEY_PREVIOUS. Exits 1 if any credential\ncould not be opened (wrong previous key).',
    )
    .action(() => rotateKeyCommand(io));

  const audit = program.command('audit').description('the audit trail');
  audit
    .command('export')
    .description('write audit events to stdout, oldest first')
    .addOption(new Option('--format <format>', 'csv or json').default('csv'))
    .option(
      '--since <date>',
      'from this instant, inclusive (ISO 8601, e.g. 2026-01-31 or 2026-01-31T12:00:00Z)',
    )
    .option('--until <date>', 'before this instant, exclusive (ISO 8601)')
    .option('--workspace <id>', "only this workspace's events")
    .action((options: { format: string; since?: string; until?: string; workspace?: string }) =>
      auditExportCommand(io, options),
    );

  program
    .command('copy-to-postgres')
    .description(
      'copy the SQLite database into the empty PostgreSQL database at DATABASE_URL, in one transaction',
    )
    .addHelpText(
      'after',
      '\nStop the server first (tokens issued after the copy would not be in PostgreSQL). Reads\nDATABASE_PATH and writes DATABASE_URL (migrated first; it must hold no rows), checks every\nrow count and opens every upstream credential with SECRET_KEY before committing.\nExample:\n  DATABASE_URL=postgres://user:password@host:5432/db social-intel-mcp copy-to-postgres',
    )
    .action(() => copyToPostgresCommand(io));

  program
    .command('stdio')
    .description('serve the MCP tools over standard input and output, for clients that start a local command')
    .addHelpText(
      'after',
      '\nActs as one upstream user: UPSTREAM_TOKEN and UPSTREAM_USER_ID, with UPSTREAM_SEARCH_URL and\nUPSTREAM_AGENT_URL. With no URLs it runs the built-in sandbox in this process and, with no token\neither, its ready credential. Opens no database and writes no file; logs go to standard error.\nExample (Claude Desktop, Cursor and Claude Code start it the same way):\n  UPSTREAM_TOKEN=... UPSTREAM_USER_ID=... UPSTREAM_SEARCH_URL=... UPSTREAM_AGENT_URL=... social-intel-mcp stdio',
    )
    .action(() => stdioCommand(io));

  program
    .command('serve')
    .description('start the hosted server (HTTP, OAuth, /mcp): what `npm start` runs in a checkout')
    .addHelpText(
      'after',
      "\nReads the server's environment (PORT, PUBLIC_URL, DATABASE_PATH or DATABASE_URL, SECRET_KEY, …; see\ndocs/configuration.md), applies pending migrations, then serves until SIGTERM or SIGINT.\nExample:\n  PUBLIC_URL=https://mcp.example.com SECRET_KEY=... social-intel-mcp serve",
    )
    .action(() => serveCommand());

  program
    .command('config')
    .description('print the effective configuration as JSON, secrets masked')
    .action(() => configCommand(io));

  return program;
}

/** Runs the command line; resolves to the exit status. Errors become one line on stderr. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message (or the help/version it was asked for).
      return error.exitCode;
    }
    const message = error instanceof CliError ? error.message : `unexpected error: ${describe(error)}`;
    io.stderr.write(`${CLI_NAME}: ${message}\n`);
    return 1;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}
