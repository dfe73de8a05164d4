import type { Engine } from '../../src/db/store/index.js';

/**
 * The engine this test run's servers and stores use: vitest runs the database-touching tests once per
 * engine (vitest.config.ts projects set TEST_ENGINE); a file run on its own uses SQLite unless told.
 */
export function testEngine(): Engine {
  const engine = process.env.TEST_ENGINE ?? 'sqlite';
  if (engine !== 'sqlite' && engine !== 'postgres') {
    throw new Error(`TEST_ENGINE must be sqlite or postgres (got ${JSON.stringify(engine)})`);
  }
  return engine;
}
