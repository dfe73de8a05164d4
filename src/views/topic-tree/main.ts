import '../common/base.css';
import './style.css';
import { type ToolResult, ViewBridge } from '../common/bridge.js';
import { el, integer, isRecord, message } from '../common/dom.js';
import { applyHostContext } from '../common/theme.js';

/**
 * A keyword search's topic trees (get_keyword_search_topic_tree): one tree per platform, each branch a
 * native <details> element, so it opens and closes by keyboard and pointer without script. Topic names
 * are taken from posts: they are set as text, never as markup.
 */
const view = document.getElementById('view') as HTMLElement;

/** Branches deeper than this start closed: each tree opens on its topics, their posts one click away. */
const OPEN_DEPTH = 0;
/** A tree far larger than any upstream sends is cut here, so the frame stays usable. */
const MAX_NODES = 2_000;

interface TopicNode {
  name: string;
  value?: number;
  children: TopicNode[];
}

function readNode(value: unknown, budget: { left: number }): TopicNode | null {
  if (!isRecord(value) || budget.left <= 0) return null;
  budget.left--;
  const children = Array.isArray(value.children)
    ? value.children.map((c) => readNode(c, budget)).filter((c): c is TopicNode => c !== null)
    : [];
  const weight = typeof value.value === 'number' ? value.value : undefined;
  return { name: typeof value.name === 'string' ? value.name : '(unnamed)', value: weight, children };
}

function readTrees(content: unknown): Array<{ platform: string; root: TopicNode }> | null {
  if (!isRecord(content) || !Array.isArray(content.data)) return null;
  const budget = { left: MAX_NODES };
  return content.data.flatMap((tree) => {
    const root = readNode(tree, budget);
    if (!root || !isRecord(tree)) return [];
    return [{ platform: typeof tree.platform === 'string' ? tree.platform : 'unknown', root }];
  });
}

function render(node: TopicNode, depth: number): HTMLElement {
  const weight =
    node.value !== undefined ? el('span', { class: 'weight' }, `${integer.format(node.value)} posts`) : null;
  if (!node.children.length) return el('li', { class: 'leaf' }, node.name, weight ? ' ' : '', weight);
  const details = el(
    'details',
    { open: depth <= OPEN_DEPTH ? '' : undefined },
    el('summary', {}, el('span', { class: 'name' }, node.name), ' ', weight),
    el('ul', {}, ...node.children.map((c) => render(c, depth + 1))),
  );
  return el('li', {}, details);
}

function setAll(open: boolean): void {
  for (const d of view.querySelectorAll('details')) d.open = open;
}

function show(result: ToolResult): void {
  if (result.isError) {
    const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
    view.replaceChildren(message('problem', text || 'The tool answered with an error.'));
    return;
  }
  const trees = readTrees(result.structuredContent);
  if (!trees) {
    view.replaceChildren(
      message(
        'problem',
        'This view draws topic trees, and this result holds none. The text answer has everything it holds.',
      ),
    );
    return;
  }
  const searchId = isRecord(result.structuredContent) ? result.structuredContent.search_id : undefined;
  const expand = el('button', { type: 'button' }, 'Expand all');
  const collapse = el('button', { type: 'button' }, 'Collapse all');
  expand.addEventListener('click', () => setAll(true));
  collapse.addEventListener('click', () => setAll(false));
  view.replaceChildren(
    el('h1', {}, `Topic trees${typeof searchId === 'number' ? ` of keyword search ${searchId}` : ''}`),
    el(
      'p',
      { class: 'meta' },
      `${trees.length} platform${trees.length === 1 ? '' : 's'} · themes weighted by posts; topic names come from posts and are shown as text.`,
    ),
    trees.length
      ? el('p', { class: 'actions' }, expand, ' ', collapse)
      : message('note', 'No topic trees: the search has none yet.'),
    ...trees.map(({ platform, root }) =>
      el('section', { class: 'tree' }, el('h2', {}, platform), el('ul', { class: 'root' }, render(root, 0))),
    ),
  );
}

const bridge = new ViewBridge(
  { name: 'social-intel-topic-tree', version: '1.0.0' },
  { toolResult: show, hostContext: applyHostContext },
);
bridge.connect().catch((error: Error) => {
  view.replaceChildren(message('problem', `No host answered: ${error.message}`));
});
