#!/usr/bin/env node
// Applies database migrations: `npm run migrate` (or `node tools/migrate.js` in the container image).
// Creates the database named in DATABASE_URL when it does not exist. Needs libs/persistence built.
require('reflect-metadata');
const path = require('path');

async function main() {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/meridian';
  try {
    const parsed = new URL(url);
    if (!['postgres:', 'postgresql:'].includes(parsed.protocol)) throw new Error('not a postgres URL');
  } catch {
    process.stderr.write('Configuration error: DATABASE_URL must be a postgres:// URL.\n');
    process.exit(1);
  }
  const persistence = require(path.join(__dirname, '..', 'libs', 'persistence', 'dist'));
  const created = await persistence.ensureDatabase(url);
  if (created) process.stdout.write(`Created database ${new URL(url).pathname.slice(1)}.\n`);
  const applied = await persistence.runMigrations(url);
  process.stdout.write(applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'The database schema is up to date.\n');
}

main().catch((e) => {
  process.stderr.write(`Migration failed: ${e.message}\n`);
  process.exit(1);
});
