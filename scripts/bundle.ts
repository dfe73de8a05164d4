/**
 * `npm run bundle`: social-intel-mcp.mcpb, the MCP Bundle Claude Desktop installs with one click. The
 * package is packed (built by prepack) and installed without dev dependencies as `npx` would, then
 * that install is packed with `mcpb pack` (manifest.json comes with the package). Nothing is left
 * behind but the bundle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPackage, packBundle, packPackage, stageBundle } from './package-steps.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT = join(ROOT, 'social-intel-mcp.mcpb');

const work = mkdtempSync(join(tmpdir(), 'social-intel-mcp-bundle-'));
try {
  const tarball = packPackage(ROOT, join(work, 'pack'));
  installPackage(tarball, join(work, 'install'));
  stageBundle(join(work, 'install'), join(work, 'bundle'));
  process.stdout.write(packBundle(join(ROOT, 'node_modules', '.bin', 'mcpb'), join(work, 'bundle'), OUTPUT));
} finally {
  rmSync(work, { recursive: true, force: true });
}
