import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentProblems, readTaskArgs, storedTaskArgs } from '../../../src/mcp/catalog/arg-words.js';

const platforms = z.object({ platforms: z.array(z.enum(['twitter', 'reddit'])) });
const issuesOf = (input: unknown) => {
  const parsed = platforms.safeParse(input, { reportInput: true });
  if (parsed.success) throw new Error('expected a refusal');
  return parsed.error.issues;
};

describe('argument errors a model can act on', () => {
  it('names each bad value once and the choices once', () => {
    const text = argumentProblems(issuesOf({ platforms: ['tiktok', 'tiktok', 'mastodon'] }));
    expect(text).toBe(
      'platforms: "tiktok", "mastodon" are not covered by the upstream; it covers twitter, reddit',
    );
  });

  it('keeps the sentence short whatever the caller sends: long values cut, many values counted', () => {
    const long = 'y'.repeat(100_000);
    const many = Array.from({ length: 5_000 }, (_, i) => `p${i}`);
    const text = argumentProblems(issuesOf({ platforms: [long, ...many] }));
    expect(text.length).toBeLessThan(400);
    expect(text).toContain(`"${'y'.repeat(38)}…`);
    expect(text).toContain('and 4996 more');
  });
});

describe('a task keeps how its arguments were read', () => {
  it('stores the notes with its arguments and reads both back; a row stored without notes has none', () => {
    const notes = ['"X" was read as twitter (the upstream\'s name for X).'];
    const stored = storedTaskArgs({ query: 'q', platforms: ['twitter'] }, notes);
    expect(readTaskArgs(stored)).toEqual({ args: { query: 'q', platforms: ['twitter'] }, notes });
    expect(readTaskArgs(storedTaskArgs({ query: 'q' }, []))).toEqual({ args: { query: 'q' }, notes: [] });
    expect(readTaskArgs('{"query":"q"}')).toEqual({ args: { query: 'q' }, notes: [] });
  });
});
