import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  batchedDestination,
  createConfiguredLogger,
  createLogger,
  LOG_BUFFER_BYTES,
} from '../../src/logger.js';
import { spawnProcess } from '../helpers/process.js';

/** A real pino logger writing into an array: what reaches stdout in production, line by line. */
function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('log censoring (second line of defence: secrets never reach a log line)', () => {
  it('replaces secrets at the top level and in nested objects, case-insensitively', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        token: 'tok-1',
        code: 'auth-code',
        refresh_token: 'rt',
        headers: { Authorization: 'Bearer abc', cookie: 'sid=1', 'X-Service-Token': 'svc', accept: 'x' },
        req: { headers: { authorization: 'Bearer def' } },
        body: { email: 'a@example.com', password: 'hunter2', client_secret: 'cs', code_verifier: 'v' },
        list: [{ apiToken: 'in-array' }],
      },
      'event',
    );
    const line = JSON.stringify(lines[0]);
    for (const secret of [
      'tok-1',
      'auth-code',
      'Bearer abc',
      'sid=1',
      'svc',
      'Bearer def',
      'hunter2',
      'cs"',
      'in-array',
    ])
      expect(line).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      token: '[redacted]',
      code: '[redacted]',
      headers: { Authorization: '[redacted]', accept: 'x' },
      body: { email: 'a@example.com', password: '[redacted]' },
      list: [{ apiToken: '[redacted]' }],
      msg: 'event',
    });
  });

  it('keeps nested error codes, errors and ordinary fields as they are', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    logger.warn({ err: error, cause: { code: 'SQLITE_BUSY' }, status: 502, path: '/mcp' }, 'upstream');
    expect(lines[0]).toMatchObject({
      err: { message: 'socket hang up', code: 'ECONNRESET' },
      cause: { code: 'SQLITE_BUSY' },
      status: 502,
      path: '/mcp',
    });
  });

  it('censors the configured upstream header names (UPSTREAM_TOKEN_HEADER, UPSTREAM_USER_HEADER), not only the defaults', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createConfiguredLogger(
      { logLevel: 'debug', upstream: { tokenHeader: 'X-Acme-Api-Key', userHeader: 'X-Acme-User' } },
      { write: (line: string) => void lines.push(JSON.parse(line)) },
    );
    logger.info(
      {
        headers: {
          'x-acme-api-key': 'acme-secret',
          'X-Acme-User': 'u-42',
          'X-Service-Token': 'svc',
          accept: 'x',
        },
      },
      'upstream request',
    );
    const line = JSON.stringify(lines[0]);
    for (const secret of ['acme-secret', 'u-42', 'svc']) expect(line).not.toContain(secret);
    expect(lines[0]).toMatchObject({ headers: { accept: 'x' } });
  });

  it('never changes the object the caller logged', () => {
    const { logger } = capture();
    const logged = { headers: { authorization: 'Bearer keep-me' } };
    logger.info(logged, 'event');
    expect(logged.headers.authorization).toBe('Bearer keep-me');
  });
});

describe('the process logger writes its lines in batches', () => {
  const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

  it('gathers lines until a batch is full or it is flushed', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sim-log-')), 'out.log');
    const logger = createLogger('info', batchedDestination(file));
    logger.info('first');
    logger.info('second');
    expect(lines(file)).toEqual([]);
    logger.flush();
    expect(lines(file).map((l) => JSON.parse(l).msg)).toEqual(['first', 'second']);
    const long = 'x'.repeat(200);
    let written = 0;
    while (lines(file).length === 2) {
      logger.info(long);
      written += long.length;
    }
    // A full batch is written without being asked, and before it grew much past its size.
    expect(written).toBeLessThanOrEqual(LOG_BUFFER_BYTES + long.length);
  });

  it('writes an error at once, with the lines gathered before it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sim-log-')), 'out.log');
    const logger = createLogger('info', batchedDestination(file));
    logger.info('routine');
    logger.child({ requestId: 'r-1' }).error('request failed');
    expect(lines(file).map((l) => JSON.parse(l).msg)).toEqual(['routine', 'request failed']);
  });

  it('leaves no line behind when the process dies of an uncaught exception', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sim-log-')), 'out.log');
    const script = [
      "import { batchedDestination, createLogger } from './src/logger.ts';",
      `const logger = createLogger('info', batchedDestination(${JSON.stringify(file)}));`,
      "for (let i = 0; i < 5; i++) logger.info({ i }, 'before the crash');",
      "setImmediate(() => { throw new Error('crash'); });",
    ].join('\n');
    const proc = spawnProcess('node', ['--import', 'tsx', '--input-type=module', '-e', script], {});
    const { code } = await proc.exit();
    expect(code).not.toBe(0);
    expect(proc.stderr()).toContain('crash');
    expect(lines(file).map((l) => JSON.parse(l).i)).toEqual([0, 1, 2, 3, 4]);
  });
});
