import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildViews, MAX_VIEW_BYTES, VIEWS_OUT_DIR } from '../../scripts/build-views.js';
import { startHarness } from '../helpers/harness.js';
import { tempDir } from '../helpers/temp.js';
import { connectClient } from './clients.js';

/**
 * The built views (npm run build; the test set-up builds them too): one self-contained HTML file each,
 * within the size budget, nothing loaded from anywhere, a CSP that allows exactly the file's own script
 * and style, no inline event handler. And a server whose views are not built offers none.
 */
const out = tempDir('views-');
afterAll(() => out.remove());

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

describe('the built views', async () => {
  const built = await buildViews(out.path);

  it('are the three views, each under 150 KB, the same bytes as the ones served', () => {
    expect(built.map((v) => v.name)).toEqual(['search', 'topic-tree', 'agent-run']);
    for (const view of built) {
      expect(view.bytes, view.name).toBeLessThanOrEqual(MAX_VIEW_BYTES);
      expect(MAX_VIEW_BYTES).toBe(150 * 1024);
      // Deterministic: the set-up's build in dist/views/ (what the server reads) is byte for byte this one.
      expect(readFileSync(view.file, 'utf8'), view.name).toBe(
        readFileSync(join(VIEWS_OUT_DIR, `${view.name}.html`), 'utf8'),
      );
    }
  });

  it('are self-contained, with a CSP that allows only their own script and style', () => {
    for (const view of built) {
      const html = readFileSync(view.file, 'utf8');
      const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      const styles = [...html.matchAll(/<style([^>]*)>([\s\S]*?)<\/style>/g)];
      expect(scripts, view.name).toHaveLength(1);
      expect(styles, view.name).toHaveLength(1);
      const [script, style] = [scripts[0], styles[0]];
      expect(script?.[1], 'no src').toBe('');
      const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
      expect(policy.split('; ')).toEqual([
        "default-src 'none'",
        `script-src 'sha256-${sha256(script?.[2] ?? '')}'`,
        `style-src 'sha256-${sha256(style?.[2] ?? '')}'`,
        `style-src-elem 'sha256-${sha256(style?.[2] ?? '')}'`,
        "style-src-attr 'unsafe-inline'",
        'img-src data:',
        "base-uri 'none'",
        "form-action 'none'",
        "object-src 'none'",
      ]);
      // The markup around the two blocks: no links, no loaded resources, no inline handlers.
      const markup = html.replace(script?.[0] ?? '', '').replace(style?.[0] ?? '', '');
      expect(markup, view.name).not.toMatch(/\s(src|href|on[a-z]+)=|<link|<iframe|<img|@import|https?:/i);
      expect(style?.[2], view.name).not.toMatch(/@import|url\(\s*['"]?(https?:)?\/\//i);
    }
  });
});

describe('a server whose views are not built', () => {
  it('lists its tools without views and says so in its log', async () => {
    const empty = tempDir('no-views-');
    const h = await startHarness({ viewsDir: empty.path });
    try {
      const token = await h.token({ upstreamToken: await h.credential() });
      const client = await connectClient('v2', h.mcpUrl, token, true);
      const { tools } = await client.listTools();
      expect(tools.filter((t) => t._meta)).toEqual([]);
      expect((await client.listResources()).resources).toEqual([]);
      await client.close();
      const warned = h.logs.find((l) => l.level === 'warn' && String(l.msg).includes('views not built'));
      expect(warned?.missing).toEqual(['search', 'topic-tree', 'agent-run']);
    } finally {
      await h.close();
      empty.remove();
    }
  });
});
