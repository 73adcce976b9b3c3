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
      `SELECT count(*)::int AS count FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id WHERE t.name = 'User'`,
    );
    expect(userAttrs).toBe(BUILT_IN_USER_ATTRIBUTES.length);
    const [{ count: groupAttrs }] = await ds.query(
      `SELECT count(*)::int AS count FROM metaverse_object_type_attribute ta JOIN metaverse_object_type t ON t.id = ta.object_type_id WHERE t.name = 'Group'`,
    );
    expect(groupAttrs).toBe(BUILT_IN_GROUP_ATTRIBUTES.length);
    expect(await ds.query(`SELECT name FROM role WHERE is_built_in`)).toEqual([{ name: 'Administrator' }]);
  });

  it('deletes lookup rows and execution items with their object, attribute or activity (statement triggers, no per-row keys)', async () => {
    const [type] = await ds.query(`SELECT id FROM metaverse_object_type WHERE name = 'User'`);
    const [attr] = await ds.query(
      `INSERT INTO metaverse_attribute (name, type, plurality) VALUES ('Badge', 'String', 'Single') RETURNING id`,
    );
    const objects = await ds.query(
      `INSERT INTO metaverse_object (type_id, origin) SELECT $1, 'Projected' FROM generate_series(1, 3) RETURNING id`,
      [type.id],
    );
    const [email] = await ds.query(`SELECT id FROM metaverse_attribute WHERE name = 'Email'`);
    for (const [i, o] of objects.entries()) {
      await ds.query(`INSERT INTO metaverse_object_lookup (attribute_id, value_normalised, object_id) VALUES ($1, $2, $3), ($4, $2, $3)`, [
        attr.id,
        `v${i}`,
        o.id,
        email.id,
      ]);
    }
    const count = async (sql: string, params: unknown[] = []) => Number((await ds.query(sql, params))[0].n);
    await ds.query(`DELETE FROM metaverse_object WHERE id = ANY($1::uuid[])`, [[objects[0].id, objects[1].id]]);
    expect(
      await count(`SELECT count(*) AS n FROM metaverse_object_lookup WHERE object_id = ANY($1::uuid[])`, [
        objects.map((o: { id: string }) => o.id),
      ]),
    ).toBe(2);
    await ds.query(`DELETE FROM metaverse_attribute WHERE id = $1`, [attr.id]);
    expect(await count(`SELECT count(*) AS n FROM metaverse_object_lookup WHERE object_id = $1`, [objects[2].id])).toBe(1);
    const [activity] = await ds.query(
      `INSERT INTO activity (status, target_type, target_operation_type, initiated_by_type) VALUES ('Complete', 'ConnectedSystemRunProfile', 'Execute', 'System') RETURNING id`,
    );
    await ds.query(`INSERT INTO activity_execution_item (activity_id, object_change_type) SELECT $1, 'Add' FROM generate_series(1, 5)`, [
      activity.id,
    ]);
    await ds.query(`DELETE FROM activity WHERE id = $1`, [activity.id]);
    expect(await count(`SELECT count(*) AS n FROM activity_execution_item WHERE activity_id = $1`, [activity.id])).toBe(0);
  });

  it('reverts the engine, history and pending-deletion expiry migrations cleanly', async () => {
    const scratch = await createTestDatabase('revert');
    const other = await new DataSource(dataSourceOptions(scratch.url)).initialize();
    const indexExists = async () =>
      (await other.query(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'ix_metaverse_object_deletion_eligible'`))[0].n;
    try {
      expect(await indexExists()).toBe(1);
      await other.undoLastMigration();
      expect(await pendingMigrations(other)).toEqual(['PendingDeletionExpiry1764300000000']);
      expect(await indexExists()).toBe(0);
      await other.undoLastMigration();
      expect(await pendingMigrations(other)).toEqual(['History1764200000000', 'PendingDeletionExpiry1764300000000']);
      await other.undoLastMigration();
      expect(await pendingMigrations(other)).toEqual(['Engine1764100000000', 'History1764200000000', 'PendingDeletionExpiry1764300000000']);
      await other.runMigrations();
      expect(await pendingMigrations(other)).toEqual([]);
    } finally {
      await other.destroy();
      await scratch.drop();
    }
  });
});
