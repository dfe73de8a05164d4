import type { z } from 'zod';

/**
 * Arguments as people write them, and argument errors a model can act on. Platforms are named the
 * way people say them (`X`, `Twitter/X`, `Reddit`): read as the upstream's names, with a note in the
 * answer saying so. An enum error names each bad value once and lists the choices once, and a
 * platform the upstream does not cover (TikTok) is said to be not covered, not merely invalid.
 */

const PLATFORM_KEYS = new Set(['platform', 'platforms']);
/** What people call the upstream's `twitter`. */
const TWITTER_WORDS = new Set([
  'x',
  'twitter/x',
  'x/twitter',
  'x (twitter)',
  'twitter (x)',
  'x.com',
  'twitter.com',
]);

function platformWord(value: unknown, notes: Set<string>): unknown {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TWITTER_WORDS.has(word)) {
    notes.add(`"${value}" was read as twitter (the upstream's name for X).`);
    return 'twitter';
  }
  return word;
}

/** The arguments with platform words read as the upstream's names, and the notes that say so. */
export function readPlatformWords(raw: unknown): { args: unknown; notes: string[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { args: raw, notes: [] };
  const notes = new Set<string>();
  const args: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const key of Object.keys(args)) {
    if (!PLATFORM_KEYS.has(key)) continue;
    const value = args[key];
    args[key] = Array.isArray(value) ? value.map((v) => platformWord(v, notes)) : platformWord(value, notes);
  }
  return { args, notes: [...notes] };
}

/** Validation issues in a sentence: enum errors grouped by argument, each bad value once. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts: string[] = [];
  const choices = new Map<string, { bad: string[]; values: string[] }>();
  for (const issue of issues) {
    if (issue.code === 'invalid_value') {
      // `platforms.0` and `platforms.1` are one argument.
      const key = issue.path.filter((p) => typeof p === 'string').join('.');
      const entry = choices.get(key) ?? { bad: [], values: issue.values.map(String) };
      const input = JSON.stringify((issue as { input?: unknown }).input);
      if (input !== undefined && !entry.bad.includes(input)) entry.bad.push(input);
      if (!choices.has(key)) parts.push(`\u0000${key}`);
      choices.set(key, entry);
    } else parts.push(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  return parts
    .map((part) => {
      if (!part.startsWith('\u0000')) return part;
      const key = part.slice(1);
      const { bad, values } = choices.get(key) ?? { bad: [], values: [] };
      const what = bad.length ? bad.join(', ') : 'the value given';
      const verb = PLATFORM_KEYS.has(key)
        ? `${what} ${bad.length > 1 ? 'are' : 'is'} not covered by the upstream; it covers`
        : `${what} ${bad.length > 1 ? 'are' : 'is'} not one of`;
      return `${key || 'value'}: ${verb} ${values.join(', ')}`;
    })
    .join('; ');
}
