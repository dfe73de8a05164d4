import {
  getTableColumns,
  getTableName,
  type InferInsertModel,
  type InferSelectModel,
  type Table,
} from 'drizzle-orm';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as pg from '../../src/db/postgres/schema/index.js';
import * as sqlite from '../../src/db/schema/index.js';

type Rows<M> = { [K in keyof M]: M[K] extends Table ? InferSelectModel<M[K]> : never };
type Inserts<M> = { [K in keyof M]: M[K] extends Table ? InferInsertModel<M[K]> : never };

/**
 * The store hands out the SQLite tables under the pg-core twins' type (src/db/store/types.ts). That
 * is sound only while both have the same exports, property names, column names, and row and insert
 * types: checked here, by the compiler (`npm run typecheck`) and at run time.
 */
describe('the two schema modules', () => {
  it('have the same row and insert types for every table', () => {
    expectTypeOf<Rows<typeof sqlite>>().toEqualTypeOf<Rows<typeof pg>>();
    expectTypeOf<Inserts<typeof sqlite>>().toEqualTypeOf<Inserts<typeof pg>>();
  });

  it('export the same tables, with the same SQL names, properties and column names', () => {
    const describeModule = (module: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(module)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, table]) => [
            name,
            {
              table: getTableName(table as Table),
              columns: Object.fromEntries(
                Object.entries(getTableColumns(table as Table)).map(([property, column]) => [
                  property,
                  { name: column.name, notNull: column.notNull, hasDefault: column.hasDefault },
                ]),
              ),
            },
          ]),
      );
    const sqliteTables = describeModule(sqlite);
    expect(Object.keys(sqliteTables).length).toBeGreaterThan(0);
    expect(describeModule(pg)).toEqual(sqliteTables);
  });
});
