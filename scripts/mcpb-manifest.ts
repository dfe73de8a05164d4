/**
 * manifest.json, the MCP Bundle manifest (the `.mcpb` Claude Desktop installs with one click), made
 * from the tool catalog and package.json so neither its tool list nor its version is written by hand.
 * `npm run manifest` rewrites the file; tests/package/manifest.test.ts fails when it is stale.
 * The format: MANIFEST.md of the MCP Bundle format (manifest_version 0.3).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOOL_SUMMARIES } from '../src/mcp/tools/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MANIFEST_PATH = join(ROOT, 'manifest.json');

/** The compiled stdio server's own entry: `social-intel-mcp stdio` without the admin commands. */
const ENTRY = 'dist/src/stdio/main.js';

/**
 * What the person fills in when installing. Every field may stay empty (`default: ""`: a host leaves
 * an unset field's `${user_config.…}` in place otherwise), and the stdio server reads an empty
 * variable as unset: with all four empty it runs the built-in sandbox, a try-out.
 */
const USER_CONFIG = {
  upstream_token: {
    type: 'string',
    title: 'API token',
    description: 'Your Social Intelligence API token (stored by the host as a secret, never logged).',
    sensitive: true,
    required: false,
    default: '',
  },
  upstream_user_id: {
    type: 'string',
    title: 'User ID',
    description: 'Your Social Intelligence user id, sent upstream with every call.',
    required: false,
    default: '',
  },
  upstream_search_url: {
    type: 'string',
    title: 'Search host URL',
    description: 'The API search host. Leave all fields empty to try the built-in sandbox instead.',
    required: false,
    default: '',
  },
  upstream_agent_url: {
    type: 'string',
    title: 'Agent host URL',
    description: 'The API agent host (runs and schedules); set it together with the search host.',
    required: false,
    default: '',
  },
} as const;

/** A host's placeholder for what the person filled in (`${user_config.key}`, substituted at start). */
const filledIn = (key: keyof typeof USER_CONFIG) => `\${user_config.${key}}`;

const ENV = {
  UPSTREAM_TOKEN: filledIn('upstream_token'),
  UPSTREAM_USER_ID: filledIn('upstream_user_id'),
  UPSTREAM_SEARCH_URL: filledIn('upstream_search_url'),
  UPSTREAM_AGENT_URL: filledIn('upstream_agent_url'),
};

export function buildManifest(): Record<string, unknown> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license: string;
    keywords: string[];
    engines: { node: string };
  };
  return {
    manifest_version: '0.3',
    name: pkg.name,
    display_name: 'Social Intelligence',
    version: pkg.version,
    description: 'Search social media, find experts and run research agents on the Social Intelligence API.',
    long_description:
      'Every endpoint of the Social Intelligence Search and Agent API as a tool, with answers written for the model, resources and prompts. Acts as one API user (your token and user id); with no settings it runs a built-in sandbox with synthetic data.',
    author: { name: 'The social-intel-mcp authors' },
    license: pkg.license,
    keywords: pkg.keywords,
    server: {
      type: 'node',
      entry_point: ENTRY,
      mcp_config: { command: 'node', args: [`\${__dirname}/${ENTRY}`], env: ENV },
    },
    tools: TOOL_SUMMARIES.map((t) => ({ name: t.name, description: t.summary })),
    // The prompts are served with their arguments fenced as data, which the manifest's text
    // templates cannot express: hosts list them from the server.
    prompts_generated: true,
    compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: pkg.engines.node } },
    user_config: USER_CONFIG,
  };
}

export const manifestText = (): string => `${JSON.stringify(buildManifest(), null, 2)}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(MANIFEST_PATH, manifestText());
  process.stdout.write(`wrote ${MANIFEST_PATH}\n`);
}
