import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { TEST_SECRET_KEY } from '../helpers/temp.js';

const base = { DATABASE_PATH: join('/tmp', 'sim-metrics-config', 'x.db'), SECRET_KEY: TEST_SECRET_KEY };

describe('METRICS_TOKEN', () => {
  it('is optional: unset means no /metrics', () => {
    expect(loadConfig(base).metricsToken).toBeNull();
  });

  it('is taken as given when long enough', () => {
    const token = 'f'.repeat(64);
    expect(loadConfig({ ...base, METRICS_TOKEN: token }).metricsToken).toBe(token);
  });

  it('refuses a short or spaced token without echoing it', () => {
    for (const bad of ['short-token', `${'x'.repeat(20)} ${'y'.repeat(20)}`]) {
      let error: unknown;
      try {
        loadConfig({ ...base, METRICS_TOKEN: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'METRICS_TOKEN: must be 32 to 256 visible ASCII characters (e.g. `openssl rand -hex 32`)',
      ]);
      expect((error as Error).message).not.toContain(bad);
    }
  });
});
