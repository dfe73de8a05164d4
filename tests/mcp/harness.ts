/**
 * The harness moved to tests/helpers/harness.ts; this re-export keeps tests/apps (changed by
 * another branch at the time) compiling. Import from tests/helpers in new code.
 */
export { type Harness, type Json, startHarness } from '../helpers/harness.js';
