import type Database from 'better-sqlite3';
import type postgres from 'postgres';

/**
 * A database's structure as both engines can state it, read from the database itself (not from the
 * drizzle objects): what schema-equivalence.test.ts compares.
 */
export interface TableShape {
  columns: Record<string, { type: string; notNull: boolean; default: string | null; generated: boolean }>;
  primaryKey: string[];
  foreignKeys: string[];
  uniques: string[];
  indexes: string[];
}
export type Shape = Record<string, TableShape>;

/**
 * SQLite's integer is 64-bit; PostgreSQL says integer (32) or bigint (64): both hold whole numbers.
 * SQLite has no boolean: drizzle keeps booleans there as integers 0/1, PostgreSQL as boolean, so a
 * boolean compares as an integer here; typing.test.ts tells a boolean column from a number one.
 */
function typeClass(type: string): string {
  const t = type.toLowerCase();
  if (t === 'integer' || t === 'bigint' || t === 'boolean') return 'integer';
  return t;
}

/**
 * A partial index's condition in one spelling: SQLite keeps it as written in CREATE INDEX (quoted,
 * table-qualified), PostgreSQL as pg_get_expr prints it (parenthesised).
 */
function predicate(where: string | null): string {
  if (!where) return '';
  let p = where
    .replace(/["`]/g, '')
    .replace(/\b\w+\.(\w+)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  while (p.startsWith('(') && p.endsWith(')')) p = p.slice(1, -1).trim();
  return ` where ${p.toLowerCase()}`;
}

const fk = (from: string[], table: string, to: string[], onDelete: string, onUpdate: string) =>
  `(${from.join(',')}) → ${table}(${to.join(',')}) on delete ${onDelete.toLowerCase()} on update ${onUpdate.toLowerCase()}`;

export function sqliteShape(db: Database.Database): Shape {
  const shape: Shape = {};
  const tables = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name",
    )
    .all() as Array<{ name: string; sql: string }>;
  for (const { name, sql } of tables) {
    const info = db.prepare('SELECT * FROM pragma_table_info(?) ORDER BY cid').all(name) as Array<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: string | null;
      pk: number;
    }>;
    const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    const columns: TableShape['columns'] = {};
    for (const c of info) {
      // An INTEGER PRIMARY KEY alone is the rowid: numbered by the database, like an identity column.
      const rowid = pk.length === 1 && c.pk === 1 && c.type.toLowerCase() === 'integer';
      columns[c.name] = {
        type: typeClass(c.type),
        notNull: c.notnull === 1 || c.pk > 0,
        default: c.dflt_value,
        generated: rowid && /autoincrement/i.test(sql),
      };
    }
    const fkRows = db
      .prepare('SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq')
      .all(name) as Array<{
      id: number;
      table: string;
      from: string;
      to: string;
      on_delete: string;
      on_update: string;
    }>;
    const byId = new Map<number, typeof fkRows>();
    for (const row of fkRows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
    const foreignKeys = [...byId.values()].map((rows) => {
      const first = rows[0] as (typeof rows)[number];
      return fk(
        rows.map((r) => r.from),
        first.table,
        rows.map((r) => r.to),
        first.on_delete,
        first.on_update,
      );
    });
    const uniques: string[] = [];
    const indexes: string[] = [];
    const list = db.prepare('SELECT * FROM pragma_index_list(?)').all(name) as Array<{
      name: string;
      unique: number;
      origin: string;
      partial: number;
    }>;
    for (const index of list) {
      if (index.origin === 'pk') continue;
      const cols = (
        db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').all(index.name) as Array<{
          name: string;
        }>
      ).map((c) => c.name);
      const where = index.partial
        ? ((
            db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(index.name) as {
              sql: string;
            }
          ).sql.match(/\bWHERE\b([\s\S]*)$/i)?.[1] ?? null)
        : null;
      (index.unique ? uniques : indexes).push(`${index.name}(${cols.join(',')})${predicate(where)}`);
    }
    shape[name] = {
      columns,
      primaryKey: pk.map((c) => c.name),
      foreignKeys: foreignKeys.sort(),
      uniques: uniques.sort(),
      indexes: indexes.sort(),
    };
  }
  return shape;
}

export async function postgresShape(sql: postgres.Sql): Promise<Shape> {
  const shape: Shape = {};
  const columns = await sql<
    Array<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
      column_default: string | null;
      is_identity: string;
    }>
  >`SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
  for (const c of columns) {
    const table = shape[c.table_name] ?? {
      columns: {},
      primaryKey: [],
      foreignKeys: [],
      uniques: [],
      indexes: [],
    };
    shape[c.table_name] = table;
    table.columns[c.column_name] = {
      type: typeClass(c.data_type),
      notNull: c.is_nullable === 'NO',
      // PostgreSQL spells a text default with its cast ('oauth'::text); SQLite as written ('oauth').
      default: c.column_default?.replace(/::text$/, '') ?? null,
      generated: c.is_identity === 'YES',
    };
  }
  const indexes = await sql<
    Array<{
      table: string;
      name: string;
      unique: boolean;
      primary: boolean;
      columns: string[];
      where: string | null;
    }>
  >`SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
           pg_get_expr(x.indpred, x.indrelid) AS where,
           array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
    FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_namespace ns ON ns.oid = t.relnamespace WHERE ns.nspname = 'public'`;
  for (const index of indexes) {
    const table = shape[index.table];
    if (!table) continue;
    if (index.primary) table.primaryKey = index.columns;
    else {
      (index.unique ? table.uniques : table.indexes).push(
        `${index.name}(${index.columns.join(',')})${predicate(index.where)}`,
      );
    }
  }
  const actions: Record<string, string> = {
    a: 'no action',
    r: 'restrict',
    c: 'cascade',
    n: 'set null',
    d: 'set default',
  };
  const keys = await sql<
    Array<{ table: string; ref: string; from: string[]; to: string[]; del: string; upd: string }>
  >`SELECT t.relname AS table, r.relname AS ref, c.confdeltype AS del, c.confupdtype AS upd,
           array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS from,
           array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS to
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
    JOIN pg_namespace ns ON ns.oid = c.connamespace WHERE c.contype = 'f' AND ns.nspname = 'public'`;
  for (const key of keys) {
    shape[key.table]?.foreignKeys.push(
      fk(key.from, key.ref, key.to, actions[key.del] ?? key.del, actions[key.upd] ?? key.upd),
    );
  }
  for (const table of Object.values(shape)) {
    table.foreignKeys.sort();
    table.uniques.sort();
    table.indexes.sort();
  }
  return Object.fromEntries(Object.entries(shape).sort(([a], [b]) => a.localeCompare(b)));
}
