/** The figures as a table (stdout, docs/performance.md) and as JSON (bench/results/latest.json). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib/proc.js';

export interface Row {
  figure: string;
  value: string;
  target: string;
  /** null: a reference figure without a target. */
  met: boolean | null;
  /** The same figure in the run before this round of work (bench/rows.ts), when known. */
  before?: string;
}

export interface Report {
  machine: { nproc: number; cpu: string; node: string; platform: string };
  date: string;
  settings: Record<string, number>;
  rows: Row[];
  raw: Record<string, unknown>;
}

export function machine(): Report['machine'] {
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

export function table(rows: Row[]): string {
  const withBefore = rows.some((r) => r.before !== undefined);
  const head = ['figure', ...(withBefore ? ['before'] : []), 'measured', 'target', 'met'];
  const body = rows.map((r) => [
    r.figure,
    ...(withBefore ? [r.before ?? ''] : []),
    r.value,
    r.target,
    r.met === null ? '—' : r.met ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

export function write(report: Report): string {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
