/**
 * The layer rules of ARCHITECTURE.md, checked by `npm run lint` (dependency-cruiser). Each rule's
 * comment is what a violation prints: the reason the arrow is forbidden.
 */
const part = (name) => `^src/${name}/`;
const parts = (...names) => `^src/(${names.join('|')})/`;
/** The configuration's files at the top of src/. */
const CONFIGURATION = '^src/config[-a-z]*\\.ts$';
/** The half of telemetry/ that imports OpenTelemetry: loaded only when an OTLP endpoint is set. */
const otelSdkSide =
  '^src/telemetry/(sdk|tracing|server-spans|http-serving|stdio-spans|upstream-spans|work-spans)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'Two parts of src/ import each other (directly or through others): one of the arrows runs back up the layers. Move the shared piece down to the part both may use.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'Modules import each other in a circle: split out what both need.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'upstream-knows-no-gateway',
      severity: 'error',
      comment:
        'upstream/ is the typed client of the upstream API: it knows nothing of MCP, OAuth, pages, teams, accounts, the database or metrics (these are passed in by the composition root); of telemetry only the switch (telemetry/index.ts).',
      from: { path: part('upstream') },
      to: { path: '^src/', pathNot: [part('upstream'), '^src/telemetry/index\\.ts$'] },
    },
    {
      name: 'sandbox-shares-no-code',
      severity: 'error',
      comment:
        'sandbox/ is the other side of the wire, written from upstream-api.md so it can catch the client’s mistakes: it shares no code with the gateway (upstream/, mcp/, …).',
      from: { path: part('sandbox') },
      to: { path: '^src/', pathNot: part('sandbox') },
    },
    {
      name: 'gateway-does-not-import-sandbox',
      severity: 'error',
      comment:
        'Only the process entry (upstream-target.ts) starts the sandbox, through its public server module; no part of the gateway reaches into it.',
      from: { path: '^src/', pathNot: ['^src/sandbox/', '^src/upstream-target\\.ts$'] },
      to: { path: part('sandbox') },
    },
    {
      name: 'db-imports-no-feature',
      severity: 'error',
      comment: 'db/ is the bottom layer (schema, client, migrations): it imports no feature part.',
      from: { path: part('db') },
      to: { path: '^src/', pathNot: [part('db')] },
    },
    {
      name: 'configuration-imports-nothing-above-it',
      severity: 'error',
      comment:
        'Configuration (config.ts, config-variables.ts, config-defaults.ts) sits under every part that reads it: it may use only db/ and upstream/, which import nothing of the rest. A default of a part above it lives in config-defaults.ts, which that part reads.',
      from: { path: CONFIGURATION },
      to: { path: '^src/', pathNot: [CONFIGURATION, part('db'), part('upstream')] },
    },
    {
      name: 'security-stays-pure',
      severity: 'error',
      comment:
        'security/ holds pure primitives (secrets, tokens, passwords, rate limits): no database, no feature part.',
      from: { path: part('security') },
      to: { path: '^src/', pathNot: [part('security'), '^src/(config|once-per)\\.ts$'] },
    },
    {
      name: 'audit-is-a-leaf',
      severity: 'error',
      comment: 'audit/ records and reads audit rows for every part: it may use only db/ (and the logger).',
      from: { path: part('audit') },
      to: { path: '^src/', pathNot: [part('audit'), part('db'), '^src/logger\\.ts$'] },
    },
    {
      name: 'oauth-is-below-mcp-web-teams',
      severity: 'error',
      comment:
        'oauth/ is the authorization server: it never imports mcp/, web/ or teams/ (they build on it).',
      from: { path: part('oauth') },
      to: { path: parts('mcp', 'web', 'teams', 'housekeeping', 'cli') },
    },
    {
      name: 'accounts-below-teams',
      severity: 'error',
      comment:
        'accounts/ (people, sessions, workspaces, credentials) is below teams/: teams build on accounts.',
      from: { path: part('accounts') },
      to: { path: parts('teams', 'oauth', 'mcp', 'web', 'housekeeping', 'cli') },
    },
    {
      name: 'teams-below-pages-and-mcp',
      severity: 'error',
      comment: 'teams/ is team policy: pages and /mcp use it, it uses neither.',
      from: { path: part('teams') },
      to: { path: parts('mcp', 'web', 'housekeeping', 'cli') },
    },
    {
      name: 'mcp-does-not-import-web',
      severity: 'error',
      comment: 'mcp/ serves /mcp; browser pages are web/’s: /mcp never renders or imports a page.',
      from: { path: part('mcp') },
      to: { path: parts('web', 'cli', 'housekeeping') },
    },
    {
      name: 'web-does-not-import-mcp',
      severity: 'error',
      comment:
        'web/ renders pages; it reads tool names and scopes from mcp/tools only, never the /mcp handler.',
      from: { path: part('web') },
      to: { path: part('mcp'), pathNot: '^src/mcp/tools/' },
    },
    {
      name: 'mcp-tools-and-results-know-no-sdk',
      severity: 'error',
      comment:
        'mcp/tools/ and mcp/results/ describe what a tool does and what the model reads: no MCP SDK type or module, so they stay testable alone and an SDK upgrade touches only the rooms that serve the protocol.',
      from: { path: '^src/mcp/(tools|results)/' },
      to: { path: '@modelcontextprotocol/' },
    },
    {
      name: 'only-the-handler-uses-the-sdk-bypass',
      severity: 'error',
      comment:
        'mcp/sdk-bypass/ answers some requests outside the SDK in its exact bytes; only the composition at the top of mcp/ decides when (handler.ts, serve-request.ts), so no tool, result or other room may depend on it.',
      from: { path: '^src/mcp/', pathNot: '^src/mcp/((handler|serve-request)\\.ts$|sdk-bypass/)' },
      to: { path: '^src/mcp/sdk-bypass/' },
    },
    {
      name: 'mcp-waiting-stands-alone',
      severity: 'error',
      comment:
        'mcp/waiting/ (the scheduler, poll plan and budget, timer wheel) is the bottom of /mcp: it imports nothing else of mcp/, so every room above can use it.',
      from: { path: '^src/mcp/waiting/' },
      to: { path: '^src/mcp/', pathNot: '^src/mcp/waiting/' },
    },
    {
      name: 'telemetry-stands-alone',
      severity: 'error',
      comment:
        'telemetry/ is OpenTelemetry for every part (the switch in index.ts, the SDK behind it): it imports no other part of src/, so any layer may import its switch.',
      from: { path: part('telemetry') },
      to: { path: '^src/', pathNot: part('telemetry') },
    },
    {
      name: 'opentelemetry-only-behind-the-switch',
      severity: 'error',
      comment:
        'An instance without an OTLP endpoint loads no @opentelemetry module: only telemetry/ imports them, and only through the dynamic import in telemetry/start.ts (the switch, index.ts, and start.ts import none).',
      from: { path: '^src/', pathNot: otelSdkSide },
      to: { path: '@opentelemetry/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'the-sdk-is-loaded-dynamically',
      severity: 'error',
      comment:
        "The OpenTelemetry half of telemetry/ is reached only by telemetry/start.ts's dynamic import, once the variables ask for it: a static import would load the SDK in every instance.",
      from: { path: '^src/', pathNot: otelSdkSide },
      to: { path: otelSdkSide, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'views-are-browser-code',
      severity: 'error',
      comment:
        'views/ is the MCP Apps views, bundled into HTML files that run in a host’s sandboxed frame: they import no part of the server (they get their data from the tool result and the host).',
      from: { path: part('views') },
      to: { path: '^src/', pathNot: part('views') },
    },
    {
      name: 'server-does-not-import-views',
      severity: 'error',
      comment:
        'The server serves the built views (dist/views/*.html, read by mcp/apps/catalog.ts); it never imports their browser code.',
      from: { path: '^src/', pathNot: part('views') },
      to: { path: part('views') },
    },
    {
      name: 'only-the-cli-starts-stdio',
      severity: 'error',
      comment:
        'stdio/ is the local stdio server, a process of its own started by the `stdio` command: no other part imports it, and only it serves the catalog over stdio (mcp/stdio.ts).',
      from: { path: '^src/', pathNot: '^src/(cli|stdio)/' },
      to: { path: ['^src/stdio/', '^src/mcp/stdio\\.ts$'] },
    },
    {
      name: 'only-the-entry-composes',
      severity: 'error',
      comment:
        'app.ts is the composition root and main.ts/server.ts the process entry: no part imports them back (but the `serve` command starts main.ts, as `npm start` does).',
      from: { path: '^src/', pathNot: ['^src/(main|server|app)\\.ts$', '^src/cli/commands/serve\\.ts$'] },
      to: { path: '^src/(main|server|app)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
