import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, Frame, Page } from 'playwright-core';
import type { Json } from '../helpers/harness.js';
import { ROOT } from '../helpers/process.js';

/** The reviewed screenshots of the views (docs/tools.md shows them; npm run screenshots:update rewrites). */
export const SCREENSHOTS = join(ROOT, 'tests', 'apps', 'screenshots');

const HOST_ENTRY = fileURLToPath(new URL('./host/host.ts', import.meta.url));

let hostScript: Promise<string> | null = null;

/** The host page's script: host/host.ts with the extension's AppBridge, bundled once per process. */
function hostBundle(): Promise<string> {
  hostScript ??= build({
    entryPoints: [HOST_ENTRY],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  }).then((r) => r.outputFiles[0]?.text ?? '');
  return hostScript;
}

export interface HostOptions {
  /** The view as resources/read returned it (contents[0]). */
  resource: Json;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolResult: Json;
  theme: 'light' | 'dark';
  width: number;
  /** How the host makes the tool calls the view asks for: on the real server. */
  callTool(params: Json): Promise<Json>;
}

export interface HostedView {
  page: Page;
  /** The view's own frame. */
  frame: Frame;
  /** Every request the page made (host and view), other than about: documents. */
  requests: string[];
  /** Console reports of content blocked by a Content Security Policy. */
  blocked: string[];
  errors: string[];
  openedLinks(): Promise<string[]>;
  toolCalls(): Promise<Json[]>;
}

/** Opens a page that hosts one view the way a web host does (see host/host.ts). */
export async function hostView(browser: Browser, options: HostOptions): Promise<HostedView> {
  const page = await browser.newPage({
    viewport: { width: options.width, height: 640 },
    colorScheme: options.theme,
  });
  const requests: string[] = [];
  const blocked: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('about:')) requests.push(request.url());
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text()))
      blocked.push(`${message.text()} @${JSON.stringify(message.location())}`);
    else if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.exposeFunction('hostCallTool', options.callTool);
  const background = options.theme === 'dark' ? '#101014' : '#ffffff';
  await page.setContent(
    `<!doctype html><html><head><style>html,body{margin:0;background:${background}}</style></head>` +
      `<body><script>${await hostBundle()}</script></body></html>`,
  );
  const mount = {
    html: options.resource.text,
    csp: options.resource._meta?.ui?.csp,
    theme: options.theme,
    width: options.width,
    toolName: options.toolName,
    toolInput: options.toolInput,
    toolResult: options.toolResult,
  };
  await page.evaluate(`window.mountView(${JSON.stringify(mount)})`);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error('the view frame did not load');
  return {
    page,
    frame,
    requests,
    blocked,
    errors,
    openedLinks: () => page.evaluate('window.openedLinks') as Promise<string[]>,
    toolCalls: () => page.evaluate('window.toolCalls') as Promise<Json[]>,
  };
}

/** Replaces what differs between runs (run ids) with fixed text, so a screenshot shows only layout. */
export async function steadyView(frame: Frame): Promise<void> {
  await frame.evaluate(
    `(() => {
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        node.nodeValue = node.nodeValue.replace(
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
          '00000000-0000-4000-8000-000000000000',
        );
      }
    })()`,
  );
}

/**
 * Waits until the host has fitted the frame to the view (ui/notifications/size-changed), then makes
 * the page exactly that tall, so a full-page screenshot holds the whole view (Chromium paints a
 * frame's content only inside the viewport).
 */
export async function settle(view: HostedView): Promise<void> {
  let last = -1;
  for (let i = 0; i < 50; i++) {
    const [frameHeight, contentHeight] = (await view.page.evaluate(
      `[document.querySelector('iframe').clientHeight, document.documentElement.scrollHeight]`,
    )) as [number, number];
    const viewHeight = Number(
      await view.frame.evaluate('Math.ceil(document.body.getBoundingClientRect().height)'),
    );
    if (frameHeight === viewHeight && frameHeight === last) {
      const width = view.page.viewportSize()?.width ?? 360;
      await view.page.setViewportSize({ width, height: contentHeight });
      return;
    }
    last = frameHeight;
    await view.page.waitForTimeout(100);
  }
  throw new Error('the view never settled to one size');
}

/** How far the view scrolls sideways in its frame (> 0: something sticks out at this width). */
export async function viewOverflow(view: HostedView): Promise<number> {
  return Number(await view.frame.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}
