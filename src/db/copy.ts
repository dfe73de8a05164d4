import { count, getTableColumns, type SQL, sql } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Store, Tables } from './store/types.js';

/** Rows read and written per statement (PostgreSQL takes at most 65,535 parameters per statement). */
const PAGE_ROWS = 1000;

export type TableName = keyof Tables;

export class CopyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyRefused';
  }
}

export interface CopyResult {
  /** Rows per table, in the order they were copied. */
  rows: Array<{ table: string; rows: number }>;
}

/**
 * Copies every table of `source` into the empty PostgreSQL database behind `target`: one transaction
 * on each side (a consistent snapshot of the source; all or nothing on the target), tables in
 * foreign-key order, rows in primary-key pages, ids kept, identity sequences moved past the copied
 * ids, and every table's row count compared before the commit. `beforeCommit` runs last, inside the
 * target's transaction: a throw there rolls the whole copy back.
 */
export async function copyStore(
  source: Store,
  target: Store,
  options: { beforeCommit?(tx: Store): Promise<void> } = {},
): Promise<CopyResult> {
  if (target.engine !== 'postgres') throw new Error('copyStore writes to PostgreSQL only');
  const order = tablesInForeignKeyOrder(target.t);
  return source.transaction((from) =>
    target.transaction(async (to) => {
      await refuseUnlessEmpty(to, order);
      const rows: CopyResult['rows'] = [];
      for (const name of order) {
        const copied = await copyTable(from, to, name);
        const [expected] = await from.orm.select({ n: count() }).from(from.t[name]);
        const [found] = await to.orm.select({ n: count() }).from(to.t[name]);
        if (copied !== expected?.n || found?.n !== expected?.n) {
          throw new Error(
            `${tableName(to, name)}: the source holds ${expected?.n} rows, ${copied} were copied and the target holds ${found?.n}`,
          );
        }
        await moveIdentitiesPastCopiedIds(to, name);
        rows.push({ table: tableName(to, name), rows: copied });
      }
      await options.beforeCommit?.(to);
      return { rows };
    }),
  );
}

function tableName(store: Store, name: TableName): string {
  return getTableConfig(store.t[name] as PgTable).name;
}

/** Every table after the tables its foreign keys point at (the schema has no cycles). */
export function tablesInForeignKeyOrder(tables: Tables): TableName[] {
  const names = Object.keys(tables) as TableName[];
  const byTable = new Map<PgTable, TableName>(names.map((n) => [tables[n] as PgTable, n]));
  const ordered: TableName[] = [];
  const visiting = new Set<TableName>();
  const visit = (name: TableName) => {
    if (ordered.includes(name)) return;
    if (visiting.has(name)) throw new Error(`foreign keys form a cycle through ${name}`);
    visiting.add(name);
    for (const key of getTableConfig(tables[name] as PgTable).foreignKeys) {
      const parent = byTable.get(key.reference().foreignTable);
      if (parent && parent !== name) visit(parent);
    }
    visiting.delete(name);
    ordered.push(name);
  };
  for (const name of names.sort()) visit(name);
  return ordered;
}

async function refuseUnlessEmpty(to: Store, order: TableName[]): Promise<void> {
  const filled: string[] = [];
  for (const name of order) {
    const [row] = await to.orm.select({ n: count() }).from(to.t[name]);
    if (row?.n) filled.push(`${tableName(to, name)} (${row.n})`);
  }
  if (filled.length) {
    throw new CopyRefused(
      `the PostgreSQL database already holds rows in ${filled.join(', ')}: copy into an empty database`,
    );
  }
}

/** Property names of the table's primary key columns, in key order. */
function primaryKeyOf(table: PgTable): string[] {
  const columns = Object.entries(getTableColumns(table));
  const composite = getTableConfig(table).primaryKeys[0];
  const keyColumns: PgColumn[] = composite
    ? composite.columns
    : columns.filter(([, c]) => c.primary).map(([, c]) => c as PgColumn);
  // The composite key's column objects are the extra-config copies: match them by SQL name.
  return keyColumns.map((key) => columns.find(([, c]) => c.name === key.name)?.[0] as string);
}

/** Copies one table in pages ordered by its primary key (keyset pagination: no OFFSET scans). */
async function copyTable(from: Store, to: Store, name: TableName): Promise<number> {
  const key = primaryKeyOf(to.t[name] as PgTable);
  if (key.length === 0) throw new Error(`${name} has no primary key to page by`);
  const sourceColumns = getTableColumns(from.t[name] as PgTable) as Record<string, PgColumn>;
  const keyColumns = key.map((k) => sourceColumns[k] as PgColumn);
  let copied = 0;
  let after: unknown[] | null = null;
  for (;;) {
    const page: Record<string, unknown>[] = await from.orm
      .select()
      .from(from.t[name])
      .where(after ? rowAfter(keyColumns, after) : undefined)
      .orderBy(...keyColumns)
      .limit(PAGE_ROWS);
    if (page.length === 0) return copied;
    // biome-ignore lint/suspicious/noExplicitAny: rows of one table go back into its twin, same shape
    await to.orm.insert(to.t[name]).values(page as any);
    copied += page.length;
    const last = page[page.length - 1] as Record<string, unknown>;
    after = key.map((k) => last[k]);
  }
}

/** `(a, b) > (x, y)`: a row value comparison, which SQLite (3.15+) and PostgreSQL both evaluate. */
function rowAfter(columns: PgColumn[], values: unknown[]): SQL {
  return sql`(${sql.join(columns, sql`, `)}) > (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** Identity columns numbered the copied rows' ids explicitly: their next value must come after them. */
async function moveIdentitiesPastCopiedIds(to: Store, name: TableName): Promise<void> {
  const table = to.t[name] as PgTable;
  const { name: tableSqlName } = getTableConfig(table);
  for (const column of Object.values(getTableColumns(table))) {
    if (!(column as PgColumn & { generatedIdentity?: unknown }).generatedIdentity) continue;
    await to.orm.execute(
      sql`SELECT setval(pg_get_serial_sequence(${tableSqlName}, ${column.name}), max(${column}), true) FROM ${table} HAVING count(*) > 0`,
    );
  }
}
