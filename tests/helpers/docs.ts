import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './process.js';

/** A markdown file of the repository, by its path from the root (`docs/tools.md`). */
export function readDoc(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The lines of a markdown text with those inside fenced code blocks blanked, so `# x` in code is no heading. */
export function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

export interface Heading {
  level: number;
  text: string;
  line: number;
}

export function headings(text: string): Heading[] {
  return proseLines(text).flatMap((line, index) => {
    const m = /^(#{1,6}) +(.+?) *#*$/.exec(line);
    return m ? [{ level: (m[1] as string).length, text: m[2] as string, line: index }] : [];
  });
}

/**
 * The section under the heading with exactly this text (any level), up to the next heading of the
 * same or a higher level; fails the calling test when there is no such heading.
 */
export function section(text: string, title: string): string {
  const all = headings(text);
  const at = all.findIndex((h) => h.text === title);
  if (at === -1) throw new Error(`no heading "${title}"`);
  const start = all[at] as Heading;
  const next = all.slice(at + 1).find((h) => h.level <= start.level);
  return text.split('\n').slice(start.line, next?.line).join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a markdown text offers: its headings' slugs, repeats numbered as GitHub does. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(text)) {
    const base = slug(h.text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Fenced code blocks of a text, by language. */
export function codeBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] ?? '');
}
