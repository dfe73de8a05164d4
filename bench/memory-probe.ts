/**
 * `npx tsx bench/memory-probe.ts`: where the built gateway's resident memory goes, at start and after
 * the bench's waiting-call load — a tool for finding memory that is not given back, not a figure.
 * Prints RSS, V8's heap (used and total, from /metrics), external and array buffers, and
 * /proc/<pid>/smaps grouped by mapping (the main heap, anonymous maps, file-backed code), at each
 * stage. MEMORY_NODE_ARGS adds gateway flags (e.g. `--max-semi-space-size=1`); MEMORY_ENV adds env
 * (e.g. `MALLOC_ARENA_MAX=2`) as a JSON object.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitingCalls } from './figures/waiting.js';
import { METRICS_TOKEN, startGateway, startSandbox } from './servers.js';
import { setupDatabase } from './setup.js';

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function smapsSummary(pid: number): Record<string, number> {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const groups: Record<string, number> = {};
  let current = '';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1] ?? '';
      current =
        name === ''
          ? '[anon]'
          : name.startsWith('/')
            ? name.includes('.node') || name.includes('.so')
              ? 'native libs'
              : name.includes('/node')
                ? 'node binary'
                : 'files'
            : name;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) groups[current] = (groups[current] ?? 0) + Number(rss[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, Math.round(v * 10) / 10]));
}

async function metrics(url: string): Promise<Record<string, number>> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN) / MB;
  return {
    heapUsed: Math.round(read('nodejs_heap_size_used_bytes')),
    heapTotal: Math.round(read('nodejs_heap_size_total_bytes')),
    external: Math.round(read('nodejs_external_memory_bytes')),
  };
}

function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'sim-mem-'));
  try {
    const sandbox = await startSandbox();
    const tokens: string[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await fetch(`${sandbox.searchUrl}/__sandbox/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ credits: 100_000 }),
      });
      tokens.push(((await res.json()) as { token: string }).token);
    }
    const data = await setupDatabase(join(work, 'bench.db'), tokens, 1);
    const gateway = await startGateway({
      databasePath: join(work, 'bench.db'),
      sandbox,
      logDir: work,
      nodeArgs: (process.env.MEMORY_NODE_ARGS ?? '').split(' ').filter(Boolean),
      env: JSON.parse(process.env.MEMORY_ENV ?? '{}') as Record<string, string>,
      // e.g. MEMORY_WRAP="heaptrack -o /tmp/gateway": the pid and RSS read are then the wrapper's.
      wrap: (process.env.MEMORY_WRAP ?? '').split(' ').filter(Boolean),
    });
    const pid = gateway.proc.pid;
    const stage = async (name: string) => {
      process.stdout.write(
        `${name}: RSS ${rss(pid).toFixed(1)} MB ${JSON.stringify(await metrics(gateway.url))} smaps ${JSON.stringify(smapsSummary(pid))}\n`,
      );
    };
    await sleep(2_000);
    await stage('idle after start');
    if (process.env.MEMORY_PAUSE_MS) {
      // Time to attach a native memory profiler to the gateway (e.g. `heaptrack -p <pid>`).
      process.stdout.write(`gateway pid ${pid}\n`);
      await sleep(Number(process.env.MEMORY_PAUSE_MS));
    }
    const repeats = Number(process.env.MEMORY_REPEATS ?? 2);
    for (let i = 0; i < repeats; i++) {
      const sample = await waitingCalls({
        gateway: { url: gateway.url, pid },
        sandbox,
        grants: data.grants.slice(1),
        calls: Number(process.env.MEMORY_CALLS ?? 1_000),
        lagMs: Number(process.env.MEMORY_LAG_MS ?? 40_000),
      });
      process.stdout.write(
        `waiting run ${i + 1}: peak RSS ${sample.rssPeakMB.toFixed(1)} MB, completed ${sample.completed}\n`,
      );
      await stage(`  3 s after`);
      await sleep(27_000);
      await stage(`  30 s after`);
    }
    await sleep(30_000);
    await stage('60 s after the last');
    if (process.env.MEMORY_SNAPSHOT) {
      // --heapsnapshot-signal=SIGUSR2 in MEMORY_NODE_ARGS: the snapshot (taken after a full GC) lands in
      // the repository root; the stage after it shows what a full GC leaves.
      process.kill(pid, 'SIGUSR2');
      await sleep(20_000);
      await stage('after SIGUSR2 (a heap snapshot, or gc() in an experiment build)');
    }
    await gateway.proc.stop();
    await sandbox.proc.stop();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
