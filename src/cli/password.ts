import { CliError, type CliIo } from './context.js';

export interface PasswordOptions {
  passwordStdin?: boolean;
  password?: string;
}

/**
 * The new password, from (in order of preference) standard input with --password-stdin, a hidden
 * prompt on a terminal, or --password with a warning (a plain argument lands in shell history and in
 * the process list).
 */
export async function readNewPassword(io: CliIo, options: PasswordOptions): Promise<string> {
  if (options.passwordStdin && options.password !== undefined) {
    throw new CliError('use either --password-stdin or --password, not both');
  }
  if (options.passwordStdin) {
    const text = await readAll(io.stdin);
    // One trailing newline is what `echo` and here-strings add; anything else is part of the password.
    const password = text.replace(/\r?\n$/, '');
    if (!password) throw new CliError('--password-stdin: standard input was empty');
    return password;
  }
  if (options.password !== undefined) {
    io.stderr.write(
      'warning: --password leaves the password in shell history and the process list; prefer --password-stdin\n',
    );
    return options.password;
  }
  if (io.stdin.isTTY) {
    const first = await promptHidden(io, 'New password: ');
    const second = await promptHidden(io, 'Repeat it: ');
    if (first !== second) throw new CliError('the two passwords differ');
    return first;
  }
  throw new CliError('no password given: pipe it with --password-stdin, or run in a terminal to be prompted');
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk as string;
  return text;
}

/** Reads one line from the terminal without echoing it. */
function promptHidden(io: CliIo, question: string): Promise<string> {
  const stdin = io.stdin;
  io.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  let value = '';
  return new Promise((resolve, reject) => {
    const finish = () => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      io.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new CliError('cancelled'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
