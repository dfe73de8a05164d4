import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh folder under the OS temp dir, removed by the returned function. */
export function tempDir(prefix = 'sim-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A fixed 32-byte key (hex) for tests that need SECRET_KEY. */
export const TEST_SECRET_KEY = 'a'.repeat(64);
