import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { ListResourcesResult, ReadResourceResult, Resource } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { type Reach, toolByName } from '../tools/index.js';
import { VIEWS, type ViewDef } from './definitions.js';

/** `dist/views/` at the package root, whether running from src/ (tsx) or dist/src/ (compiled). */
export const DEFAULT_VIEWS_DIR = fileURLToPath(
  new URL(import.meta.url.includes('/dist/src/') ? '../../../views' : '../../../dist/views', import.meta.url),
);

/**
 * The resource metadata every view carries (SEP-1865 "UI Resource Format"): no outside origin for
 * anything (empty lists, so the host keeps `connect-src 'none'`, no remote scripts, styles, images or
 * frames, `base-uri 'self'`), and a border drawn by the host. The views also set a stricter CSP of
 * their own in a meta element (hashes of their one script and one style block).
 */
const UI_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    prefersBorder: true,
  },
} as const;

interface LoadedView extends ViewDef {
  html: string;
}

/**
 * The built views, read once when the handler is made. Views that are missing (the build was not
 * run) are simply not offered: their tools are listed as plain tools, which every host understands.
 */
export class ViewCatalog {
  private readonly byUri = new Map<string, LoadedView>();
  private readonly byTool = new Map<string, LoadedView>();
  private readonly lists = new Map<string, ListResourcesResult>();

  constructor(dir: string, logger: Logger) {
    const missing: string[] = [];
    for (const def of VIEWS) {
      for (const tool of def.tools)
        if (!toolByName(tool)) throw new Error(`view ${def.name} names an unknown tool ${tool}`);
      let html: string;
      try {
        html = readFileSync(join(dir, `${def.name}.html`), 'utf8');
      } catch {
        missing.push(def.name);
        continue;
      }
      const view = { ...def, html };
      this.byUri.set(def.uri, view);
      for (const tool of def.tools) this.byTool.set(tool, view);
    }
    if (missing.length)
      logger.warn(
        { dir, missing },
        'MCP Apps views not built (npm run build): their tools are listed without',
      );
  }

  /** True when at least one view is there to offer. */
  get available(): boolean {
    return this.byUri.size > 0;
  }

  /** The view that draws this tool's results, if any. */
  forTool(name: string): ViewDef | undefined {
    return this.byTool.get(name);
  }

  /** resources/list for a client that declared the extension: the views of the tools it may call. */
  listFor(reach: Reach): ListResourcesResult {
    let answer = this.lists.get(reach.key);
    if (!answer) {
      const resources: Resource[] = [...this.byUri.values()]
        .filter((v) => v.tools.some((t) => reach.has(t)))
        .map((v) => ({
          uri: v.uri,
          name: v.name,
          title: v.title,
          description: v.description,
          mimeType: RESOURCE_MIME_TYPE,
          _meta: UI_META,
        }));
      answer = { resources };
      this.lists.set(reach.key, answer);
    }
    return answer;
  }

  /** The view's HTML, or null for a `ui://` URI that is not one of ours. */
  read(uri: string): ReadResourceResult | null {
    const view = this.byUri.get(uri);
    if (!view) return null;
    return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: view.html, _meta: UI_META }] };
  }
}
