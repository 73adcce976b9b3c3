import {
  compileExpression,
  DeletionRule,
  DeletionTriggerMode,
  EngineAttribute,
  ExportRuleDef,
  ImportRuleDef,
  MappingSource,
  MetaverseTypeDef,
  ScopingGroup,
  SyncRuleDirection,
} from '@meridian/domain';
import {
  ConnectedSystemEntity,
  MetaverseAttributeEntity,
  MetaverseObjectTypeEntity,
  SyncRuleEntity,
  SyncRuleMappingEntity,
  SyncRuleMappingSourceEntity,
  SyncRuleMatchingRuleEntity,
} from '@meridian/persistence';
import { EntityManager, In } from 'typeorm';
import { SystemSchema } from './system-schema';

/**
 * Everything a synchronisation run decides with, loaded once per run: every enabled sync rule of every
 * system (a metaverse object's values come from all the systems joined to it), their mappings with
 * compiled expressions, matching rules, metaverse types and attributes, and the selected schemas.
 */
export class SyncConfiguration {
  readonly importRulesByType = new Map<string, ImportRuleDef[]>();
  readonly exportRulesByMvType = new Map<number, ExportRuleDef[]>();
  readonly schemas = new Map<number, SystemSchema>();
  readonly schemaAttributes = new Map<number, Map<number, EngineAttribute>>();
  readonly schemaAttributesByName = new Map<number, Map<string, EngineAttribute>>();
  mvAttributesByName = new Map<string, EngineAttribute>();

  private constructor(
    readonly importRules: ImportRuleDef[],
    readonly exportRules: ExportRuleDef[],
    readonly mvTypes: Map<number, MetaverseTypeDef>,
    readonly mvAttributes: Map<number, EngineAttribute>,
    readonly displayNameAttributeId: number | null,
    readonly accountNameAttributeId: number | null,
  ) {
    for (const r of importRules) {
      const key = `${r.systemId}:${r.csObjectTypeId}:${r.mvObjectTypeId}`;
      this.importRulesByType.set(key, [...(this.importRulesByType.get(key) ?? []), r]);
    }
    for (const r of exportRules)
      this.exportRulesByMvType.set(r.mvObjectTypeId, [...(this.exportRulesByMvType.get(r.mvObjectTypeId) ?? []), r]);
    this.mvAttributesByName = new Map([...mvAttributes.values()].map((a) => [a.name.toLowerCase(), a]));
    this.mvAttributeTypes = new Map([...mvAttributes.values()].map((a) => [a.id, a.type]));
  }

  /** Metaverse attribute id → data type (export scoping compares dates as dates). */
  readonly mvAttributeTypes: Map<number, string>;

  static async load(m: EntityManager): Promise<SyncConfiguration> {
    const rules = await m.getRepository(SyncRuleEntity).find({ where: { enabled: true }, order: { id: 'ASC' } });
    const ruleIds = rules.map((r) => r.id);
    const mappings = ruleIds.length
      ? await m.getRepository(SyncRuleMappingEntity).find({ where: { syncRuleId: In(ruleIds), enabled: true }, order: { id: 'ASC' } })
      : [];
    const sources = mappings.length
      ? await m
          .getRepository(SyncRuleMappingSourceEntity)
          .find({ where: { mappingId: In(mappings.map((x) => x.id)) }, order: { order: 'ASC', id: 'ASC' } })
      : [];
    const matching = ruleIds.length
      ? await m.getRepository(SyncRuleMatchingRuleEntity).find({ where: { syncRuleId: In(ruleIds) }, order: { order: 'ASC', id: 'ASC' } })
      : [];
    const types = await m.getRepository(MetaverseObjectTypeEntity).find();
    const attributes = await m.getRepository(MetaverseAttributeEntity).find();

    const compiled = new Map<string, ReturnType<typeof compileExpression>>();
    const toSources = (mappingId: number): MappingSource[] =>
      sources
        .filter((s) => s.mappingId === mappingId)
        .map((s) => {
          let expression = null;
          if (s.expression) {
            let result = compiled.get(s.expression);
            if (!result) compiled.set(s.expression, (result = compileExpression(s.expression)));
            // Expressions are validated when saved; one that no longer compiles (e.g. after an upgrade) flows nothing.
            expression = result.ok ? result.expression : null;
          }
          return { attributeId: s.connectedSystemAttributeId ?? s.metaverseAttributeId ?? null, expression };
        });

    const importRules: ImportRuleDef[] = [];
    const exportRules: ExportRuleDef[] = [];
    for (const r of rules) {
      const own = mappings.filter((x) => x.syncRuleId === r.id);
      if (r.direction === SyncRuleDirection.Import) {
        importRules.push({
          id: r.id,
          name: r.name,
          systemId: r.connectedSystemId,
          csObjectTypeId: r.connectedSystemObjectTypeId,
          mvObjectTypeId: r.metaverseObjectTypeId,
          project: r.projectToMetaverse,
          scoping: r.scopingCriteria as ScopingGroup[],
          outOfScopeAction: r.inboundOutOfScopeAction,
          mappings: own
            .filter((x) => x.targetMetaverseAttributeId !== null)
            .map((x) => ({
              id: x.id,
              ruleId: r.id,
              systemId: r.connectedSystemId,
              targetAttributeId: x.targetMetaverseAttributeId!,
              priority: x.priority,
              nullIsValue: x.nullIsValue,
              sources: toSources(x.id),
            })),
          matchingRules: matching
            .filter((x) => x.syncRuleId === r.id)
            .map((x) => ({
              id: x.id,
              order: x.order,
              csAttributeIds: x.connectedSystemAttributeIds,
              mvAttributeId: x.metaverseAttributeId,
              caseSensitive: x.caseSensitive,
            })),
        });
      } else {
        exportRules.push({
          id: r.id,
          name: r.name,
          systemId: r.connectedSystemId,
          csObjectTypeId: r.connectedSystemObjectTypeId,
          mvObjectTypeId: r.metaverseObjectTypeId,
          provision: r.provisionToConnectedSystem,
          scoping: r.scopingCriteria as ScopingGroup[],
          deprovisionAction: r.outboundDeprovisionAction,
          mappings: own
            .filter((x) => x.targetConnectedSystemAttributeId !== null)
            .map((x) => ({
              id: x.id,
              targetAttributeId: x.targetConnectedSystemAttributeId!,
              initialExportOnly: x.initialExportOnly,
              sources: toSources(x.id),
            })),
        });
      }
    }
    const mvTypes = new Map<number, MetaverseTypeDef>(
      types.map((t) => [
        t.id,
        {
          id: t.id,
          name: t.name,
          deletionRule: t.deletionRule as DeletionRule,
          deletionGracePeriodSeconds: t.deletionGracePeriodSeconds,
          deletionTriggerConnectedSystemIds: t.deletionTriggerConnectedSystemIds ?? [],
          deletionTriggerMode: t.deletionTriggerMode as DeletionTriggerMode,
        },
      ]),
    );
    const mvAttributes = new Map<number, EngineAttribute>(
      attributes.map((a) => [a.id, { id: a.id, name: a.name, type: a.type, plurality: a.plurality as 'Single' | 'Multi' }]),
    );
    const byName = (name: string) => attributes.find((a) => a.name === name)?.id ?? null;
    const config = new SyncConfiguration(importRules, exportRules, mvTypes, mvAttributes, byName('Display Name'), byName('Account Name'));

    const systemIds = [...new Set(rules.map((r) => r.connectedSystemId))];
    const systems = systemIds.length ? await m.getRepository(ConnectedSystemEntity).findBy({ id: In(systemIds) }) : [];
    for (const system of systems) await config.addSchema(m, system);
    return config;
  }

  /** Loads a system's selected schema (once). */
  async addSchema(m: EntityManager, system: ConnectedSystemEntity): Promise<SystemSchema> {
    const existing = this.schemas.get(system.id);
    if (existing) return existing;
    const schema = await SystemSchema.load(m, system);
    this.schemas.set(system.id, schema);
    const attrs = new Map<number, EngineAttribute>();
    for (const t of schema.objectTypes)
      for (const a of t.attributes) attrs.set(a.id, { id: a.id, name: a.name, type: a.type, plurality: a.plurality });
    this.schemaAttributes.set(system.id, attrs);
    this.schemaAttributesByName.set(system.id, new Map([...attrs.values()].map((a) => [a.name.toLowerCase(), a])));
    return schema;
  }

  /** Import rules of a connected-system object type (any metaverse type). */
  importRulesOf(systemId: number, csObjectTypeId: number): ImportRuleDef[] {
    const key = `${systemId}:${csObjectTypeId}`;
    let rules = this.rulesByCsType.get(key);
    if (!rules)
      this.rulesByCsType.set(key, (rules = this.importRules.filter((r) => r.systemId === systemId && r.csObjectTypeId === csObjectTypeId)));
    return rules;
  }

  private readonly rulesByCsType = new Map<string, ImportRuleDef[]>();

  importRulesFor(systemId: number, csObjectTypeId: number, mvObjectTypeId: number): ImportRuleDef[] {
    return this.importRulesByType.get(`${systemId}:${csObjectTypeId}:${mvObjectTypeId}`) ?? [];
  }

  /** Whether any export rule writes objects of this system and type (only those can have pending exports from synchronisation). */
  isExportTarget(systemId: number, csObjectTypeId: number): boolean {
    return this.exportRules.some((r) => r.systemId === systemId && r.csObjectTypeId === csObjectTypeId);
  }

  exportRulesFor(mvObjectTypeId: number): ExportRuleDef[] {
    return this.exportRulesByMvType.get(mvObjectTypeId) ?? [];
  }
}
