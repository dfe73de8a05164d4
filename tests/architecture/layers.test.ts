import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { cruise, format, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/**
 * One deliberately wrong import per layer rule of .dependency-cruiser.cjs (ARCHITECTURE.md), each in
 * its own pair of files so no violation hides another. Keys are the rule names the cruise must report.
 */
const VIOLATIONS: Record<string, Record<string, string>> = {
  'no-folder-cycles': {
    'src/left/a.ts': "import { b } from '../right/b.js';\nexport const a = b;",
    'src/right/b.ts': "import { c } from '../left/c.js';\nexport const b = c;",
    'src/left/c.ts': 'export const c = 1;',
  },
  'no-module-cycles': {
    'src/ring/p.ts': "import { q } from './q.js';\nexport const p = () => q;",
    'src/ring/q.ts': "import { p } from './p.js';\nexport const q = () => p;",
  },
  'upstream-knows-no-gateway': {
    'src/upstream/client.ts': "import { tool } from '../mcp/tool.js';\nexport const client = tool;",
    'src/mcp/tool.ts': 'export const tool = 1;',
  },
  'sandbox-shares-no-code': {
    'src/sandbox/app.ts': "import { schema } from '../upstream/schemas.js';\nexport const app = schema;",
    'src/upstream/schemas.ts': 'export const schema = 1;',
  },
  'gateway-does-not-import-sandbox': {
    'src/web/page.ts': "import { store } from '../sandbox/store.js';\nexport const page = store;",
    'src/sandbox/store.ts': 'export const store = 1;',
  },
  'db-imports-no-feature': {
    'src/db/client.ts': "import { users } from '../accounts/users.js';\nexport const db = users;",
    'src/accounts/users.ts': 'export const users = 1;',
  },
  'configuration-imports-nothing-above-it': {
    'src/config-variables.ts':
      "import { DEFAULT_TOOL_OPTIONS } from './mcp/tools/options.js';\nexport const schema = DEFAULT_TOOL_OPTIONS;",
    'src/mcp/tools/options.ts': 'export const DEFAULT_TOOL_OPTIONS = 1;',
  },
  'security-stays-pure': {
    'src/security/tokens.ts': "import { db } from '../db/conn.js';\nexport const tokens = db;",
    'src/db/conn.ts': 'export const db = 1;',
  },
  'audit-is-a-leaf': {
    'src/audit/record.ts': "import { team } from '../teams/team.js';\nexport const record = team;",
    'src/teams/team.ts': 'export const team = 1;',
  },
  'oauth-is-below-mcp-web-teams': {
    'src/oauth/token.ts': "import { policy } from '../teams/policy.js';\nexport const token = policy;",
    'src/teams/policy.ts': 'export const policy = 1;',
  },
  'accounts-below-teams': {
    'src/accounts/invites.ts': "import { roles } from '../teams/roles.js';\nexport const invites = roles;",
    'src/teams/roles.ts': 'export const roles = 1;',
  },
  'teams-below-pages-and-mcp': {
    'src/teams/apps.ts': "import { form } from '../web/form.js';\nexport const apps = form;",
    'src/web/form.ts': 'export const form = 1;',
  },
  'mcp-does-not-import-web': {
    'src/mcp/route.ts': "import { layout } from '../web/layout.js';\nexport const route = layout;",
    'src/web/layout.ts': 'export const layout = 1;',
  },
  'web-does-not-import-mcp': {
    'src/web/home.ts': "import { handler } from '../mcp/handler.js';\nexport const home = handler;",
    'src/mcp/handler.ts': 'export const handler = 1;',
  },
  'mcp-tools-and-results-know-no-sdk': {
    'src/mcp/results/post.ts':
      "import type { CallToolResult } from '@modelcontextprotocol/server';\nexport type Post = CallToolResult;",
  },
  'only-the-handler-uses-the-sdk-bypass': {
    'src/mcp/tools/search.ts':
      "import { plainToolCall } from '../sdk-bypass/direct-wire.js';\nexport const search = plainToolCall;",
    'src/mcp/sdk-bypass/direct-wire.ts': 'export const plainToolCall = 1;',
  },
  'mcp-waiting-stands-alone': {
    'src/mcp/waiting/wait.ts': "import { tool } from '../tools/types.js';\nexport const wait = tool;",
    'src/mcp/tools/types.ts': 'export const tool = 1;',
  },
  'views-are-browser-code': {
    'src/views/search/main.ts':
      "import { scopes } from '../../oauth/scopes.js';\nexport const main = scopes;",
    'src/oauth/scopes.ts': 'export const scopes = 1;',
  },
  'server-does-not-import-views': {
    'src/mcp/apps/catalog.ts':
      "import { bridge } from '../../views/common/bridge.js';\nexport const catalog = bridge;",
    'src/views/common/bridge.ts': 'export const bridge = 1;',
  },
  'only-the-cli-starts-stdio': {
    'src/app.ts': "import { serve } from './mcp/stdio.js';\nexport const app = serve;",
    'src/mcp/stdio.ts': 'export const serve = 1;',
  },
  'telemetry-stands-alone': {
    'src/telemetry/index.ts': "import { config } from '../config.js';\nexport const otel = config;",
    'src/config.ts': 'export const config = 1;',
  },
  'opentelemetry-only-behind-the-switch': {
    'src/mcp/handler.ts': "import { trace } from '@opentelemetry/api';\nexport const handler = trace;",
  },
  'the-sdk-is-loaded-dynamically': {
    'src/main.ts': "import { startSdk } from './telemetry/sdk.js';\nexport const main = startSdk;",
    'src/telemetry/sdk.ts': 'export const startSdk = 1;',
  },
  'only-the-entry-composes': {
    'src/metrics/route.ts': "import { app } from '../app.js';\nexport const route = app;",
    'src/app.ts': 'export const app = 1;',
  },
};

/**
 * What `depcruise --config CONFIG --output-type err-long src` prints and exits with when run in `baseDir`,
 * done in-process (a process per cruise cost over a second): the config's tsconfig is read
 * from `baseDir`, as the CLI reads it from its cwd, and the process's cwd is left alone.
 */
async function cruiseIn(
  options: ICruiseOptions,
  baseDir: string,
): Promise<{ result: ICruiseResult; output: string; exitCode: number }> {
  const tsConfigFile = options.tsConfig?.fileName && resolve(baseDir, options.tsConfig.fileName);
  const { output: result } = await cruise(
    ['src'],
    { ...options, baseDir, ...(tsConfigFile && { tsConfig: { fileName: tsConfigFile } }) },
    {},
    { tsConfig: tsConfigFile ? extractTSConfig(tsConfigFile) : undefined },
  );
  if (typeof result === 'string') throw new Error('expected the cruise result, got a report');
  const report = await format(result, { outputType: 'err-long' });
  return { result, output: stripVTControlCharacters(String(report.output)), exitCode: report.exitCode };
}

function writeTree(root: string, files: Record<string, string>): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }),
  );
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
}

describe('layer rules (ARCHITECTURE.md, checked by npm run lint)', () => {
  const dir = tempDir('sim-layers-');
  let options: ICruiseOptions;

  beforeAll(async () => {
    for (const [rule, files] of Object.entries(VIOLATIONS)) writeTree(join(dir.path, rule), files);
    options = await extractDepcruiseOptions(CONFIG);
  });

  afterAll(() => dir.remove());

  it.each(Object.keys(VIOLATIONS))(
    '%s refuses its deliberately wrong import, with its reason',
    async (rule) => {
      const { result, output, exitCode } = await cruiseIn(options, join(dir.path, rule));
      expect(result.summary.error).toBeGreaterThan(0);
      expect(exitCode).not.toBe(0);
      expect([...new Set(result.summary.violations.map((v) => v.rule.name))]).toEqual([rule]);
      expect(output).toContain(rule);
      const others = Object.keys(VIOLATIONS).filter((r) => r !== rule && output.includes(`${r}:`));
      expect(others).toEqual([]);
    },
  );

  it('passes on the repository as it is', async () => {
    const clean = await cruiseIn(options, ROOT);
    expect(clean.output).toContain('no dependency violations found');
    expect(clean.exitCode).toBe(0);
    expect(clean.result.summary.violations).toEqual([]);
  });
});
