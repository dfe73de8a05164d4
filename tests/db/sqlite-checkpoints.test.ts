import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenStore, openMigratedStore, statementRows } from '../../src/db/store/index.js';
import { START_AFTER_WRITES } from '../../src/db/store/sqlite-checkpoints.js';

/**
 * The server connection's checkpoints run on a worker thread once it has written a little
 * (src/db/store/sqlite-checkpoints.ts). What shows it from outside: pages committed to the WAL reach
 * the database file without any further write on the server's connection, and below SQLite's own
 * threshold (1,000 pages), where the connection alone never checkpoints.
 */
const PAGE = 4_096;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let store: OpenStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function open() {
  dir = mkdtempSync(join(tmpdir(), 'sim-ckpt-'));
  const path = join(dir, 'db.sqlite');
  store = (await openMigratedStore({ databasePath: path })).store;
  await statementRows(store, sql`CREATE TABLE scratch (data BLOB)`);
  return { db: store, fileBytes: () => statSync(path).size };
}

/** `rows` inserts of about `pages` pages in all, each its own write. */
async function write(db: OpenStore, rows: number, pages: number) {
  const bytes = Math.floor((pages * PAGE) / rows);
  for (let i = 0; i < rows; i++)
    await statementRows(db, sql`INSERT INTO scratch VALUES (randomblob(${bytes}))`);
}

async function grows(fileBytes: () => number, from: number, by: number, withinMs: number) {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (fileBytes() >= from + by) return true;
    await sleep(100);
  }
  return false;
}

describe('SQLite checkpoints off the event loop', () => {
  it('a connection that has written little checkpoints as SQLite does: not below 1,000 pages', async () => {
    const { db, fileBytes } = await open();
    await write(db, START_AFTER_WRITES - 10, 300);
    const before = fileBytes();
    expect(await grows(fileBytes, before, 200 * PAGE, 2_500)).toBe(false);
  });

  it('once it has, a worker copies the WAL into the file within seconds, with no write to trigger it', async () => {
    const { db, fileBytes } = await open();
    await write(db, START_AFTER_WRITES, 20);
    await sleep(1_500);
    const before = fileBytes();
    await write(db, 30, 300);
    expect(await grows(fileBytes, before, 250 * PAGE, 5_000)).toBe(true);
  });

  it('holds while the housekeeping pass checkpoints itself, and goes on after', async () => {
    const { db, fileBytes } = await open();
    await write(db, START_AFTER_WRITES, 20);
    await sleep(1_500);
    const resume = db.sqliteFile?.pauseCheckpoints();
    expect(resume).toBeTypeOf('function');
    const before = fileBytes();
    await write(db, 30, 300);
    expect(await grows(fileBytes, before, 250 * PAGE, 2_500)).toBe(false);
    resume?.();
    expect(await grows(fileBytes, before, 250 * PAGE, 5_000)).toBe(true);
  });
});
