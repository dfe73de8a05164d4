import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRODUCTION_ENV } from '../../bench/servers.js';
import { READY_TIMEOUT_MS } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ROOT } from '../helpers/process.js';

// Docker cannot run on these machines, so the Dockerfile and fly.toml are held to the code here.
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const fly = readFileSync(join(ROOT, 'fly.toml'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};
const defaultPort = loadConfig({
  DATABASE_PATH: join(ROOT, 'data', 'ignored.db'),
  SECRET_KEY: 'c'.repeat(64),
}).port;

describe('Dockerfile', () => {
  it('is multi-stage on Node 22 LTS slim and builds the native addon in the build stage', () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms).toEqual(['node:22-slim', 'node:22-slim']);
    const buildStage = dockerfile.split(/^FROM /m)[1] ?? '';
    expect(buildStage).toMatch(/g\+\+/);
    expect(buildStage).toMatch(/npm ci/);
    expect(buildStage).toMatch(/npm prune --omit=dev/);
  });

  it('runs what `npm start` runs, as a non-root user, with data on /data', () => {
    const startTarget = pkg.scripts.start?.replace(/^node /, '');
    expect(dockerfile).toContain(`CMD ["node", "${startTarget}"]`);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/VOLUME \["\/data"\]/);
    expect(dockerfile).toContain('DATABASE_PATH=/data/');
    expect(dockerfile).toContain('COPY migrations ./migrations');
  });

  it('sets the environment the bench starts its gateways with (so the figures are the image’s)', () => {
    const env = /^ENV ((?:.*\\\n)*.*)$/m.exec(dockerfile)?.[1] ?? '';
    for (const [name, value] of Object.entries(PRODUCTION_ENV)) {
      expect(env).toMatch(new RegExp(`\\b${name}=${value}\\b`));
    }
  });

  it('exposes and health-checks the app port on /healthz', () => {
    expect(dockerfile).toContain(`EXPOSE ${defaultPort}`);
    expect(dockerfile).toContain(`PORT=${defaultPort}`);
    expect(dockerfile).toContain(`http://127.0.0.1:${defaultPort}/healthz`);
  });
});

describe('fly.toml', () => {
  it('points at the same port', () => {
    expect(fly).toMatch(new RegExp(`internal_port = ${defaultPort}\\b`));
    expect(fly).toMatch(/force_https = true/);
    expect(fly).toMatch(/NODE_ENV = "production"/);
  });

  it('routes only to machines whose database answers: the service check is /readyz, and its timeout outlasts the route’s own deadline', () => {
    // tests/reliability/database-outage.test.ts: what /readyz and /healthz answer with the database down.
    const checks = [...fly.matchAll(/\[\[http_service\.checks\]\]([^[]*)/g)].map((m) => m[1] ?? '');
    expect(checks).toHaveLength(1);
    const check = checks[0] as string;
    expect(check).toMatch(/path = "\/readyz"/);
    const timeoutS = Number(/timeout = "(\d+)s"/.exec(check)?.[1]);
    expect(timeoutS * 1000).toBeGreaterThan(READY_TIMEOUT_MS);
    // Top-level [checks] do not steer Fly's proxy: the one check that matters is the service's.
    expect(fly).not.toMatch(/^\[checks\]/m);
  });

  it('runs two or more machines on PostgreSQL, deployed one at a time', () => {
    expect(Number(/min_machines_running = (\d+)/.exec(fly)?.[1])).toBeGreaterThanOrEqual(2);
    expect(fly).not.toMatch(/max_machines_running = 1\b/);
    expect(fly).toMatch(/strategy = "rolling"/);
    // No per-machine SQLite volume; the database is DATABASE_URL, a secret (never in [env]).
    expect(fly).not.toMatch(/\[\[mounts\]\]/);
    expect(fly).not.toMatch(/^\s*DATABASE_(URL|PATH)\s*=/m);
    expect(fly).toMatch(/TRUST_PROXY = "true"/);
  });
});

describe('package.json', () => {
  it('requires the Node the project supports', () => {
    expect(pkg.engines.node).toBe('>=20.19');
  });
});
