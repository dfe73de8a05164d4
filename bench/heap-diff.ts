/**
 * `npx tsx bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [per]`: what the heap gained
 * between two snapshots, grouped by constructor (objects), closure name, or node type (strings, arrays,
 * code…): the count and self size added, largest first. With `per` (e.g. the number of waiting calls
 * between the snapshots) each row also shows count and bytes per unit. bench/lib/heap-probe.mjs writes
 * such snapshots at its readings (BENCH_HEAP_SNAPSHOTS; bench/waiting-only.ts: WAIT_SNAPSHOTS).
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

type Groups = Map<string, { count: number; bytes: number }>;

function groups(file: string): Groups {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const out: Groups = new Map();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt] as number] ?? '?';
    const name = snap.strings[snap.nodes[i + nameAt] as number] ?? '';
    let key: string;
    if (type === 'object') key = name;
    else if (type === 'closure') key = `(closure) ${name || '(anonymous)'}`;
    else if (type.includes('string')) key = '(strings)';
    else if (type === 'code' || type === 'number') key = `(${type})`;
    else key = `(${type}) ${name.slice(0, 60)}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count += 1;
    g.bytes += snap.nodes[i + sizeAt] as number;
    out.set(key, g);
  }
  return out;
}

const [beforeFile, afterFile, perArg] = process.argv.slice(2);
if (!beforeFile || !afterFile) throw new Error('usage: tsx bench/heap-diff.ts <before> <after> [per]');
const per = Number(perArg ?? 1);
const before = groups(beforeFile);
const after = groups(afterFile);
const rows = [...after]
  .map(([key, a]) => {
    const b = before.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: a.count - b.count, bytes: a.bytes - b.bytes };
  })
  .filter((r) => r.bytes !== 0)
  .sort((x, y) => y.bytes - x.bytes);
let total = 0;
for (const r of rows) total += r.bytes;
const fmt = (n: number, d = 0) => n.toFixed(d).padStart(10);
process.stdout.write(
  `total ${(total / 1024).toFixed(0)} KB gained; per unit ${(total / per / 1024).toFixed(2)} KB\n`,
);
process.stdout.write(
  `${'bytes'.padStart(10)} ${'count'.padStart(10)} ${'B/unit'.padStart(10)} ${'n/unit'.padStart(10)}  group\n`,
);
for (const r of rows.slice(0, 60)) {
  process.stdout.write(
    `${fmt(r.bytes)} ${fmt(r.count)} ${fmt(r.bytes / per)} ${fmt(r.count / per, 2)}  ${r.key}\n`,
  );
}
