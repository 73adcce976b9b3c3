import { MigrationInterface, QueryRunner } from 'typeorm';

/** Attributes that are looked up by value from the start (sign-in, matching, search). */
const INDEXED_BUILT_INS = [
  'Account Name',
  'Common Name',
  'Display Name',
  'Distinguished Name',
  'Email',
  'Employee ID',
  'Object Identifier',
  'objectGUID',
  'Subject Identifier',
  'User Principal Name',
];

/** Connected systems, schema selection, connector space, run profiles, sync rules and certificates. */
export class ConfigurationModel1763900000000 implements MigrationInterface {
  name = 'ConfigurationModel1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE metaverse_attribute ADD COLUMN is_indexed boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE metaverse_attribute SET is_indexed = true WHERE is_built_in AND name = ANY($1)`, [INDEXED_BUILT_INS]);
    // The metaverse object list (docs/metaverse.md) searches display names partially and case-insensitively:
    // a trigram index serves that (and prefixes), so it replaces the prefix-only btree. The list is in id
    // order: (type_id, id) carries the display name so walking it to match a search reads no table rows.
    // pg_trgm is a trusted extension (PostgreSQL >= 13): the database owner may create it.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`DROP INDEX IF EXISTS ix_metaverse_object_display_name`);
    await q.query(`CREATE INDEX ix_metaverse_object_display_name_trgm ON metaverse_object USING gin (lower(display_name) gin_trgm_ops)`);
    await q.query(`DROP INDEX IF EXISTS ix_metaverse_object_type`);
    await q.query(`CREATE INDEX ix_metaverse_object_type ON metaverse_object (type_id, id) INCLUDE (display_name)`);

    await q.query(`
      CREATE TABLE connected_system (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL,
        description text,
        connector_type varchar(50) NOT NULL,
        settings jsonb NOT NULL DEFAULT '{}',
        secret_settings text,
        unresolved_reference_handling varchar(10) NOT NULL DEFAULT 'Warn',
        delta_watermark text,
        full_sync_required boolean NOT NULL DEFAULT false,
        last_schema_import timestamptz,
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_connected_system_name ON connected_system (lower(name))`);

    await q.query(`
      CREATE TABLE connected_system_object_type (
        id serial PRIMARY KEY,
        connected_system_id int NOT NULL,
        name varchar(200) NOT NULL,
        selected boolean NOT NULL DEFAULT false,
        remove_contributed_attributes_on_obsoletion boolean NOT NULL DEFAULT false,
        present_in_schema boolean NOT NULL DEFAULT true,
        created timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT cs_object_type_connected_system_fkey FOREIGN KEY (connected_system_id) REFERENCES connected_system (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_cs_object_type_name ON connected_system_object_type (connected_system_id, lower(name))`);
    await q.query(`CREATE UNIQUE INDEX uq_cs_object_type_system_id ON connected_system_object_type (connected_system_id, id)`);

    await q.query(`
      CREATE TABLE connected_system_attribute (
        id serial PRIMARY KEY,
        object_type_id int NOT NULL,
        name varchar(200) NOT NULL,
        description text,
        class_name varchar(200),
        type varchar(20) NOT NULL,
        plurality varchar(10) NOT NULL,
        writability varchar(10) NOT NULL DEFAULT 'ReadWrite',
        selected boolean NOT NULL DEFAULT false,
        is_external_id boolean NOT NULL DEFAULT false,
        is_secondary_external_id boolean NOT NULL DEFAULT false,
        present_in_schema boolean NOT NULL DEFAULT true,
        created timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT cs_attribute_object_type_fkey FOREIGN KEY (object_type_id) REFERENCES connected_system_object_type (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_cs_attribute_name ON connected_system_attribute (object_type_id, lower(name))`);
    await q.query(`CREATE INDEX ix_cs_attribute_object_type ON connected_system_attribute (object_type_id)`);

    await q.query(`
      CREATE TABLE connected_system_run_profile (
        id serial PRIMARY KEY,
        connected_system_id int NOT NULL,
        name varchar(200) NOT NULL,
        run_type varchar(40) NOT NULL,
        page_size int NOT NULL DEFAULT 1000,
        file_path text,
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz,
        CONSTRAINT run_profile_connected_system_fkey FOREIGN KEY (connected_system_id) REFERENCES connected_system (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_run_profile_name ON connected_system_run_profile (connected_system_id, lower(name))`);

    await q.query(`
      CREATE TABLE connected_system_object (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        connected_system_id int NOT NULL,
        object_type_id int NOT NULL,
        external_id text,
        secondary_external_id text,
        display_name text,
        status varchar(30) NOT NULL DEFAULT 'Normal',
        attributes jsonb NOT NULL DEFAULT '{}',
        content_hash bytea,
        metaverse_object_id uuid,
        join_type varchar(20),
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz,
        -- One key for both columns (ADR 0003): the type belongs to the system, one check per imported row.
        CONSTRAINT cso_object_type_fkey FOREIGN KEY (connected_system_id, object_type_id)
          REFERENCES connected_system_object_type (connected_system_id, id) ON DELETE CASCADE,
        CONSTRAINT cso_metaverse_object_fkey FOREIGN KEY (metaverse_object_id) REFERENCES metaverse_object (id) ON DELETE SET NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_cso_external_id ON connected_system_object (connected_system_id, object_type_id, external_id) WHERE external_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX ix_cso_secondary_external_id ON connected_system_object (connected_system_id, lower(secondary_external_id)) WHERE secondary_external_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX ix_cso_system_keyset ON connected_system_object (connected_system_id, id)`);
    await q.query(
      `CREATE INDEX ix_cso_metaverse_object ON connected_system_object (metaverse_object_id) WHERE metaverse_object_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE sync_rule (
        id serial PRIMARY KEY,
        name varchar(200) NOT NULL,
        description text,
        connected_system_id int NOT NULL,
        direction varchar(10) NOT NULL,
        connected_system_object_type_id int NOT NULL,
        metaverse_object_type_id int NOT NULL,
        project_to_metaverse boolean NOT NULL DEFAULT false,
        provision_to_connected_system boolean NOT NULL DEFAULT false,
        enabled boolean NOT NULL DEFAULT true,
        inbound_out_of_scope_action varchar(20) NOT NULL DEFAULT 'Disconnect',
        outbound_deprovision_action varchar(20) NOT NULL DEFAULT 'Disconnect',
        scoping_criteria jsonb NOT NULL DEFAULT '[]',
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz,
        CONSTRAINT sync_rule_connected_system_fkey FOREIGN KEY (connected_system_id) REFERENCES connected_system (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_cs_object_type_fkey FOREIGN KEY (connected_system_object_type_id) REFERENCES connected_system_object_type (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_mv_object_type_fkey FOREIGN KEY (metaverse_object_type_id) REFERENCES metaverse_object_type (id) ON DELETE RESTRICT
      )`);
    await q.query(`CREATE INDEX ix_sync_rule_connected_system ON sync_rule (connected_system_id)`);

    await q.query(`
      CREATE TABLE sync_rule_mapping (
        id serial PRIMARY KEY,
        sync_rule_id int NOT NULL,
        target_metaverse_attribute_id int,
        target_connected_system_attribute_id int,
        priority int,
        null_is_value boolean NOT NULL DEFAULT false,
        initial_export_only boolean NOT NULL DEFAULT false,
        enabled boolean NOT NULL DEFAULT true,
        created timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sync_rule_mapping_rule_fkey FOREIGN KEY (sync_rule_id) REFERENCES sync_rule (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_mapping_mv_attribute_fkey FOREIGN KEY (target_metaverse_attribute_id) REFERENCES metaverse_attribute (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_mapping_cs_attribute_fkey FOREIGN KEY (target_connected_system_attribute_id) REFERENCES connected_system_attribute (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_sync_rule_mapping_rule ON sync_rule_mapping (sync_rule_id)`);

    await q.query(`
      CREATE TABLE sync_rule_mapping_source (
        id serial PRIMARY KEY,
        mapping_id int NOT NULL,
        "order" int NOT NULL DEFAULT 0,
        connected_system_attribute_id int,
        metaverse_attribute_id int,
        expression text,
        CONSTRAINT sync_rule_mapping_source_mapping_fkey FOREIGN KEY (mapping_id) REFERENCES sync_rule_mapping (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_mapping_source_cs_attribute_fkey FOREIGN KEY (connected_system_attribute_id) REFERENCES connected_system_attribute (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_mapping_source_mv_attribute_fkey FOREIGN KEY (metaverse_attribute_id) REFERENCES metaverse_attribute (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_sync_rule_mapping_source_mapping ON sync_rule_mapping_source (mapping_id)`);

    await q.query(`
      CREATE TABLE sync_rule_matching_rule (
        id serial PRIMARY KEY,
        sync_rule_id int NOT NULL,
        "order" int NOT NULL DEFAULT 0,
        connected_system_attribute_ids int[] NOT NULL,
        metaverse_attribute_id int NOT NULL,
        case_sensitive boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sync_rule_matching_rule_rule_fkey FOREIGN KEY (sync_rule_id) REFERENCES sync_rule (id) ON DELETE CASCADE,
        CONSTRAINT sync_rule_matching_rule_mv_attribute_fkey FOREIGN KEY (metaverse_attribute_id) REFERENCES metaverse_attribute (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX ix_sync_rule_matching_rule_rule ON sync_rule_matching_rule (sync_rule_id)`);

    await q.query(`
      CREATE TABLE trusted_certificate (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(255) NOT NULL,
        notes varchar(2000),
        is_enabled boolean NOT NULL DEFAULT true,
        thumbprint varchar(64) NOT NULL,
        subject text NOT NULL,
        issuer text NOT NULL,
        serial_number varchar(200) NOT NULL,
        not_before timestamptz NOT NULL,
        not_after timestamptz NOT NULL,
        is_certificate_authority boolean NOT NULL DEFAULT false,
        pem text NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        last_updated timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_trusted_certificate_thumbprint ON trusted_certificate (thumbprint)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'trusted_certificate',
      'sync_rule_matching_rule',
      'sync_rule_mapping_source',
      'sync_rule_mapping',
      'sync_rule',
      'connected_system_object',
      'connected_system_run_profile',
      'connected_system_attribute',
      'connected_system_object_type',
      'connected_system',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
    await q.query(`DROP INDEX IF EXISTS ix_metaverse_object_display_name_trgm`);
    await q.query(`DROP INDEX IF EXISTS ix_metaverse_object_type`);
    await q.query(`CREATE INDEX ix_metaverse_object_type ON metaverse_object (type_id, id)`);
    await q.query(`CREATE INDEX IF NOT EXISTS ix_metaverse_object_display_name ON metaverse_object (lower(display_name) text_pattern_ops)`);
    // pg_trgm stays installed: other objects may use it, and dropping an extension needs more rights than creating a trusted one.
    await q.query(`ALTER TABLE metaverse_attribute DROP COLUMN is_indexed`);
  }
}
