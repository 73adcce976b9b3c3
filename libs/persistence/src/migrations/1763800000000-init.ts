import { MigrationInterface, QueryRunner } from 'typeorm';
import { ADMINISTRATOR_ROLE, BUILT_IN_GROUP_ATTRIBUTES, BUILT_IN_USER_ATTRIBUTES, BuiltInObjectTypes } from '@meridian/domain';

/** The foundation schema: API keys, roles, settings, activities, metaverse schema and objects. */
export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_key (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        description text,
        key_prefix varchar(16) NOT NULL,
        key_hash char(64) NOT NULL,
        roles text[] NOT NULL DEFAULT '{}',
        expires_at timestamptz,
        is_enabled boolean NOT NULL DEFAULT true,
        is_bootstrap boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        created_by_type varchar(20),
        created_by_name varchar(300),
        last_updated timestamptz,
        last_used_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_api_key_hash ON api_key (key_hash)`);

    await q.query(`
      CREATE TABLE role (
        id serial PRIMARY KEY,
        name varchar(100) NOT NULL,
        description text,
        is_built_in boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_role_name ON role (name)`);

    await q.query(`
      CREATE TABLE service_setting (
        key varchar(200) PRIMARY KEY,
        value text NOT NULL,
        last_updated timestamptz NOT NULL DEFAULT now(),
        last_updated_by varchar(300)
      )`);

    await q.query(`
      CREATE TABLE activity (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        parent_activity_id uuid REFERENCES activity (id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        executed timestamptz,
        completed timestamptz,
        status varchar(40) NOT NULL,
        target_type varchar(60) NOT NULL,
        target_operation_type varchar(60) NOT NULL,
        target_id varchar(200),
        target_name varchar(500),
        target_context varchar(500),
        message text,
        warning_message text,
        error_message text,
        error_stack_trace text,
        initiated_by_type varchar(20) NOT NULL,
        initiated_by_id uuid,
        initiated_by_name varchar(300),
        objects_to_process int NOT NULL DEFAULT 0,
        objects_processed int NOT NULL DEFAULT 0,
        execution_time_ms bigint,
        connected_system_run_type varchar(40),
        connected_system_id int,
        connected_system_run_profile_id int,
        sync_rule_id int,
        metaverse_object_id uuid,
        total_added int NOT NULL DEFAULT 0,
        total_updated int NOT NULL DEFAULT 0,
        total_deleted int NOT NULL DEFAULT 0,
        total_projected int NOT NULL DEFAULT 0,
        total_joined int NOT NULL DEFAULT 0,
        total_attribute_flows int NOT NULL DEFAULT 0,
        total_disconnected int NOT NULL DEFAULT 0,
        total_provisioned int NOT NULL DEFAULT 0,
        total_exported int NOT NULL DEFAULT 0,
        total_deprovisioned int NOT NULL DEFAULT 0,
        total_pending_exports int NOT NULL DEFAULT 0,
        total_errors int NOT NULL DEFAULT 0,
        execution_stats jsonb,
        details jsonb,
        claimed_at timestamptz,
        claimed_by varchar(200),
        heartbeat_at timestamptz,
        cancel_requested boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX ix_activity_created ON activity (created)`);
    await q.query(`CREATE INDEX ix_activity_parent ON activity (parent_activity_id)`);
    await q.query(`CREATE INDEX ix_activity_status ON activity (status)`);

    await q.query(`
      CREATE TABLE activity_execution_item (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        activity_id uuid NOT NULL REFERENCES activity (id) ON DELETE CASCADE,
        seq bigserial NOT NULL,
        external_id_value text,
        display_name text,
        connected_system_object_type varchar(200),
        object_change_type varchar(40) NOT NULL,
        error_type varchar(60),
        error_message text,
        outcome_summary text,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ix_activity_item_activity ON activity_execution_item (activity_id, seq)`);

    await q.query(`
      CREATE TABLE metaverse_object_type (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL,
        description text,
        is_built_in boolean NOT NULL DEFAULT false,
        deletion_rule varchar(60) NOT NULL DEFAULT 'WhenLastConnectorDisconnected',
        deletion_grace_period_seconds int,
        deletion_trigger_connected_system_ids int[] NOT NULL DEFAULT '{}',
        deletion_trigger_mode varchar(10) NOT NULL DEFAULT 'Any',
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_metaverse_object_type_name ON metaverse_object_type (lower(name))`);

    await q.query(`
      CREATE TABLE metaverse_attribute (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL,
        description text,
        type varchar(20) NOT NULL,
        plurality varchar(10) NOT NULL,
        is_built_in boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_metaverse_attribute_name ON metaverse_attribute (lower(name))`);

    await q.query(`
      CREATE TABLE metaverse_object_type_attribute (
        object_type_id int NOT NULL REFERENCES metaverse_object_type (id) ON DELETE CASCADE,
        attribute_id int NOT NULL REFERENCES metaverse_attribute (id) ON DELETE CASCADE,
        PRIMARY KEY (object_type_id, attribute_id)
      )`);
    await q.query(`CREATE INDEX ix_mv_type_attribute_attribute ON metaverse_object_type_attribute (attribute_id)`);

    await q.query(`
      CREATE TABLE metaverse_object (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type_id int NOT NULL REFERENCES metaverse_object_type (id),
        origin varchar(20) NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'Normal',
        display_name text,
        attributes jsonb NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz,
        last_connector_disconnected_date timestamptz,
        deletion_eligible_date timestamptz
      )`);
    await q.query(`CREATE INDEX ix_metaverse_object_type ON metaverse_object (type_id, id)`);
    await q.query(`CREATE INDEX ix_metaverse_object_display_name ON metaverse_object (lower(display_name) text_pattern_ops)`);

    await q.query(`
      CREATE TABLE metaverse_object_lookup (
        attribute_id int NOT NULL REFERENCES metaverse_attribute (id) ON DELETE CASCADE,
        value_normalised text NOT NULL,
        object_id uuid NOT NULL REFERENCES metaverse_object (id) ON DELETE CASCADE,
        PRIMARY KEY (attribute_id, value_normalised, object_id)
      )`);
    await q.query(`CREATE INDEX ix_metaverse_object_lookup_object ON metaverse_object_lookup (object_id)`);

    await q.query(`
      CREATE TABLE role_member (
        role_id int NOT NULL REFERENCES role (id) ON DELETE CASCADE,
        metaverse_object_id uuid NOT NULL REFERENCES metaverse_object (id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (role_id, metaverse_object_id)
      )`);
    await q.query(`CREATE INDEX ix_role_member_object ON role_member (metaverse_object_id)`);

    await q.query(`
      CREATE TABLE queue_probe (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        requested_at timestamptz NOT NULL DEFAULT now(),
        requested_by varchar(300),
        processed_at timestamptz,
        processed_by varchar(200)
      )`);

    // Built-in metaverse schema (DOMAIN.md §3) and the Administrator role.
    await q.query(`INSERT INTO role (name, description, is_built_in) VALUES ($1, $2, true)`, [
      ADMINISTRATOR_ROLE,
      'Full access to every administrative endpoint.',
    ]);
    for (const [typeName, attributes] of [
      [BuiltInObjectTypes.User, BUILT_IN_USER_ATTRIBUTES],
      [BuiltInObjectTypes.Group, BUILT_IN_GROUP_ATTRIBUTES],
    ] as const) {
      const [{ id: typeId }] = await q.query(`INSERT INTO metaverse_object_type (name, is_built_in) VALUES ($1, true) RETURNING id`, [
        typeName,
      ]);
      for (const a of attributes) {
        const [{ id: attributeId }] = await q.query(
          `INSERT INTO metaverse_attribute (name, type, plurality, is_built_in) VALUES ($1, $2, $3, true)
           ON CONFLICT (lower(name)) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
          [a.name, a.type, a.plurality],
        );
        await q.query(`INSERT INTO metaverse_object_type_attribute (object_type_id, attribute_id) VALUES ($1, $2)`, [typeId, attributeId]);
      }
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'queue_probe',
      'role_member',
      'metaverse_object_lookup',
      'metaverse_object',
      'metaverse_object_type_attribute',
      'metaverse_attribute',
      'metaverse_object_type',
      'activity_execution_item',
      'activity',
      'service_setting',
      'role',
      'api_key',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
