import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

/**
 * A throw-away PostgreSQL cluster for one test run: Debian's binaries (`postgresql` package; .ci/run
 * installs it), `initdb` into a temp folder, `pg_ctl` on its own loopback port, a random password.
 * No system service is involved. initdb refuses to run as root, so under root (CI) the server runs as
 * the `postgres` user the package creates.
 */
export interface PostgresCluster {
  /** Superuser URL of the `postgres` database (create and drop test databases through it). */
  adminUrl: string;
  stop(): void;
  /**
   * Shuts the server down as an operator's restart does (`pg_ctl stop -m fast`: every session ended
   * with 57P01, new connections refused) and starts it again on the same port, with an `outage` between
   * the two. Asynchronous, so a server in the test's own process keeps answering meanwhile.
   */
  shutDown(): Promise<void>;
  startAgain(): Promise<void>;
}

const SETTINGS = [
  // Loopback only, and the socket in the cluster's folder rather than /var/run/postgresql.
  "listen_addresses = '127.0.0.1'",
  // Durability is worthless for a cluster deleted at the end of the run; speed is not.
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  // Test files run in parallel, each with its own database and servers with their own pools.
  'max_connections = 300',
];

export function postgresBinDir(): string {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (!newest) {
    throw new Error(
      "PostgreSQL binaries not found under /usr/lib/postgresql/<version>/bin: install Debian's postgresql package (.ci/run does), or set PG_BIN.",
    );
  }
  return join(root, newest, 'bin');
}

/** uid/gid to run the server as: the `postgres` user when we are root, else ourselves. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const FOLDER_PREFIX = 'sim-pg-';
/** The pid of the process that started a cluster, in its folder. */
const OWNER_FILE = 'owner.pid';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and deletes clusters left by test runs that were killed before their teardown (SIGKILL skips
 * it). Only clusters whose starting process is gone: other runs on this machine keep theirs.
 */
function removeOrphanedClusters(bin: string, user: { uid: number; gid: number } | undefined): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(FOLDER_PREFIX))) {
    const folder = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(folder, OWNER_FILE), 'utf8'));
    } catch {
      continue; // not (yet) a cluster of ours
    }
    if (!Number.isInteger(owner) || isAlive(owner)) continue;
    spawnSync(join(bin, 'pg_ctl'), ['-D', join(folder, 'data'), '-m', 'immediate', '-w', 'stop'], {
      ...user,
      cwd: folder,
    });
    rmSync(folder, { recursive: true, force: true });
  }
}

/** `settings`: more postgresql.conf lines (the bench loads pg_stat_statements to count statements). */
export async function startPostgresCluster(settings: readonly string[] = []): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const user = serverUser();
  removeOrphanedClusters(bin, user);
  const folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX));
  writeFileSync(join(folder, OWNER_FILE), String(process.pid));
  const data = join(folder, 'data');
  const password = randomBytes(16).toString('hex');
  const run = (command: string, args: string[]) => {
    const result = spawnSync(join(bin, command), args, { ...user, encoding: 'utf8', cwd: folder });
    if (result.status !== 0) {
      throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
    }
  };
  writeFileSync(join(folder, 'pwfile'), password);
  if (user) chownSync(folder, user.uid, user.gid);
  if (user) chownSync(join(folder, 'pwfile'), user.uid, user.gid);
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--pwfile',
    join(folder, 'pwfile'),
    '--auth=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  rmSync(join(folder, 'pwfile'));
  appendFileSync(
    join(data, 'postgresql.conf'),
    `\n${[...SETTINGS, ...settings, `unix_socket_directories = '${folder}'`].join('\n')}\n`,
  );

  const stop = () => {
    spawnSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...user, cwd: folder });
    rmSync(folder, { recursive: true, force: true });
  };
  // A port found free can be taken before the server binds it: try again with another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      run('pg_ctl', [
        '-D',
        data,
        '-l',
        join(folder, 'server.log'),
        '-o',
        `-p ${port}`,
        '-w',
        '-t',
        '60',
        'start',
      ]);
      const pgCtl = (args: string[]) =>
        promisify(execFile)(join(bin, 'pg_ctl'), ['-D', data, ...args], { ...user, cwd: folder }).then(
          () => {},
        );
      return {
        adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
        stop,
        shutDown: () => pgCtl(['-m', 'fast', '-w', 'stop']),
        startAgain: () =>
          pgCtl(['-l', join(folder, 'server.log'), '-o', `-p ${port}`, '-w', '-t', '60', 'start']),
      };
    } catch (error) {
      if (attempt >= 3) {
        stop();
        throw error;
      }
    }
  }
}

/** The database globalSetup migrates once; `freshPostgresDatabase({ migrated: true })` clones it. */
export const MIGRATED_TEMPLATE = 'sim_migrated';

/** The URL of another database of the cluster `adminUrl` belongs to. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * CREATE DATABASE, empty or as a copy of `template`. FILE_COPY copies the files (and checkpoints,
 * cheap with fsync off) instead of writing every block to the WAL: the faster of the two here.
 */
export async function createDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(
      `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''} STRATEGY = FILE_COPY`,
    );
  } finally {
    await admin.end();
  }
}
