import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/harness.js';
import { compareScreenshot } from '../helpers/page-checks.js';
import { type AppsSetup, startAppsSetup } from './setup.js';
import { SCREENSHOTS, settle, viewOverflow } from './view-host.js';

/**
 * The search view hosted in headless Chromium the way a web host frames it, fed a real keyword
 * search from the sandbox: bars per platform, a bar per day (whole numbers: no curve) with the breakout
 * days marked and the last day labelled inside the frame, the top posts as links the host opens, the top
 * voices, the requested dates; one colour per meaning (an emotion's colour is the same in every search,
 * and no emotion shares a sentiment's colour unless it has its name); it reads the posts through the
 * host, and no request leaves the page.
 */
let s: AppsSetup;
beforeAll(async () => {
  s = await startAppsSetup();
});
afterAll(async () => {
  await s?.close();
});

const ARGS = { query: 'heat pumps', start_date: '2026-10-01', end_date: '2026-10-21' };

/** Every day from the first to the last, as the view's timeline has them. */
function daySpan(days: string[]): number {
  const sorted = [...days].sort();
  const first = Date.parse(`${sorted[0]}T00:00:00Z`);
  const last = Date.parse(`${sorted[sorted.length - 1]}T00:00:00Z`);
  return (last - first) / 86_400_000 + 1;
}

describe('the search view', () => {
  it('draws a keyword search: bars per platform, bars per day, breakouts, post links', async () => {
    const view = await s.show('submit_keyword_search', ARGS);
    const { frame, result } = view;
    const id = result.structuredContent.search_id;
    await frame.locator('figure[data-days] .ct-bar').first().waitFor({ state: 'attached' });

    const counts: Record<string, number> = result.structuredContent.post_counts;
    const byPlatform = frame.locator('figure').nth(0);
    expect(await byPlatform.getAttribute('data-platforms')).toBe(Object.keys(counts).join(','));
    expect(await byPlatform.locator('.ct-bar').count()).toBe(Object.keys(counts).length);

    // What upstream holds: every post, its platform and day.
    const upstreamPosts: Json[] = (await s.upstream(`/api/iq/keyword_search/${id}/posts_data`)).posts;
    const platforms = [...new Set(upstreamPosts.map((p) => p.platform))];
    const sentiment = frame.locator('figure', { hasText: 'Posts per sentiment' });
    expect((await sentiment.getAttribute('data-platforms'))?.split(',').sort()).toEqual(
      [...platforms].sort(),
    );
    expect(await sentiment.locator('.ct-bar').count()).toBe(platforms.length * 4);
    const emotions = frame.locator('figure', { hasText: 'Posts per emotion' });
    expect(await emotions.locator('.ct-bar').count()).toBeGreaterThanOrEqual(platforms.length);

    const breakouts: string[] = result.structuredContent.results.breakout_moment.map((b: Json) =>
      b.time.slice(0, 10),
    );
    const days = [...upstreamPosts.map((p) => String(p.created_at).slice(0, 10)), ...breakouts];
    const timeline = frame.locator('figure[data-days]');
    expect(await timeline.locator('.ct-bar').count()).toBe(daySpan(days));
    expect(await timeline.locator('.ct-line, .ct-area').count()).toBe(0);
    const marked = await timeline
      .locator('.ct-bar.breakout')
      .evaluateAll((points) => points.map((p) => p.getAttribute('data-day')));
    expect(marked.sort()).toEqual([...new Set(breakouts)].sort());

    // The top voices are the result's.
    const voices = await frame.locator('ol.voices li strong').allTextContents();
    expect(voices).toEqual(result.structuredContent.top_voices.map((v: Json) => `@${v.author}`));

    const links = frame.locator('ol.posts a');
    const urls = result.structuredContent.top_posts.map((p: Json) => p.url);
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual(urls);
    await links.first().click();
    expect(await view.openedLinks()).toEqual([urls[0]]);

    await expect.poll(() => frame.locator('#range').textContent()).toBe('Requested 2026-10-01 to 2026-10-21');
    expect(await frame.locator('h1').textContent()).toBe('heat pumps');
    const calls = await view.toolCalls();
    expect(calls.map((c: Json) => c.name)).toEqual(['get_keyword_search_posts_data']);

    expect(view.requests).toEqual([]);
    expect(view.blocked).toEqual([]);
    expect(view.errors).toEqual([]);
    expect(await viewOverflow(view)).toBe(0);
    await settle(view);
    expect(await compareScreenshot(view.page, 'search-light-360', SCREENSHOTS)).toBeNull();
  });

  it('follows a dark host theme and uses the width it has', async () => {
    const view = await s.show('get_keyword_search', { search_id: 1 }, { theme: 'dark', width: 720 });
    await view.frame.locator('figure[data-days] .ct-bar').first().waitFor({ state: 'attached' });
    const colours = await view.frame.evaluate(
      `[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]`,
    );
    expect(colours).toEqual(['rgb(27, 27, 31)', 'rgb(242, 242, 244)']);
    expect(await view.frame.locator('#range').textContent()).toMatch(
      /^Posts dated 2026-10-\d\d to 2026-10-\d\d$/,
    );
    expect(view.requests).toEqual([]);
    expect(view.blocked).toEqual([]);
    await settle(view);
    expect(await compareScreenshot(view.page, 'search-dark-720', SCREENSHOTS)).toBeNull();
  });

  it('draws a user search: its profile, sentiment, emotions and days from its posts', async () => {
    const args = {
      query: 'examplenews',
      platform: 'twitter',
      start_date: '2026-09-20',
      end_date: '2026-10-20',
    };
    const view = await s.show('submit_user_search', args);
    const { frame, result } = view;
    await frame.locator('figure[data-days] .ct-bar').first().waitFor({ state: 'attached' });
    expect(await frame.locator('h1').textContent()).toBe('@examplenews');
    expect(await frame.locator('.profile').first().textContent()).toContain('followers');
    const posts: Json[] = (
      await s.upstream(`/api/iq/user_search/${result.structuredContent.search_id}/posts_data`)
    ).posts;
    const sentiment = frame.locator('figure', { hasText: 'Posts per sentiment' });
    expect(await sentiment.getAttribute('data-platforms')).toBe('twitter');
    expect(await sentiment.locator('.ct-bar').count()).toBe(4);
    const days = posts.map((p) => String(p.created_at).slice(0, 10));
    expect(await frame.locator('figure[data-days] .ct-bar').count()).toBe(daySpan(days));
    expect(await frame.locator('ol.posts a').count()).toBe(result.structuredContent.top_posts.length);
    expect(await frame.locator('#range').textContent()).toBe('Requested 2026-09-20 to 2026-10-20');
    expect(view.requests).toEqual([]);
    expect(view.blocked).toEqual([]);
  });
});

/** The last day's label of the timeline, and whether it lies wholly inside the chart's frame. */
async function lastDayLabel(view: { frame: import('playwright-core').Frame }) {
  return view.frame.evaluate(`(() => {
    const figure = document.querySelector('figure[data-days]');
    const svg = figure.querySelector('svg').getBoundingClientRect();
    const labels = [...figure.querySelectorAll('.ct-label.ct-horizontal')].filter((l) => l.textContent);
    const last = labels[labels.length - 1];
    const box = last.getBoundingClientRect();
    const range = last.firstChild ? document.createRange() : null;
    if (range) range.selectNodeContents(last);
    const text = range ? range.getBoundingClientRect() : box;
    return { text: last.textContent, inside: text.right <= svg.right + 0.5 && text.left >= svg.left, right: text.right, svgRight: svg.right };
  })()`);
}

describe('the search view at both widths', () => {
  it('labels the last day of the timeline inside the frame, at 360 and 720 px', async () => {
    for (const width of [360, 720]) {
      const view = await s.show('get_keyword_search', { search_id: 1 }, { width });
      await view.frame.locator('figure[data-days] .ct-bar').first().waitFor({ state: 'attached' });
      await settle(view);
      const days = await view.frame
        .locator('figure[data-days] .ct-bar')
        .evaluateAll((bars) => bars.map((b) => b.getAttribute('data-day')));
      const label = (await lastDayLabel(view)) as { text: string; inside: boolean };
      expect(label.text, `${width} px`).toBe(String(days[days.length - 1]).slice(5));
      expect(label, `${width} px`).toMatchObject({ inside: true });
    }
  });

  it('gives each emotion one colour in every search, apart from the sentiments unless it shares a name', async () => {
    const colours = async (args: Record<string, unknown>, tool = 'submit_keyword_search') => {
      const view = await s.show(tool, args);
      await view.frame.locator('figure', { hasText: 'Posts per emotion' }).waitFor();
      return (await view.frame.evaluate(`(() => {
        const read = (caption) => {
          const figure = [...document.querySelectorAll('figure')].find((f) => f.textContent.includes(caption));
          return Object.fromEntries([...figure.querySelectorAll('.legend li')].map((li) =>
            [li.textContent, getComputedStyle(li.querySelector('.swatch')).backgroundColor]));
        };
        return { sentiment: read('Posts per sentiment'), emotion: read('Posts per emotion') };
      })()`)) as { sentiment: Record<string, string>; emotion: Record<string, string> };
    };
    const a = await colours({ query: 'tidal energy', start_date: '2026-10-01', end_date: '2026-10-07' });
    const b = await colours({ query: 'examplenews', platform: 'twitter' }, 'submit_user_search');
    for (const [emotion, colour] of Object.entries(a.emotion)) {
      if (emotion in b.emotion) expect(b.emotion[emotion], emotion).toBe(colour);
      const sameAs = Object.entries(a.sentiment)
        .filter(([, c]) => c === colour)
        .map(([name]) => name);
      expect(sameAs, emotion).toEqual(emotion in a.sentiment ? [emotion] : []);
    }
    expect(new Set(Object.values(a.emotion)).size).toBe(Object.keys(a.emotion).length);
  });
});
