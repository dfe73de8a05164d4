import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/harness.js';
import { compareScreenshot } from '../helpers/page-checks.js';
import { type AppsSetup, startAppsSetup } from './setup.js';
import { SCREENSHOTS, settle, steadyView, viewOverflow } from './view-host.js';

/**
 * The topic-tree and agent-report views hosted in headless Chromium, fed real sandbox results, and
 * every view fed a result it does not draw: it says so instead of drawing nothing.
 */
let s: AppsSetup;
let searchId: number;
beforeAll(async () => {
  s = await startAppsSetup();
  const search = await s.client.callTool({
    name: 'submit_keyword_search',
    arguments: { query: 'bike lanes', start_date: '2026-10-01', end_date: '2026-10-14' },
  });
  searchId = search.structuredContent.search_id;
});
afterAll(async () => {
  await s?.close();
});

/** Branches (nodes with children) and leaves of a topic tree. */
function countNodes(node: Json): { branches: number; leaves: number } {
  const children: Json[] = node.children ?? [];
  if (!children.length) return { branches: 0, leaves: 1 };
  return children
    .map(countNodes)
    .reduce((a, b) => ({ branches: a.branches + b.branches, leaves: a.leaves + b.leaves }), {
      branches: 1,
      leaves: 0,
    });
}

describe('the topic-tree view', () => {
  it('draws every platform tree as collapsible branches with their post counts', async () => {
    const view = await s.show('get_keyword_search_topic_tree', { search_id: searchId });
    const { frame, result } = view;
    await frame.locator('section.tree').first().waitFor();
    const trees: Json[] = result.structuredContent.data;
    expect(await frame.locator('section.tree h2').allTextContents()).toEqual(trees.map((t) => t.platform));
    const expected = trees.map(countNodes).reduce((a, b) => ({
      branches: a.branches + b.branches,
      leaves: a.leaves + b.leaves,
    }));
    expect(await frame.locator('details').count()).toBe(expected.branches);
    expect(await frame.locator('li.leaf').count()).toBe(expected.leaves);
    const firstTopic = trees[0].children[0];
    expect(await frame.locator('summary').allTextContents()).toContain(
      `${firstTopic.name} ${firstTopic.value} posts`,
    );

    // Closed by default below the first level; a click opens one, the buttons all.
    const closed = frame.locator('details:not([open])');
    expect(await closed.count()).toBeGreaterThan(0);
    const topics = await closed.count();
    await frame.locator('details:not([open]) > summary').first().click();
    expect(await closed.count()).toBe(topics - 1);
    await frame.getByRole('button', { name: 'Collapse all' }).click();
    expect(await frame.locator('details[open]').count()).toBe(0);
    await frame.getByRole('button', { name: 'Expand all' }).click();
    expect(await frame.locator('details:not([open])').count()).toBe(0);
    await frame.getByRole('button', { name: 'Collapse all' }).click();
    // As it opens: every tree on its topics. Each click waits for the frame to take the view's new
    // height: a click while the host still resizes it can land where the content was a moment before.
    for (const summary of await frame.locator('ul.root > li > details > summary').all()) {
      await settle(view);
      await summary.click();
    }
    expect(await frame.locator('ul.root > li > details[open]').count()).toBe(trees.length);

    expect(view.requests).toEqual([]);
    expect(view.blocked).toEqual([]);
    expect(view.errors).toEqual([]);
    expect(await viewOverflow(view)).toBe(0);
    await settle(view);
    expect(await compareScreenshot(view.page, 'topic-tree-light-360', SCREENSHOTS)).toBeNull();
  });
});

describe('the agent-report view', () => {
  it('renders the report, its confidence, signals and evidence links', async () => {
    const view = await s.show(
      'start_agent_run',
      { question: 'What are people saying about bike lanes?' },
      { theme: 'dark' },
    );
    const { frame, result } = view;
    await frame.locator('article.report').waitFor();
    const run = result.structuredContent.result;
    expect(await frame.locator('h1').first().textContent()).toBe('What are people saying about bike lanes?');
    expect(await frame.locator('.meta .badge').textContent()).toBe(`confidence ${run.confidence_level}`);
    expect(await frame.locator('.signals li').count()).toBe(run.signals.length);
    expect(await frame.locator('.signals li strong').allTextContents()).toEqual(
      run.signals.map((sig: Json) => sig.label),
    );
    // The markdown is rendered: its headings and list items are elements, not text with # and -.
    expect(await frame.locator('article.report h1').textContent()).toBe('Trend briefing');
    expect(await frame.locator('article.report h2').allTextContents()).toContain('Signals');
    expect(await frame.locator('article.report li').count()).toBeGreaterThanOrEqual(run.signals.length);
    const links = await frame
      .locator('article.report a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(run.evidence_links);
    await frame.locator('article.report a').first().click();
    expect(await view.openedLinks()).toEqual([run.evidence_links[0]]);

    expect(view.requests).toEqual([]);
    expect(view.blocked).toEqual([]);
    expect(view.errors).toEqual([]);
    expect(await viewOverflow(view)).toBe(0);
    await steadyView(frame);
    await settle(view);
    expect(await compareScreenshot(view.page, 'agent-run-dark-360', SCREENSHOTS)).toBeNull();
  });
});

describe('a result a view does not draw', () => {
  it('is named as such, and an error result is shown as its text', async () => {
    const run = await s.client.callTool({
      name: 'start_agent_run',
      arguments: { question: 'Is anyone talking about tram lines?' },
    });
    const search = await s.client.callTool({
      name: 'get_keyword_search',
      arguments: { search_id: searchId },
    });
    const cases: Array<[string, Record<string, unknown>, Json, RegExp]> = [
      [
        'get_keyword_search',
        { search_id: searchId },
        run,
        /draws keyword and user searches, and this result is not one/,
      ],
      [
        'get_keyword_search_topic_tree',
        { search_id: searchId },
        search,
        /draws topic trees, and this result holds none/,
      ],
      [
        'get_agent_run',
        { run_id: run.structuredContent.run_id },
        search,
        /draws agent runs, and this result is not one/,
      ],
    ];
    for (const [tool, args, result, says] of cases) {
      const view = await s.show(tool, args, { result });
      await view.frame.locator('.problem').waitFor();
      expect(await view.frame.locator('.problem').textContent(), tool).toMatch(says);
      expect(await view.frame.locator('figure, details, article').count(), tool).toBe(0);
    }
    const missing = await s.client.callTool({
      name: 'get_keyword_search',
      arguments: { search_id: 999_999 },
    });
    expect(missing.isError).toBe(true);
    const view = await s.show('get_keyword_search', { search_id: 999_999 }, { result: missing });
    await view.frame.locator('.problem').waitFor();
    expect(await view.frame.locator('.problem').textContent()).toBe(missing.content[0].text);
  });
});
