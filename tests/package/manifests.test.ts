import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../scripts/mcpb-manifest.js';
import { SERVER_INFO } from '../../src/mcp/per-request-server.js';
import { ALL_TOOLS } from '../../src/mcp/tools/index.js';
import { loadStdioConfig } from '../../src/stdio/config.js';
import { UPSTREAM_DEFAULTS } from '../../src/upstream/defaults.js';
import { ROOT } from '../helpers/process.js';

/**
 * The two files that say how this server is installed: manifest.json (the MCP Bundle manifest, made
 * by `npm run manifest` from the catalog) and server.json (the MCP registry entry), checked against
 * the catalog, package.json and the formats' own validators. Run once (no database).
 */
const run = promisify(execFile);
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
const pkg = readJson('package.json');
const manifest = readJson('manifest.json');
const server = readJson('server.json');

describe('manifest.json (MCP Bundle)', () => {
  it('is what `npm run manifest` makes from the catalog and package.json (run it after a change)', () => {
    expect(manifest).toEqual(buildManifest());
  });

  it("lists exactly the catalog's tools, in its order", () => {
    expect(manifest.tools.map((t: { name: string }) => t.name)).toEqual(ALL_TOOLS.map((t) => t.name));
  });

  it('passes `mcpb validate`, and a broken manifest does not', async () => {
    const mcpb = join(ROOT, 'node_modules', '.bin', 'mcpb');
    const ok = await run(mcpb, ['validate', join(ROOT, 'manifest.json')]);
    expect(ok.stdout).toContain('Manifest schema validation passes');
    const broken = join(ROOT, 'tests', 'package', 'schemas', 'README.md');
    await expect(run(mcpb, ['validate', broken])).rejects.toMatchObject({ code: 1 });
  });

  it("starts the compiled stdio server's entry, the token a secret, every field optional", () => {
    expect(manifest.server.mcp_config.args).toEqual([`\${__dirname}/${manifest.server.entry_point}`]);
    expect(manifest.server.entry_point).toBe('dist/src/stdio/main.js');
    expect(manifest.user_config.upstream_token.sensitive).toBe(true);
    for (const option of Object.values(manifest.user_config) as Array<{ required: boolean; default: string }>)
      expect(option).toMatchObject({ required: false, default: '' });
  });
});

describe('server.json (MCP registry)', () => {
  const schemaFile = 'tests/package/schemas/server.schema.2025-12-11.json';
  const validate = () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    return ajv.compile(readJson(schemaFile));
  };

  it("validates against the registry's schema, the version it names", () => {
    const check = validate();
    expect(check(server), JSON.stringify(check.errors)).toBe(true);
    expect(server.$schema).toBe(readJson(schemaFile).$id);
  });

  it('the schema refuses what the registry refuses (a long description, a remote without https)', () => {
    const check = validate();
    expect(check({ ...server, description: 'x'.repeat(101) })).toBe(false);
    expect(check({ ...server, remotes: [{ ...server.remotes[0], url: '{host}/mcp' }] })).toBe(false);
  });

  it("one version everywhere: package.json's", () => {
    expect(server.version).toBe(pkg.version);
    expect(server.packages[0].version).toBe(pkg.version);
    expect(manifest.version).toBe(pkg.version);
    expect(SERVER_INFO.version).toBe(pkg.version);
  });

  it("names the npm package, and package.json's mcpName names the entry (the registry checks both)", () => {
    expect(server.packages[0]).toMatchObject({ registryType: 'npm', identifier: pkg.name });
    expect(pkg.mcpName).toBe(server.name);
  });

  it('the npm package: `stdio`, with the variables the stdio server reads, the token secret', () => {
    const npm = server.packages[0];
    expect(npm.packageArguments).toEqual([{ type: 'positional', value: 'stdio' }]);
    const variables = npm.environmentVariables as Array<{ name: string; isSecret?: boolean }>;
    expect(variables.find((v) => v.name === 'UPSTREAM_TOKEN')?.isSecret).toBe(true);
    const env = Object.fromEntries(
      variables.map((v) => [v.name, v.name.endsWith('_URL') ? 'https://api.example.com' : 'x1']),
    );
    const config = loadStdioConfig(env);
    expect(config.credentials).toEqual({ token: 'x1', userId: 'x1' });
    expect(config.upstream.searchUrl).toBe('https://api.example.com');
    expect(config.upstream.agentUrl).toBe('https://api.example.com');
  });

  it("the remote: streamable HTTP at /mcp, the two upstream headers optional, the token's secret", () => {
    const [remote] = server.remotes;
    expect(remote).toMatchObject({ type: 'streamable-http', url: 'https://{host}/mcp' });
    expect(remote.headers).toEqual([
      expect.objectContaining({ name: UPSTREAM_DEFAULTS.tokenHeader, isRequired: false, isSecret: true }),
      expect.objectContaining({ name: UPSTREAM_DEFAULTS.userHeader, isRequired: false }),
    ]);
  });
});
