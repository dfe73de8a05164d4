import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pixelmatch from 'pixelmatch';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { ROOT } from './process.js';

/** Checks the browser tests run on a loaded page: layout, accessibility, screenshots. */

/** How far the page scrolls sideways (> 0 means something sticks out of the viewport). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeProblem {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations (WCAG 2.x A and AA rules and best practices). Injected
 * with evaluate, which the page's CSP (script-src 'self') does not govern, so the page runs as served.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeProblem[]> {
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: string[] }>;
    }>;
  };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
}

/** Presses Tab until the focused element's text or label matches, then returns (keyboard only). */
export async function tabTo(page: Page, name: string | RegExp, maxPresses = 40): Promise<void> {
  for (let i = 0; i < maxPresses; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(
      `(() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.textContent || e.value || '').trim() : ''; })()`,
    )) as string;
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  throw new Error(`no focusable element named ${String(name)} within ${maxPresses} Tab presses`);
}

/**
 * Replaces what differs between runs (the server's random port, times and dates, in UTC or a local
 * zone, token endings, generated user ids) with fixed text of the same shape, so a screenshot shows
 * only the layout.
 */
export async function steadyText(page: Page, origin: string): Promise<void> {
  await page.evaluate(
    `(() => {
      const origin = ${JSON.stringify(origin)};
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        let t = node.nodeValue;
        t = t.split(origin).join('http://localhost:8787');
        t = t.replace(/\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d[\\d:.]*(Z|[+-]\\d\\d:?\\d\\d)?/g, '2026-01-01T09:00:00Z');
        t = t.replace(/\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC([+-]\\d{1,2}(:\\d\\d)?)?/g, '2026-01-01 09:00 UTC');
        t = t.replace(/\\b\\d{4}-\\d\\d-\\d\\d\\b/g, '2026-01-01');
        t = t.replace(/••••.{4}/g, '••••ab12');
        t = t.replace(/u_[0-9a-f]{16}/g, 'u_0123456789abcdef');
        node.nodeValue = t;
      }
    })()`,
  );
}

export const SCREENSHOT_DIR = join(ROOT, 'tests', 'web', 'screenshots');
/** Per-pixel colour distance pixelmatch tolerates (0–1), and the share of pixels that may differ. */
const PIXEL_THRESHOLD = 0.1;
const MAX_DIFF_RATIO = 0.002;

/**
 * Compares a full-page screenshot (or, with `fullPage: false`, what the viewport shows: for a long
 * page of repeated rows) with the reviewed image `tests/web/screenshots/<name>.png` (or in `dir`).
 * `UPDATE_SCREENSHOTS=1` (npm run screenshots:update) writes the image instead: review the diff in
 * git before committing it. Returns a description of the difference, or null when it matches.
 */
export async function compareScreenshot(
  page: Page,
  name: string,
  dir = SCREENSHOT_DIR,
  options: { fullPage?: boolean } = {},
): Promise<string | null> {
  const file = join(dir, `${name}.png`);
  const actual = await page.screenshot({
    fullPage: options.fullPage ?? true,
    animations: 'disabled',
    caret: 'hide',
  });
  if (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(file)) {
    if (process.env.UPDATE_SCREENSHOTS !== '1')
      return `no reviewed image ${name}.png (run npm run screenshots:update)`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return null;
  }
  const expected = PNG.sync.read(readFileSync(file));
  const got = PNG.sync.read(actual);
  if (expected.width !== got.width || expected.height !== got.height) {
    writeFileSync(join(dir, `${name}.actual.png`), actual);
    return `${name}: ${got.width}×${got.height}, reviewed image is ${expected.width}×${expected.height}`;
  }
  const diff = new PNG({ width: got.width, height: got.height });
  const differing = pixelmatch(expected.data, got.data, diff.data, got.width, got.height, {
    threshold: PIXEL_THRESHOLD,
  });
  if (differing / (got.width * got.height) <= MAX_DIFF_RATIO) return null;
  writeFileSync(join(dir, `${name}.actual.png`), actual);
  writeFileSync(join(dir, `${name}.diff.png`), PNG.sync.write(diff));
  return `${name}: ${differing} pixels differ (see ${name}.diff.png)`;
}
