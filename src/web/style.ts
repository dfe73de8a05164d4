/**
 * The one stylesheet: served from our own origin (CSP style-src 'self'). Holds from 360 px phones to
 * wide screens. Generic pieces any page can use:
 * - `main` is wide on desktop; running text (p, li, .prose) keeps a readable line length, forms a
 *   comfortable width (form.stack).
 * - `.columns`: cards side by side on wide screens, one column on phones.
 * - `table.cards` (CardTable in kit/table.tsx): a table on wide screens, one card per row below 50rem
 *   (phones, narrow tablets), each cell labelled by its column (data-label). In table cells, long
 *   tokens break only when they must (`break-word`), so no column is squeezed to a letter's width.
 * - `.scroll-box` (ScrollBox): a wide thing that scrolls sideways inside its own keyboard-reachable box.
 * - `.copy-line` / `.copy-block` (kit/copy.tsx): a value or snippet with a copy button.
 * - `.subnav`: a workspace's pages (the current one marked); `form.filters`: filter fields side by side.
 * - `.chart`, `.legend`, `.series-N`, `.cap-bar`: the usage page's server-drawn SVG charts (a
 *   colour-blind-safe palette, Okabe–Ito).
 * Long tokens (emails, ids, URLs) wrap where they must (`overflow-wrap: anywhere` on `.token` and
 * code), never letter by letter in headings or buttons (buttons in table cells do not wrap at all).
 */
export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fbfbfc; --muted: #5b636e; --accent: #2456c9;
  --danger: #b42318; --ok: #137333; --warn: #8a5a00; --line: #d8dce2; --card: #ffffff; --code-bg: #f1f3f6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #131518; --muted: #a3abb5;
  --accent: #8ab4f8; --danger: #f28b82; --ok: #81c995; --warn: #fdd663; --line: #353a41; --card: #1b1e22;
  --code-bg: #23272d; } }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
.skip-link { position: absolute; left: .5rem; top: -3rem; padding: .5rem .75rem; background: var(--card);
  border: 2px solid var(--accent); border-radius: 6px; z-index: 10; }
.skip-link:focus { top: .5rem; }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .75rem 1rem;
  border-bottom: 1px solid var(--line); max-width: 72rem; margin: 0 auto; }
header.site .brand { font-weight: 700; color: var(--fg); text-decoration: none; margin-right: auto; }
header.site nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; }
header.site .who { overflow-wrap: anywhere; }
header.site form { margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; overflow-wrap: break-word; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; overflow-wrap: break-word; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .4rem; }
p, li, dd, .prose { max-width: 72ch; }
a { color: var(--accent); }
p.lead { color: var(--muted); font-size: 1.05rem; }
code, pre { font: .9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { overflow-wrap: anywhere; }
pre { margin: 0; padding: .75rem; background: var(--code-bg); border: 1px solid var(--line); border-radius: 6px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.token { overflow-wrap: anywhere; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem;
  margin: 1rem 0; min-width: 0; }
.card > h2:first-child, .card > h3:first-child { margin-top: 0; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 0 1.25rem;
  align-items: start; }
.notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; background: var(--card); margin: 1rem 0;
  max-width: 72ch; }
.notice.warn { border-color: #b7791f; }
.notice.ok { border-color: var(--ok); }
.error { color: var(--danger); }
.ok { color: var(--ok); }
.muted { color: var(--muted); }
form.stack { display: grid; gap: .9rem; max-width: 28rem; }
label { display: grid; gap: .25rem; font-weight: 600; }
label .hint { font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=number],
input[type=date], select { font: inherit; padding: .55rem .65rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); width: 100%; }
input[aria-invalid=true] { border-color: var(--danger); }
button { font: inherit; font-weight: 600; padding: .55rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; }
@media (prefers-color-scheme: dark) { button { color: #111; } }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
button.small { padding: .3rem .7rem; font-size: .9rem; }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible,
.scroll-box:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.field { display: grid; gap: .3rem; }
.field label { font-weight: 600; }
.field .hint { margin: 0; font-size: .9rem; color: var(--muted); }
.field .field-error { margin: 0; font-weight: 600; }
.error-summary { border-color: var(--danger); color: var(--danger); font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .35rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td { overflow-wrap: break-word; }
td .token, td code { overflow-wrap: break-word; }
td form { margin: .2rem 0; }
.table-wrap, .scroll-box { overflow-x: auto; }
.scroll-box > table { min-width: max-content; }
ul.plain { list-style: none; padding: 0; margin: .25rem 0; }
ul.plain li { margin: .2rem 0; }
ul.tools { padding-left: 1.1rem; }
ul.tools li { margin: .2rem 0; }
.copy-line { display: flex; flex-wrap: wrap; gap: .5rem .75rem; align-items: center; margin: .5rem 0 1rem; }
.copy-line > code { padding: .45rem .6rem; background: var(--code-bg); border: 1px solid var(--line);
  border-radius: 6px; font-size: 1rem; min-width: 0; }
.copy-block { margin: .5rem 0 1rem; }
.copy-block .actions { margin-top: .4rem; }
.copy-status { color: var(--ok); font-size: .9rem; }
ol.steps { padding-left: 1.4rem; }
ol.steps li { margin: .35rem 0; }
details.client { border: 1px solid var(--line); border-radius: 8px; background: var(--card); margin: .75rem 0;
  padding: 0 1.25rem; }
details.client[open] { padding-bottom: .75rem; }
details.client summary { cursor: pointer; font-weight: 700; padding: .8rem 0; }
.workspace-picker label { display: inline; }
.workspace-picker select { width: auto; max-width: 100%; }
form.sandbox { margin-top: 1.25rem; }
form.sandbox p { margin: 0; flex-basis: 100%; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem .8rem; }
legend { font-weight: 600; padding: 0 .25rem; }
label.check { display: block; font-weight: 400; margin: .3rem 0; }
.perm-off { color: var(--muted); text-decoration: line-through; }
.warn-text { color: var(--warn); }
nav.subnav { display: flex; flex-wrap: wrap; gap: .4rem; margin: 0 0 1.25rem; }
nav.subnav a { padding: .3rem .75rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none;
  background: var(--card); }
nav.subnav a[aria-current=page] { border-color: var(--accent); font-weight: 600; }
td button, .row-actions a { white-space: nowrap; }
.row-actions { display: flex; flex-wrap: wrap; gap: .4rem .9rem; align-items: center; }
.row-actions form { margin: 0; }
.inline-form { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: 0; }
.inline-form select { width: auto; max-width: 100%; padding: .3rem .5rem; }
form.stack.wide { max-width: 40rem; }
form.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 13rem), 1fr)); gap: .9rem 1rem;
  align-items: start; margin: 0 0 1rem; }
form.filters .actions { align-self: end; padding-bottom: .1rem; }
form.filters .hint { min-height: 0; }
form.fields-row { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 14rem), 1fr));
  gap: .9rem 1rem; align-items: start; max-width: 62rem; }
form.fields-row > .actions { grid-column: 1 / -1; }
form.period { grid-template-columns: repeat(auto-fill, minmax(min(100%, 11rem), max-content)); }
.copy-field { margin: 0; }
.copy-field input { flex: 1 1 18rem; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .9rem; }
figure.chart { margin: .5rem 0 1.5rem; max-width: 56rem; }
figure.chart figcaption { font-weight: 600; margin-bottom: .5rem; }
.chart-frame { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .5rem; }
.chart-y { display: flex; flex-direction: column; justify-content: space-between; text-align: right;
  font-size: .8rem; color: var(--muted); line-height: 1; }
svg.chart-plot { width: 100%; height: 11rem; display: block; overflow: visible; }
.chart-x { display: flex; justify-content: space-between; font-size: .8rem; color: var(--muted);
  margin: .3rem 0 0; padding-left: 2rem; }
svg .grid { stroke: var(--line); stroke-width: 1; stroke-dasharray: 3 3; }
svg .axis { stroke: var(--muted); stroke-width: 1; }
svg rect[class^=series-] { stroke: var(--bg); stroke-width: 1; }
ul.legend { list-style: none; padding: 0; margin: .75rem 0 0; display: flex; flex-wrap: wrap; gap: .3rem 1.25rem; }
ul.legend li { max-width: 100%; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .4rem;
  vertical-align: -.05rem; }
details.filters-box { margin: 0 0 1rem; }
details.filters-box summary { cursor: pointer; font-weight: 600; padding: .3rem 0; }
details.filters-box[open] summary { margin-bottom: .6rem; }
.series-0 { fill: #0072b2; background: #0072b2; } .series-1 { fill: #e69f00; background: #e69f00; }
.series-2 { fill: #009e73; background: #009e73; } .series-3 { fill: #cc79a7; background: #cc79a7; }
.series-4 { fill: #56b4e9; background: #56b4e9; } .series-5 { fill: #d55e00; background: #d55e00; }
.series-6 { fill: #8a8f98; background: #8a8f98; }
.cap-cell { display: grid; gap: .25rem; min-width: min(100%, 16rem); }
svg.cap-bar { width: 100%; height: .9rem; display: block; }
svg .cap-track { fill: var(--code-bg); } svg .cap-room { fill: var(--line); }
svg .cap-used { fill: var(--accent); } svg .cap-used.reached { fill: var(--danger); }
svg .cap-mark { stroke: var(--fg); stroke-width: 2; }
@media (max-width: 50rem) {
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.cards tr { border: 1px solid var(--line); border-radius: 8px; background: var(--card); margin: 0 0 .75rem;
    padding: .35rem .75rem; }
  table.cards td { border: 0; padding: .3rem 0; display: grid; grid-template-columns: minmax(5.5rem, 30%) minmax(0, 1fr);
    gap: .75rem; }
  table.cards td::before { content: attr(data-label); font-weight: 600; color: var(--muted); font-size: .9rem; }
  table.cards td[data-label=""] { display: block; }
  table.cards tr { display: flex; flex-direction: column; }
  table.cards td.card-title { order: -1; display: block; font-weight: 600; padding-bottom: .45rem; }
  table.cards td.card-title::before { content: none; }
  table.cards td[data-label=""]::before { content: none; }
}
@media (max-width: 30rem) { dl.facts { grid-template-columns: minmax(0, 1fr); } dl.facts dd { margin-bottom: .4rem; }
  form.stack button, .actions button { width: 100%; } .copy-line button { width: auto; } }
`;
