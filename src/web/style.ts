/** The one stylesheet: served from our own origin (CSP style-src 'self'), readable on a phone. */
export const STYLESHEET = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fbfbfc; --muted: #5b636e; --accent: #2456c9;
  --danger: #b42318; --ok: #137333; --line: #d8dce2; --card: #ffffff; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --bg: #131518; --muted: #a3abb5;
  --accent: #8ab4f8; --danger: #f28b82; --ok: #81c995; --line: #353a41; --card: #1b1e22; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; padding: .75rem 1rem;
  border-bottom: 1px solid var(--line); }
header.site .brand { font-weight: 700; color: var(--fg); text-decoration: none; margin-right: auto; }
header.site nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; }
header.site form { margin: 0; }
main { max-width: 46rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; }
a { color: var(--accent); }
p.lead { color: var(--muted); }
code, pre { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { overflow-x: auto; padding: .75rem; background: var(--card); border: 1px solid var(--line); border-radius: 6px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.notice { border-left: 4px solid var(--accent); padding: .5rem .75rem; background: var(--card); margin: 1rem 0; }
.notice.warn { border-color: #b7791f; }
.error { color: var(--danger); }
.ok { color: var(--ok); }
form.stack { display: grid; gap: .9rem; max-width: 28rem; }
label { display: grid; gap: .25rem; font-weight: 600; }
label .hint { font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=url], input[type=number], select {
  font: inherit; padding: .55rem .65rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg);
  color: var(--fg); width: 100%; }
input[aria-invalid=true] { border-color: var(--danger); }
button { font: inherit; font-weight: 600; padding: .55rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
ul.tools { padding-left: 1.1rem; }
ul.tools li { margin: .2rem 0; }
.muted { color: var(--muted); }
.field { display: grid; gap: .3rem; }
.field label { font-weight: 600; }
.field .hint { margin: 0; font-size: .9rem; color: var(--muted); }
.field .field-error { margin: 0; font-weight: 600; }
.error-summary { border-color: var(--danger); color: var(--danger); font-weight: 600; }
.notice.ok { border-color: var(--ok); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.card > h2:first-child { margin-top: 0; }
.table-wrap { overflow-x: auto; }
td { overflow-wrap: anywhere; }
.workspace-picker label { display: inline; }
.workspace-picker select { width: auto; max-width: 100%; }
form.sandbox { margin-top: 1.25rem; }
form.sandbox p { margin: 0; flex-basis: 100%; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  white-space: nowrap; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem .8rem; }
legend { font-weight: 600; padding: 0 .25rem; }
label.check { display: block; font-weight: 400; margin: .3rem 0; }
td form { margin: .2rem 0; }
@media (max-width: 30rem) { dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: .4rem; }
  form.stack button, .actions button { width: 100%; } }
`;
