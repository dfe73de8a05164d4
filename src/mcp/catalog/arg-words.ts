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

/** A bad value as the error names it: the caller picks its size, so it is cut. */
const SHOWN_VALUE_LENGTH = 40;
/** Bad values named per argument; past this, how many more. */
const SHOWN_VALUES = 5;

function shownValue(input: unknown): string | undefined {
  const text = JSON.stringify(input);
  if (text === undefined || text.length <= SHOWN_VALUE_LENGTH) return text;
  return `${text.slice(0, SHOWN_VALUE_LENGTH - 1)}…`;
}

/** One argument's enum errors: its bad values, each once (a set: an array argument may be long), and its choices. */
interface EnumIssues {
  key: string;
  bad: Set<string>;
  values: string[];
}

/** Validation issues in a sentence: enum errors grouped by argument, each bad value once. */
export function argumentProblems(issues: readonly z.core.$ZodIssue[]): string {
  const parts: (string | EnumIssues)[] = [];
  const byKey = new Map<string, EnumIssues>();
  for (const issue of issues) {
    if (issue.code !== 'invalid_value') {
      parts.push(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
      continue;
    }
    // `platforms.0` and `platforms.1` are one argument.
    const key = issue.path.filter((p) => typeof p === 'string').join('.');
    let entry = byKey.get(key);
    if (!entry) {
      entry = { key, bad: new Set(), values: issue.values.map(String) };
      byKey.set(key, entry);
      parts.push(entry);
    }
    const shown = shownValue((issue as { input?: unknown }).input);
    if (shown !== undefined) entry.bad.add(shown);
  }
  return parts.map((part) => (typeof part === 'string' ? part : enumSentence(part))).join('; ');
}

function enumSentence({ key, bad, values }: EnumIssues): string {
  const named = [...bad].slice(0, SHOWN_VALUES);
  const more = bad.size - named.length;
  const what = bad.size ? `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}` : 'the value given';
  const are = bad.size > 1 ? 'are' : 'is';
  const verb = PLATFORM_KEYS.has(key)
    ? `${what} ${are} not covered by the upstream; it covers`
    : `${what} ${are} not one of`;
  return `${key || 'value'}: ${verb} ${values.join(', ')}`;
}

/** An answer with the notes on how its arguments were read first, as every path answers a call. */
export function withArgNotes<T extends { text: string }>(out: T, notes: readonly string[]): T {
  return notes.length ? { ...out, text: [...notes, out.text].join('\n') } : out;
}

/** Where a task keeps its notes inside its stored arguments: no tool argument may be named so (strict schemas). */
const NOTES_KEY = '_read_as';

/** A task's arguments as stored, with the notes its answer carries (a task may end on another instance). */
export function storedTaskArgs(args: unknown, notes: readonly string[]): string {
  return JSON.stringify(notes.length ? { ...(args as Record<string, unknown>), [NOTES_KEY]: notes } : args);
}

/** A task's stored arguments read back: the arguments its work runs with, and its notes. */
export function readTaskArgs(stored: string): { args: Record<string, unknown>; notes: string[] } {
  const { [NOTES_KEY]: notes, ...args } = JSON.parse(stored) as Record<string, unknown>;
  return { args, notes: Array.isArray(notes) ? notes.map(String) : [] };
}
