import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/metrics/index.js';
import { registry } from '../../src/metrics/registry.js';
import { ROOT } from '../helpers/process.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const start = readme.indexOf('\n## Metrics\n');
const end = readme.indexOf('\n## ', start + 1);
const text = readme.slice(start, end === -1 ? undefined : end);

describe('README: Metrics', () => {
  it('lists every metric the server defines, with its labels', async () => {
    expect(start).toBeGreaterThan(-1);
    const ours = (await registry.getMetricsAsJSON()).filter(
      (m) => !m.name.startsWith('process_') && !m.name.startsWith('nodejs_'),
    );
    expect(ours.length).toBeGreaterThanOrEqual(11);
    for (const m of ours) {
      const metric = registry.getSingleMetric(m.name) as unknown as { labelNames: string[] };
      const labels = metric.labelNames.length ? metric.labelNames.map((l) => `\`${l}\``).join(', ') : '—';
      expect(text, m.name).toContain(`| \`${m.name}\` | ${labels} |`);
    }
  });

  it('documents METRICS_TOKEN and the 404 without it', () => {
    expect(text).toContain('METRICS_TOKEN');
    expect(text).toContain('404');
    expect(readme).toMatch(/\| `METRICS_TOKEN` \| — \|/);
  });
});
