import { defineConfig } from 'drizzle-kit';

/** PostgreSQL migrations, generated from the pg-core twin of the schema (drizzle.config.ts: SQLite). */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/postgres/schema/index.ts',
  out: './migrations/postgres',
});
