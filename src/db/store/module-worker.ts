import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside the module at `here` (its import.meta.url): the
 * compiled `.js` file in production; from the TypeScript sources (development, tests) it is loaded
 * through tsx, which a worker thread does not inherit.
 */
export function moduleWorker(here: string, name: string, workerData: unknown): Worker {
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const entry = new URL(`./${name}.ts`, here).href;
  const boot = `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
  return new Worker(boot, { eval: true, workerData });
}
