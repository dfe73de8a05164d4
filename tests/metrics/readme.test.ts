import { describe, expect, it } from 'vitest';
import '../../src/metrics/index.js';
import { registry } from '../../src/metrics/registry.js';
import { readDoc, section } from '../helpers/docs.js';

const text = section(readDoc('docs/operations.md'), 'Metrics');

describe('docs/operations.md: Metrics', () => {
  it('lists every metric the server defines, with its labels', async () => {
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
    expect(readDoc('docs/configuration.md')).toMatch(/\| `METRICS_TOKEN` \| — \|/);
  });
});
