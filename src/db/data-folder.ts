import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, relative, resolve } from 'node:path';

/** Owner-only modes for the data folder and what it holds (database, its -wal/-shm, the dev key). */
export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` the private data folder: created (with its parents) as 0700, or tightened to 0700 when
 * it exists and belongs to this process's user. A folder that is plainly not only ours is left as it
 * is: the working directory or one of its parents, the home directory, or a shared folder with the
 * sticky bit (/tmp); the files in it are still made 0600 (privateFile).
 */
export function privateFolder(dir: string): void {
  const path = resolve(dir);
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    chmodSync(path, PRIVATE_FOLDER_MODE); // the umask may have removed bits, never added: be exact
    return;
  }
  const stat = statSync(path);
  const ours = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  const sticky = (stat.mode & 0o1000) !== 0;
  const aboveCwd = !relative(path, process.cwd()).startsWith('..');
  if (!ours || sticky || aboveCwd || path === resolve(homedir())) return;
  if ((stat.mode & 0o777) !== PRIVATE_FOLDER_MODE) chmodSync(path, PRIVATE_FOLDER_MODE);
}

/** Creates `path` empty as 0600 when missing, or tightens it to 0600; its folder via privateFolder. */
export function privateFile(path: string): void {
  privateFolder(dirname(path));
  if (!existsSync(path)) closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  if ((statSync(path).mode & 0o777) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE);
}
