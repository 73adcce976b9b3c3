import { dataSourceOptions, pendingMigrations, runMigrations } from '@meridian/persistence';
import { BUILT_IN_GROUP_ATTRIBUTES, BUILT_IN_USER_ATTRIBUTES } from '@meridian/domain';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../src';

describe('migrations', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('migrations');
    ds = await new DataSource(dataSourceOptions(db.url)).initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('leaves nothing pending and is idempotent', async () => {
    expect(await pendingMigrations(ds)).toEqual([]);
    expect(await runMigrations(db.url)).toEqual([]);
  });

  it('matches the entities exactly (no schema drift)', async () => {
    const sql = await ds.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('seeds the built-in metaverse schema and the Administrator role', async () => {
    const types = await ds.query(`SELECT name FROM metaverse_object_type WHERE is_built_in ORDER BY name`);
    expect(types.map((t: { name: string }) => t.name)).toEqual(['Group', 'User']);
    const [{ count: userAttrs }] = await ds.query(
      `SELECT count(*)::int AS count FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id WHERE t.name = 'User'`);
    expect(userAttrs).toBe(BUILT_IN_USER_ATTRIBUTES.length);
    const [{ count: groupAttrs }] = await ds.query(
      `SELECT count(*)::int AS count FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id WHERE t.name = 'Group'`);
    expect(groupAttrs).toBe(BUILT_IN_GROUP_ATTRIBUTES.length);
    expect(await ds.query(`SELECT name FROM role WHERE is_built_in`)).toEqual([{ name: 'Administrator' }]);
  });

  it('reverts cleanly', async () => {
    const scratch = await createTestDatabase('revert');
    const other = await new DataSource(dataSourceOptions(scratch.url)).initialize();
    try {
      await other.undoLastMigration();
      expect(await pendingMigrations(other)).toEqual(['Engine1764100000000']);
      await other.runMigrations();
      expect(await pendingMigrations(other)).toEqual([]);
    } finally {
      await other.destroy();
      await scratch.drop();
    }
  });
});
