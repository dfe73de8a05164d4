import { clip, fenced } from './fence.js';
import { isRecord, num, plural } from './format.js';
import { byKindOrder } from './posts.js';
import type { ResultOutput as ToolOutput } from './result-output.js';

/**
 * A keyword search's topic trees for the model: per platform, its themes by weight (the posts each
 * aggregates, and their share), a few sub-themes, and a few example posts cut at a word; no internal
 * hashes. Topic names and examples come from posts, so the trees sit inside the untrusted-content
 * fence. `structuredContent` keeps the trees whole.
 */

/** Themes shown per tree, sub-themes per theme, example posts per theme, characters per example. */
const THEMES = 8;
const SUBTHEMES = 4;
const EXAMPLES = 2;
const EXAMPLE_CHARS = 72;

interface TopicNode {
  name: string;
  value?: number;
  children: TopicNode[];
}

function readNode(value: unknown, depth = 0): TopicNode {
  const node = isRecord(value) ? value : {};
  const children = Array.isArray(node.children) && depth < 8 ? node.children : [];
  return {
    name: typeof node.name === 'string' ? node.name : '(unnamed)',
    ...(typeof node.value === 'number' ? { value: node.value } : {}),
    children: children.map((c) => readNode(c, depth + 1)),
  };
}

/** The posts a node stands for: its own weight, or its children's. */
function weight(node: TopicNode): number {
  return node.value ?? node.children.reduce((sum, c) => sum + weight(c), 0);
}

/** A post cut at the last whole word within `max` characters (upstream cuts its examples mid-word). */
function example(text: string, max = EXAMPLE_CHARS): string {
  const one = clip(text, 10_000);
  if (one.length <= max) return one;
  const cut = one.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

const isLeafParent = (node: TopicNode) =>
  node.children.length > 0 && node.children.every((c) => !c.children.length);

function themeLines(theme: TopicNode, total: number, indent: string, depth: number): string[] {
  const w = weight(theme);
  const share = total > 0 ? ` (${Math.round((w / total) * 100)}%)` : '';
  const head = `${indent}- ${clip(theme.name, 80)}: ${plural(w, 'post')}${share}`;
  if (isLeafParent(theme)) {
    const shown = theme.children.slice(0, EXAMPLES).map((c) => `"${example(c.name)}"`);
    return [`${head}; e.g. ${shown.join('; ')}`];
  }
  const lines = [head];
  if (depth >= 2) return lines;
  const subs = [...theme.children].sort((a, b) => weight(b) - weight(a));
  for (const sub of subs.slice(0, SUBTHEMES)) lines.push(...themeLines(sub, w, `${indent}  `, depth + 1));
  if (subs.length > SUBTHEMES)
    lines.push(`${indent}  - and ${plural(subs.length - SUBTHEMES, 'more sub-theme')}`);
  return lines;
}

function treeLines(platform: string, root: TopicNode): string[] {
  const themes = [...root.children].sort((a, b) => weight(b) - weight(a));
  const total = weight(root);
  const lines = [
    `${platform}: "${clip(root.name, 120)}", ${plural(total, 'post')} in ${plural(themes.length, 'theme')}:`,
  ];
  for (const theme of themes.slice(0, THEMES)) lines.push(...themeLines(theme, total, '', 1));
  const rest = themes.slice(THEMES);
  if (rest.length) {
    const posts = rest.reduce((sum, t) => sum + weight(t), 0);
    lines.push(`- and ${plural(rest.length, 'more theme')} (${plural(posts, 'post')})`);
  }
  return lines;
}

export function topicTreeOutput(searchId: number, trees: readonly unknown[]): ToolOutput {
  const read = trees
    .filter(isRecord)
    .map((tree) => ({
      platform: typeof tree.platform === 'string' ? tree.platform : 'unknown',
      root: readNode(tree),
    }))
    .sort((a, b) => byKindOrder(a.platform, b.platform));
  const data = { search_id: searchId, data: trees };
  if (read.length === 0) {
    return {
      data,
      text: `Keyword search ${searchId} finished without topic trees (a LinkedIn search has none).`,
    };
  }
  const head = `Topic trees of keyword search ${searchId}: ${read.map((t) => t.platform).join(', ')}. Themes by the posts each gathers (${num(read.length)} ${read.length === 1 ? 'tree' : 'trees'}); topic names and examples come from posts.`;
  const body = read.flatMap(({ platform, root }, i) => [...(i ? [''] : []), ...treeLines(platform, root)]);
  return { data, text: [head, fenced(body)].join('\n'), untrusted: true };
}
