import { Client } from 'pg';

/** Configuration rows for synchronisation tests, written with SQL (the configuration API has its own tests). */
export class SyncSeed {
  constructor(private readonly pg: Client) {}

  private async one<T = any>(sql: string, params: unknown[] = []): Promise<T> {
    return (await this.pg.query(sql, params)).rows[0];
  }

  async mvAttribute(name: string): Promise<number> {
    return (await this.one<{ id: number }>(`SELECT id FROM metaverse_attribute WHERE name = $1`, [name])).id;
  }

  async mvType(name: string): Promise<number> {
    return (await this.one<{ id: number }>(`SELECT id FROM metaverse_object_type WHERE name = $1`, [name])).id;
  }

  /** A File system with one selected object type and attributes (first is the external ID); returns ids by name. */
  async system(
    name: string,
    typeName: string,
    attributes: Array<string | { name: string; type?: string; plurality?: string }>,
    mode = 'Import',
  ) {
    const system = await this.one<{ id: number }>(
      `INSERT INTO connected_system (name, connector_type, settings) VALUES ($1, 'File', $2) RETURNING id`,
      [name, JSON.stringify({ filePath: `${name.toLowerCase()}.csv`, mode, objectType: typeName })],
    );
    const type = await this.one<{ id: number }>(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, $2, true) RETURNING id`,
      [system.id, typeName],
    );
    const ids: Record<string, number> = {};
    let first = true;
    for (const raw of attributes) {
      const a = typeof raw === 'string' ? { name: raw } : raw;
      const row = await this.one<{ id: number }>(
        `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id) VALUES ($1, $2, $3, $4, true, $5) RETURNING id`,
        [type.id, a.name, a.type ?? 'String', a.plurality ?? 'Single', first],
      );
      ids[a.name] = row.id;
      first = false;
    }
    const profiles: Record<string, number> = {};
    for (const runType of ['FullImport', 'FullSynchronisation', 'DeltaSynchronisation', 'Export']) {
      profiles[runType] = (
        await this.one<{ id: number }>(
          `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type, page_size) VALUES ($1, $2, $2, 50) RETURNING id`,
          [system.id, runType],
        )
      ).id;
    }
    return { id: system.id, typeId: type.id, attributes: ids, profiles };
  }

  async rule(r: {
    name: string;
    systemId: number;
    typeId: number;
    direction: 'Import' | 'Export';
    mvTypeId: number;
    project?: boolean;
    provision?: boolean;
    outOfScope?: string;
    deprovision?: string;
    scoping?: unknown[];
  }): Promise<number> {
    return (
      await this.one<{ id: number }>(
        `INSERT INTO sync_rule (name, connected_system_id, direction, connected_system_object_type_id, metaverse_object_type_id, project_to_metaverse,
                              provision_to_connected_system, inbound_out_of_scope_action, outbound_deprovision_action, scoping_criteria)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
        [
          r.name,
          r.systemId,
          r.direction,
          r.typeId,
          r.mvTypeId,
          !!r.project,
          !!r.provision,
          r.outOfScope ?? 'Disconnect',
          r.deprovision ?? 'Disconnect',
          JSON.stringify(r.scoping ?? []),
        ],
      )
    ).id;
  }

  /** Import mapping: CS attribute (or expression) → MV attribute. */
  async inbound(
    ruleId: number,
    target: number,
    source: { cs?: number; expression?: string },
    options: { priority?: number; nullIsValue?: boolean } = {},
  ) {
    const m = await this.one<{ id: number }>(
      `INSERT INTO sync_rule_mapping (sync_rule_id, target_metaverse_attribute_id, priority, null_is_value) VALUES ($1, $2, $3, $4) RETURNING id`,
      [ruleId, target, options.priority ?? null, !!options.nullIsValue],
    );
    await this.pg.query(
      `INSERT INTO sync_rule_mapping_source (mapping_id, connected_system_attribute_id, expression) VALUES ($1, $2, $3)`,
      [m.id, source.cs ?? null, source.expression ?? null],
    );
    return m.id;
  }

  /** Export mapping: MV attribute (or expression) → CS attribute. */
  async outbound(ruleId: number, target: number, source: { mv?: number; expression?: string }, initialExportOnly = false) {
    const m = await this.one<{ id: number }>(
      `INSERT INTO sync_rule_mapping (sync_rule_id, target_connected_system_attribute_id, initial_export_only) VALUES ($1, $2, $3) RETURNING id`,
      [ruleId, target, initialExportOnly],
    );
    await this.pg.query(`INSERT INTO sync_rule_mapping_source (mapping_id, metaverse_attribute_id, expression) VALUES ($1, $2, $3)`, [
      m.id,
      source.mv ?? null,
      source.expression ?? null,
    ]);
    return m.id;
  }

  async matching(ruleId: number, csAttributeIds: number[], mvAttributeId: number, order = 1) {
    await this.pg.query(`UPDATE metaverse_attribute SET is_indexed = true WHERE id = $1`, [mvAttributeId]);
    await this.pg.query(
      `INSERT INTO sync_rule_matching_rule (sync_rule_id, "order", connected_system_attribute_ids, metaverse_attribute_id) VALUES ($1, $2, $3, $4)`,
      [ruleId, order, csAttributeIds, mvAttributeId],
    );
  }

  /** Connector space objects as an import leaves them (values by attribute id). */
  async objects(
    systemId: number,
    typeId: number,
    rows: Array<{
      externalId: string;
      values: Record<number, unknown[]>;
      status?: string;
      refs?: Record<number, Array<string | null>>;
      /** The object's id (keyset order, so pages hold the objects a test wants); random when not given. */
      id?: string;
    }>,
  ) {
    for (const r of rows) {
      await this.pg.query(
        `INSERT INTO connected_system_object (connected_system_id, object_type_id, external_id, display_name, attributes, status, resolved_references, id)
         VALUES ($1, $2, $3, $3, $4, $5, $6, coalesce($7::uuid, gen_random_uuid()))
         ON CONFLICT (connected_system_id, object_type_id, external_id) WHERE external_id IS NOT NULL
         DO UPDATE SET attributes = EXCLUDED.attributes, status = EXCLUDED.status, resolved_references = EXCLUDED.resolved_references, sync_pending = true`,
        [
          systemId,
          typeId,
          r.externalId,
          JSON.stringify(Object.fromEntries(Object.entries(r.values))),
          r.status ?? 'Normal',
          r.refs ? JSON.stringify(r.refs) : null,
          r.id ?? null,
        ],
      );
    }
  }

  async activity(systemId: number, profileId: number, runType: string): Promise<string> {
    return (
      await this.one<{ id: string }>(
        `INSERT INTO activity (status, target_type, target_operation_type, target_name, connected_system_id, connected_system_run_profile_id, connected_system_run_type, initiated_by_type)
       VALUES ('InProgress', 'ConnectedSystemRunProfile', 'Execute', $3, $1, $2, $3, 'System') RETURNING id`,
        [systemId, profileId, runType],
      )
    ).id;
  }
}
