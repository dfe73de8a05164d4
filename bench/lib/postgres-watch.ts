/**
 * What a throw-away PostgreSQL cluster spent on a load run: the CPU time of all its processes (the
 * postmaster and its children: the backends serving the gateways, the WAL writer, the checkpointer,
 * autovacuum; from /proc), and per database the round trips clients made to it and the transactions
 * among them (from pg_stat_statements, which counts at once, where pg_stat_database lags by up to ten
 * seconds). Start the cluster with `STATEMENT_SETTINGS`, or only the CPU is read.
 */
import { readdirSync, readFileSync } from 'node:fs';
import postgres from 'postgres';
import { cpuMs } from './stats.js';

export const STATEMENT_SETTINGS = [
  "shared_preload_libraries = 'pg_stat_statements'",
  'pg_stat_statements.track = all',
  'pg_stat_statements.track_utility = on',
];

export interface ClusterReading {
  cpuMs: number;
  /**
   * Statements sent by clients (top-level: not the foreign-key checks and the like that they run
   * inside), BEGIN included, plus one COMMIT or ROLLBACK per BEGIN (pg_stat_statements does not
   * record a COMMIT): each one is a round trip.
   */
  roundTrips: number;
  transactions: number;
}

export interface ClusterWatch {
  /** The cluster's CPU so far, and `database`'s round trips and transactions (BEGINs) so far. */
  read(database: string): Promise<ClusterReading>;
  close(): Promise<void>;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** CPU of the postmaster and every process it started (exited ones are no longer counted). */
function clusterCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === postmaster) continue;
    try {
      if (parentOf(pid) === postmaster) total += cpuMs(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export async function watchCluster(adminUrl: string): Promise<ClusterWatch> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const [me] = await admin<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
  const postmaster = parentOf(Number(me?.pid));
  const [loaded] = await admin<{ on: boolean }[]>`
    SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%' AS on`;
  if (loaded?.on) await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
  return {
    async read(database) {
      const [counts] = loaded?.on
        ? await admin<{ statements: string | null; transactions: string | null }[]>`
            SELECT sum(calls) FILTER (WHERE toplevel AND query !~* '^[[:space:]]*(commit|rollback)') AS statements,
                   sum(calls) FILTER (WHERE toplevel AND query ~* '^[[:space:]]*(begin|start)') AS transactions
            FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ${database})`
        : [];
      const transactions = loaded?.on ? Number(counts?.transactions ?? 0) : Number.NaN;
      return {
        cpuMs: clusterCpuMs(postmaster),
        roundTrips: Number(counts?.statements ?? 0) + transactions,
        transactions,
      };
    },
    close: () => admin.end({ timeout: 5 }),
  };
}
