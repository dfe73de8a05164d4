import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineSplit } from '../helpers/engine-split.js';
import { ROOT } from '../helpers/process.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Which test files run on both engines follows from where they live and what they import
 * (tests/helpers/engine-split.ts, docs/testing.md): the tests of rules kept in the database stay on
 * both, and each part of the rule is shown to decide.
 */
describe('the engine split of the test files', () => {
  const { both, once } = engineSplit(ROOT);

  it('runs the tests of database rules on both engines', () => {
    const rules = [
      'tests/accounts/accounts.test.ts',
      'tests/accounts/rate-limits.test.ts',
      'tests/cli/users.test.ts',
      'tests/housekeeping/housekeeping.test.ts',
      'tests/mcp/auth/bearer-invalidation.test.ts',
      'tests/mcp/reuse/recent-submits.test.ts',
      'tests/mcp/reuse/reuse-failed.test.ts',
      'tests/mcp/tasks/task-limits.test.ts',
      'tests/mcp/tasks/task-store.test.ts',
      'tests/mcp/tasks/tasks.test.ts',
      'tests/metrics/route.test.ts',
      'tests/oauth/revoke.test.ts',
      'tests/oauth/storage.test.ts',
      'tests/oauth/token-refresh.test.ts',
      'tests/reliability/concurrency.test.ts',
      'tests/reliability/limits-under-concurrency.test.ts',
      'tests/teams/audit-trail.test.ts',
      'tests/teams/member-limits.test.ts',
      'tests/teams/write-cap-concurrency.test.ts',
    ];
    expect(rules.filter((f) => !both.includes(f))).toEqual([]);
  });

  it('runs once what picks its engine, covers both itself, looks at pages or keeps no state', () => {
    const single = [
      'tests/cli/copy.test.ts',
      'tests/cli/help-and-config.test.ts',
      'tests/db/store.test.ts',
      'tests/housekeeping/pass-stopped.test.ts',
      'tests/reliability/crash-safety.test.ts',
      'tests/reliability/two-instances.test.ts',
      'tests/web/layout.test.ts',
      'tests/mcp/results/paging.test.ts',
      'tests/oauth/ssrf.test.ts',
    ];
    expect(single.filter((f) => !once.includes(f))).toEqual([]);
    expect(both.length + once.length).toBeGreaterThan(150);
  });

  it('decides by room, by run-time imports of engine helpers, by a chosen engine and by browsers', () => {
    const dir = tempDir('engine-split-');
    const root = dir.path;
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('tests/helpers/engine.ts', 'export const x = 1;\n');
    write('tests/helpers/server.ts', "import { x } from './engine.js';\nexport const y = x;\n");
    write('tests/helpers/harness.ts', "import {\n  y,\n} from './server.js';\nexport const z = y;\n");
    write('tests/helpers/oauth-http.ts', "import type { y } from './server.js';\nexport const w = 1;\n");
    write('tests/helpers/browser.ts', 'export const b = 1;\n');
    const server = "import { z } from '../helpers/harness.js';\n";
    write('tests/teams/state.test.ts', server);
    write('tests/teams/later.test.ts', "const { y } = await import('../helpers/server.js');\n");
    write('tests/mcp/tasks/deep.test.ts', "import { z } from '../../helpers/harness.js';\n");
    write('tests/teams/pure.test.ts', "import { w } from '../helpers/oauth-http.js';\n");
    write('tests/teams/typed.test.ts', "import type { z } from '../helpers/harness.js';\n");
    write('tests/mcp/results/stateless.test.ts', "import { z } from '../../helpers/harness.js';\n");
    write('tests/teams/chosen.test.ts', `${server}const s = { engine: 'sqlite' };\n`);
    write('tests/teams/seen.test.tsx', `${server}import { b } from '../helpers/browser.js';\n`);
    expect(engineSplit(root)).toEqual({
      both: ['tests/mcp/tasks/deep.test.ts', 'tests/teams/later.test.ts', 'tests/teams/state.test.ts'],
      once: [
        'tests/mcp/results/stateless.test.ts',
        'tests/teams/chosen.test.ts',
        'tests/teams/pure.test.ts',
        'tests/teams/seen.test.tsx',
        'tests/teams/typed.test.ts',
      ],
    });
    dir.remove();
  });
});
