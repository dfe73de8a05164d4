import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/harness.js';
import { type AppsSetup, startAppsSetup } from './setup.js';
import type { HostedView } from './view-host.js';

/**
 * Posts, topic names and questions are written by anyone: a real sandbox search whose query (and so
 * whose posts and topic names) carries a script and an HTML image with an event handler, and an
 * agent question that does the same. The server cleans such text before any view reads it (its tags
 * defused: results/fence.ts), and every view shows what it gets as text; none becomes an element.
 */
const INJECTED = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"><b>bold</b>';
const DEFUSED = '‹script>window.pwned=1‹/script>‹img src=x onerror="window.pwned=2">‹b>bold‹/b>';
const QUERY = `${INJECTED} heat pumps`;

let s: AppsSetup;
beforeAll(async () => {
  s = await startAppsSetup();
});
afterAll(async () => {
  await s?.close();
});

/**
 * Nothing but the view's own markup: its one script, no image or frame, no event-handler attribute,
 * and (unless the data is a report, whose sanitized markup may keep simple formatting) no bold text.
 */
async function expectNoInjectedElements(view: HostedView, markupAllowed = false): Promise<void> {
  const { frame } = view;
  expect(await frame.locator('script').count()).toBe(1);
  expect(
    await frame
      .locator(markupAllowed ? 'img, iframe, object, embed' : 'img, iframe, object, embed, b')
      .count(),
  ).toBe(0);
  const handlers = await frame.evaluate(
    `[...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith('on'))`,
  );
  expect(handlers).toEqual([]);
  expect(await frame.evaluate('window.pwned')).toBeUndefined();
  expect(view.requests).toEqual([]);
  expect(view.blocked).toEqual([]);
}

describe('user-generated content in the views', () => {
  let searchId: number;

  it('search view: post text and the query are shown as text', async () => {
    const view = await s.show('submit_keyword_search', {
      query: QUERY,
      start_date: '2026-10-01',
      end_date: '2026-10-07',
    });
    searchId = view.result.structuredContent.search_id;
    const posts: Json[] = view.result.structuredContent.top_posts;
    expect(posts.some((p) => p.text.includes('‹script>'))).toBe(true);
    expect(JSON.stringify(view.result.structuredContent)).not.toContain('<script');
    await view.frame.locator('figure[data-days]').waitFor({ state: 'attached' });
    expect(await view.frame.locator('h1').textContent()).toBe(`${DEFUSED} heat pumps`);
    const shown = await view.frame.locator('ol.posts .post-text').allTextContents();
    expect(shown).toEqual(posts.map((p) => p.text));
    // The sandbox writes the query into its posts (without the quotes).
    expect(
      shown.filter((t) => t.includes('‹script>window.pwned=1‹/script>‹img src=x onerror=')).length,
    ).toBeGreaterThan(0);
    await expectNoInjectedElements(view);
  });

  it('topic-tree view: topic names from posts are shown as text', async () => {
    const view = await s.show('get_keyword_search_topic_tree', { search_id: searchId });
    await view.frame.locator('section.tree').first().waitFor();
    await view.frame.getByRole('button', { name: 'Expand all' }).click();
    const leaves = await view.frame.locator('li.leaf').allTextContents();
    expect(leaves.some((t) => t.includes('‹script>window.pwned=1‹/script>'))).toBe(true);
    await expectNoInjectedElements(view);
  });

  it('agent-report view: the question is text and HTML in the report is sanitized', async () => {
    const question = `${INJECTED} What are people saying about heat pumps?`;
    const view = await s.show('start_agent_run', { question });
    const markdown: string = view.result.structuredContent.result.report_markdown;
    expect(markdown).toContain(DEFUSED);
    await view.frame.locator('article.report').waitFor();
    const shownQuestion = `${DEFUSED} What are people saying about heat pumps?`;
    expect(await view.frame.locator('h1').first().textContent()).toBe(shownQuestion);
    const report = view.frame.locator('article.report');
    expect(await report.locator('strong').first().textContent()).toBe('Question:');
    // HTML written in the report is shown as what it is: text.
    expect(await report.locator('p').nth(0).textContent()).toBe(`Question: ${shownQuestion}`);
    await expectNoInjectedElements(view);
  });
});
