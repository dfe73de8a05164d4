import { describe, expect, it } from 'vitest';
import { schema } from '../../src/config-variables.js';
import { readDoc } from '../helpers/docs.js';

describe('docs: the configuration variables', () => {
  it('docs/configuration.md documents every configuration variable the code reads', () => {
    const configuration = readDoc('docs/configuration.md');
    // The schema is what the code reads, so its keys are the list (no parsing of source text).
    const variables = Object.keys(schema.shape);
    expect(variables.length).toBeGreaterThan(15);
    const missing = variables.filter(
      (v) => !configuration.includes(`\`${v}\``) && v !== 'NODE_ENV' && v !== 'HOST',
    );
    expect(missing).toEqual([]);
  });
});
