import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Change records of connector space and metaverse objects (spec 2.13, 4.10). Written in bulk by the
 * engine; read per object (newest first), as deleted-object lists and as counts per connected system;
 * removed by the retention cleanup, oldest first, through the primary key (UUID v7 ids are time ordered).
 */
export class History1764200000000 implements MigrationInterface {
  name = 'History1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connected_system_object_change (
        id uuid NOT NULL,
        change_time timestamptz NOT NULL,
        connected_system_id integer NOT NULL,
        connected_system_object_id uuid NOT NULL,
        object_type_id integer,
        external_id text,
        display_name text,
        change_type varchar(20) NOT NULL,
        attribute_changes json,
        activity_id uuid,
        run_profile_id integer,
        initiated_by_type varchar(20) NOT NULL,
        initiated_by_id uuid,
        initiated_by_name varchar(300),
        object_type_name varchar(200),
        connected_system_name varchar(200),
        CONSTRAINT connected_system_object_change_pkey PRIMARY KEY (id)
      )`);
    await q.query(
      `CREATE INDEX ix_cso_change_object ON connected_system_object_change (connected_system_id, connected_system_object_id, id)`,
    );
    await q.query(`CREATE INDEX ix_cso_change_deleted ON connected_system_object_change (change_time) WHERE change_type = 'Deleted'`);
    await q.query(`
      CREATE TABLE metaverse_object_change (
        id uuid NOT NULL,
        change_time timestamptz NOT NULL,
        metaverse_object_id uuid NOT NULL,
        object_type_id integer NOT NULL,
        display_name text,
        change_type varchar(20) NOT NULL,
        attribute_changes json,
        connected_system_id integer,
        connected_system_object_id uuid,
        activity_id uuid,
        run_profile_id integer,
        initiated_by_type varchar(20) NOT NULL,
        initiated_by_id uuid,
        initiated_by_name varchar(300),
        object_type_name varchar(200),
        CONSTRAINT metaverse_object_change_pkey PRIMARY KEY (id)
      )`);
    await q.query(`CREATE INDEX ix_mvo_change_object ON metaverse_object_change (metaverse_object_id, id)`);
    await q.query(`CREATE INDEX ix_mvo_change_deleted ON metaverse_object_change (change_time) WHERE change_type = 'Deleted'`);
    // The attributes whose values differ between two stored value maps ({ "<attributeId>": [values] }),
    // as change-record deltas [{ a, o, n }] in attribute id order: set-based writers compute them in SQL.
    await q.query(`
      CREATE FUNCTION meridian_attribute_delta(old jsonb, new jsonb) RETURNS jsonb
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(jsonb_agg(jsonb_build_object('a', k::int, 'o', coalesce(old -> k, '[]'::jsonb), 'n', coalesce(new -> k, '[]'::jsonb))
                                  ORDER BY k::int), '[]'::jsonb)
          FROM (SELECT jsonb_object_keys(coalesce(old, '{}'::jsonb)) UNION SELECT jsonb_object_keys(coalesce(new, '{}'::jsonb))) keys(k)
         WHERE coalesce(old -> k, '[]'::jsonb) IS DISTINCT FROM coalesce(new -> k, '[]'::jsonb)
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION IF EXISTS meridian_attribute_delta(jsonb, jsonb)`);
    await q.query(`DROP TABLE IF EXISTS metaverse_object_change`);
    await q.query(`DROP TABLE IF EXISTS connected_system_object_change`);
  }
}
