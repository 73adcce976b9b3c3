import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.options';

/** Creates the database named in the URL when it does not exist (connecting to `postgres` to do so). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new Error(`database name "${name}" must be letters, digits, "_" or "-"`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await client.end();
  }
}

/** Applies pending migrations; returns the names applied. */
export async function runMigrations(databaseUrl: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(databaseUrl, 'meridian-migrate', 1));
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** Names of migrations not yet applied to the connected database. */
export async function pendingMigrations(ds: DataSource): Promise<string[]> {
  const table = ds.options.migrationsTableName ?? 'migrations';
  const exists = await ds.query(`SELECT to_regclass($1) AS t`, [table]);
  const done = new Set<string>(exists[0].t ? (await ds.query(`SELECT name FROM ${table}`)).map((r: { name: string }) => r.name) : []);
  return ds.migrations.map((m) => m.name ?? m.constructor.name).filter((n) => !done.has(n));
}
