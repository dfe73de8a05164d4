// Preloaded into a server process (NODE_OPTIONS=--import=…): at exit, writes the @opentelemetry
// modules Node loaded (the CommonJS cache, where every OpenTelemetry package lands) to the file
// LOADED_MODULES_FILE names.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
process.on('exit', () => {
  const file = process.env.LOADED_MODULES_FILE;
  if (!file) return;
  const loaded = Object.keys(require.cache).filter((path) => path.includes('/@opentelemetry/'));
  writeFileSync(file, JSON.stringify(loaded));
});
