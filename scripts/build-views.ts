/**
 * Builds the MCP Apps views (src/views/<name>/main.ts) into one self-contained HTML file each,
 * `dist/views/<name>.html`: esbuild bundles and minifies the script and its CSS, which are inlined
 * with a Content-Security-Policy meta element that allows exactly those two blocks (by hash) and
 * nothing from anywhere else. Run by `npm run build`, and by the test set-up before any test starts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const VIEWS_OUT_DIR = join(ROOT, 'dist', 'views');
/** Each view must stay under this: it is sent to the host on every render. */
export const MAX_VIEW_BYTES = 150 * 1024;

const VIEWS: Array<{ name: string; title: string }> = [
  { name: 'search', title: 'Search at a glance' },
  { name: 'topic-tree', title: 'Topic tree' },
  { name: 'agent-run', title: 'Agent report' },
];

export interface BuiltView {
  name: string;
  file: string;
  bytes: number;
  scriptBytes: number;
  styleBytes: number;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The view's own policy, on top of whatever the host sets: only its inline script and style block
 * (by hash, so an injected block would not run), images only as data: URLs, no connections, no base
 * URL, no forms, no plugins. Style attributes are allowed (`style-src-attr`, CSP Level 3): the chart
 * library sizes its SVG with them, and without a connection or a remote image a style cannot send
 * anything anywhere. A browser without the -elem/-attr directives falls back to `style-src`, which
 * allows the block only (the charts then keep their default size). `frame-ancestors` cannot be set
 * from a meta element; the host frames the view.
 */
function policy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    `style-src-elem ${sha256(style)}`,
    "style-src-attr 'unsafe-inline'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}

function page(title: string, script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy(script, style)}">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
<main id="view"><p class="note">Waiting for the tool result…</p></main>
<script>${script}</script>
</body>
</html>
`;
}

async function bundle(name: string): Promise<{ script: string; style: string }> {
  const result = await build({
    entryPoints: [join(ROOT, 'src', 'views', name, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome120', 'firefox121', 'safari17'],
    write: false,
    outdir: 'out',
    legalComments: 'eof',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const text = (suffix: string) => result.outputFiles.find((f) => f.path.endsWith(suffix))?.text.trim() ?? '';
  const script = text('.js');
  const style = text('.css');
  // esbuild escapes these inside strings; an unescaped one would end the inline block early.
  if (/<\/script/i.test(script) || /<\/style/i.test(style))
    throw new Error(`view ${name}: the bundle contains a closing tag`);
  return { script, style };
}

export async function buildViews(outDir = VIEWS_OUT_DIR): Promise<BuiltView[]> {
  mkdirSync(outDir, { recursive: true });
  const built: BuiltView[] = [];
  for (const view of VIEWS) {
    const { script, style } = await bundle(view.name);
    const html = page(view.title, script, style);
    const bytes = Buffer.byteLength(html);
    if (bytes > MAX_VIEW_BYTES)
      throw new Error(`view ${view.name} is ${bytes} bytes, over the ${MAX_VIEW_BYTES}-byte limit`);
    const file = join(outDir, `${view.name}.html`);
    writeFileSync(file, html);
    built.push({
      name: view.name,
      file,
      bytes,
      scriptBytes: Buffer.byteLength(script),
      styleBytes: Buffer.byteLength(style),
    });
  }
  return built;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const view of await buildViews()) {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `${view.name}.html ${kb(view.bytes)} (script ${kb(view.scriptBytes)}, style ${kb(view.styleBytes)})`,
    );
  }
}
