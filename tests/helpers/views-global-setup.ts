import { buildViews } from '../../scripts/build-views.js';

/**
 * vitest globalSetup: builds the MCP Apps views (dist/views/*.html) from their sources before any test
 * starts, so `npm test` (what CI runs, with no separate build) serves and tests the views of the code
 * at hand. esbuild does all three in well under a second; committed built files would need a
 * freshness test and would put minified bundles in every diff.
 */
export default async function setup(): Promise<void> {
  await buildViews();
}
