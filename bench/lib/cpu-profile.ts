/**
 * Reads a V8 CPU profile (`node --cpu-prof`) and lists where the self time went, by package or source
 * file and by function, per request of the load that ran while it was taken.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/**
 * Only the samples taken while a load ran (start-up and shutdown are not per-request work), in wall
 * clock milliseconds: the profile's clock is monotonic, so its end is placed at `stoppedAt` (when the
 * profiled process was stopped), give or take its exit.
 */
export interface ProfileWindow {
  from: number;
  to: number;
  stoppedAt: number;
}

/** Where a frame's code lives: a package name, a file of ours, or the runtime. */
function place(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.includes('/dist/src/')) return url.slice(url.indexOf('/dist/src/') + 6);
  return url.startsWith('node:') ? url : url === '' ? '(native / GC)' : url;
}

/** The summary of the one profile written into `folder`, per request of `requests`. */
export function summarizeProfile(
  folder: string,
  requests: number,
  top = { places: 20, functions: 30 },
  window?: ProfileWindow,
) {
  const file = readdirSync(folder).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(readFileSync(join(folder, file), 'utf8')) as Profile;
  const self = new Map<number, number>();
  let at = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    at += profile.timeDeltas[i] ?? 0;
    if (window) {
      const wall = window.stoppedAt - (profile.endTime - at) / 1000;
      if (wall < window.from || wall > window.to) continue;
    }
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byPlace = new Map<string, number>();
  const byFn = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (node.callFrame.functionName === '(idle)') continue;
    total += t;
    const where = place(node.callFrame.url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + t);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + t);
  }
  const list = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([k, t]) =>
          `${((t / total) * 100).toFixed(1).padStart(5)} %  ${(t / requests).toFixed(0).padStart(5)} µs/req  ${k}`,
      )
      .join('\n');
  return `busy ${(total / requests).toFixed(0)} µs per request\n\nby place:\n${list(byPlace, top.places)}\n\nby function:\n${list(byFn, top.functions)}\n`;
}
