import { describe, expect, it } from 'vitest';
import { PreviewMemory } from '../../../src/mcp/tools/preview-memory.js';

/** The memory of preview posts shown: per connection and search, bounded, forgotten when asked. */
describe('preview memory', () => {
  it('marks what it was asked about as shown, per connection and search', () => {
    const memory = new PreviewMemory();
    const a = memory.of('grant-a');
    expect(a.take('keyword:1', ['p1', 'p2'])).toEqual({ fresh: [true, true], earlier: 0 });
    expect(a.take('keyword:1', ['p1', 'p2', 'p3'])).toEqual({ fresh: [false, false, true], earlier: 2 });
    expect(a.take('keyword:2', ['p1'])).toEqual({ fresh: [true], earlier: 0 });
    expect(memory.of('grant-b').take('keyword:1', ['p1'])).toEqual({ fresh: [true], earlier: 0 });
    a.forget('keyword:1');
    expect(a.take('keyword:1', ['p1'])).toEqual({ fresh: [true], earlier: 0 });
  });

  it('keeps at most its bound of searches, the least recently used leaving first', () => {
    const memory = new PreviewMemory(3);
    const c = memory.of('grant');
    for (const id of [1, 2, 3]) c.take(`keyword:${id}`, ['p']);
    c.take('keyword:1', ['p']);
    c.take('keyword:4', ['p']);
    expect(memory.size).toBe(3);
    expect(c.take('keyword:1', ['p']).earlier).toBe(1);
    expect(c.take('keyword:2', ['p']).earlier).toBe(0);
  });
});
