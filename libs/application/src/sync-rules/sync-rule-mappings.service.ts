import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  AttributeDataType,
  AttributeWritability,
  deriveMappingSourceType,
  MappingSourceType,
  placeAt,
  SyncRuleDirection,
  ValidationErrorCollector,
} from '@meridian/domain';
import {
  AttributePriorityStore,
  PriorityGroup,
  SyncRuleMappingEntity,
  SyncRuleMappingSourceEntity,
  SyncRuleMappingStore,
} from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { ExpressionSchema, FieldExpressionError, MappingExpressions, mappingValidationError } from './mapping-expressions';
import {
  childNotFound,
  isImport,
  loadRuleContext,
  markFullSyncRequired,
  recordRuleActivity,
  requireRule,
  RuleContext,
  sameJson,
} from './sync-rule.support';
import { loadMappingViews, MappingView } from './sync-rule.views';

/** A source as the request gives it; which attribute it may read depends on the rule's direction. */
export interface MappingSourceInput {
  order?: number | null;
  connectedSystemAttributeId?: number | null;
  metaverseAttributeId?: number | null;
  expression?: string | null;
}

/**
 * A mapping as the request gives it (spec 4.8 create body plus Meridian's extensions); an update sends
 * only what changes. Which target, and which of the flags, apply depends on the rule's direction.
 */
export interface MappingInput {
  targetMetaverseAttributeId?: number | null;
  targetConnectedSystemAttributeId?: number | null;
  /** 1 to MAX_MAPPING_SOURCES sources; when given on an update, they replace every source. */
  sources?: MappingSourceInput[];
  priority?: number | null;
  nullIsValue?: boolean;
  initialExportOnly?: boolean;
  enabled?: boolean;
}

/** A new mapping: its sources are required. */
export interface NewMappingInput extends MappingInput {
  sources: MappingSourceInput[];
}

interface SourceFields {
  order: number;
  connectedSystemAttributeId: number | null;
  metaverseAttributeId: number | null;
  expression: string | null;
}

/** Sources per mapping; an AdvancedMapping rarely needs more than a handful. */
export const MAX_MAPPING_SOURCES = 20;

/** Attribute mappings of a sync rule (spec 4.8, 2.12) and their attribute priority (DOMAIN.md §2.2.6). */
@Injectable()
export class SyncRuleMappingsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
    private readonly expressions: MappingExpressions,
  ) {}

  async list(syncRuleId: number): Promise<MappingView[]> {
    await requireRule(this.ds.manager, syncRuleId);
    return loadMappingViews(this.ds.manager, syncRuleId);
  }

  async get(syncRuleId: number, mappingId: number, m: EntityManager = this.ds.manager): Promise<MappingView> {
    await requireRule(m, syncRuleId);
    const [view] = await loadMappingViews(m, syncRuleId, [mappingId]);
    if (!view) throw childNotFound('Mapping', mappingId, syncRuleId);
    return view;
  }

  async create(syncRuleId: number, input: NewMappingInput, initiator: Initiator): Promise<MappingView> {
    return this.ds.transaction(async (m) => {
      const ctx = await loadRuleContext(m, syncRuleId, true);
      const imports = isImport(ctx.rule);
      const errors = new ValidationErrorCollector();
      const expressionErrors: FieldExpressionError[] = [];
      const target = await this.checkTarget(m, ctx, input, true, null, errors);
      const sources = this.checkSources(ctx, input.sources, errors, expressionErrors);
      const extras = this.checkExtras(ctx, input, errors);
      if (target !== undefined && sources) this.checkReferenceTypes(ctx, target, sources, errors);
      const invalid = mappingValidationError(errors.byField, expressionErrors);
      if (invalid) throw invalid;

      const group = imports ? { metaverseObjectTypeId: ctx.rule.metaverseObjectTypeId, metaverseAttributeId: target! } : null;
      const priorities = new AttributePriorityStore(m);
      if (group) await priorities.lockGroups([group]);
      const saved = await m.getRepository(SyncRuleMappingEntity).save({
        syncRuleId,
        targetMetaverseAttributeId: imports ? target! : null,
        targetConnectedSystemAttributeId: imports ? null : target!,
        nullIsValue: imports && extras.nullIsValue === true,
        initialExportOnly: !imports && extras.initialExportOnly === true,
        enabled: extras.enabled ?? true,
        priority: null,
      });
      await this.writeSources(m, saved.id, sources!);
      if (group) await priorities.writeOrder(placeAt(await priorities.groupMappingIds(group, saved.id), saved.id, extras.priority));
      await markFullSyncRequired(m, ctx.rule.connectedSystemId);
      const view = await this.get(syncRuleId, saved.id, m);
      await this.record(m, ctx, initiator, 'Create', view, {
        sourceType: view.sourceType,
        sources: view.sources.length,
        priority: view.priority,
      });
      return view;
    });
  }

  async update(syncRuleId: number, mappingId: number, input: MappingInput, initiator: Initiator): Promise<MappingView> {
    return this.ds.transaction(async (m) => {
      const ctx = await loadRuleContext(m, syncRuleId, true);
      const imports = isImport(ctx.rule);
      const mapping = await this.requireMapping(m, syncRuleId, mappingId);
      const before = await this.get(syncRuleId, mappingId, m);
      const errors = new ValidationErrorCollector();
      const expressionErrors: FieldExpressionError[] = [];
      const targetGiven = input.targetMetaverseAttributeId !== undefined || input.targetConnectedSystemAttributeId !== undefined;
      const target = targetGiven ? await this.checkTarget(m, ctx, input, false, mappingId, errors) : undefined;
      const sources = input.sources === undefined ? undefined : this.checkSources(ctx, input.sources, errors, expressionErrors);
      const extras = this.checkExtras(ctx, input, errors);
      const currentTarget = imports ? mapping.targetMetaverseAttributeId! : mapping.targetConnectedSystemAttributeId!;
      const targetValid = !targetGiven || target !== undefined;
      if (targetValid && sources !== null && (targetGiven || sources !== undefined)) {
        this.checkReferenceTypes(ctx, target ?? currentTarget, sources ?? before.sources, errors);
      }
      const invalid = mappingValidationError(errors.byField, expressionErrors);
      if (invalid) throw invalid;

      const changed: string[] = [];
      const newTarget = target ?? currentTarget;
      if (newTarget !== currentTarget) {
        changed.push(imports ? 'targetMetaverseAttributeId' : 'targetConnectedSystemAttributeId');
        if (imports) mapping.targetMetaverseAttributeId = newTarget;
        else mapping.targetConnectedSystemAttributeId = newTarget;
      }
      for (const key of ['nullIsValue', 'initialExportOnly', 'enabled'] as const) {
        if (extras[key] !== undefined && extras[key] !== mapping[key]) {
          mapping[key] = extras[key]!;
          changed.push(key);
        }
      }
      const sourceKey = (s: SourceFields) => ({
        order: s.order,
        connectedSystemAttributeId: s.connectedSystemAttributeId,
        metaverseAttributeId: s.metaverseAttributeId,
        expression: s.expression,
      });
      if (sources && !sameJson(sources.map(sourceKey), before.sources.map(sourceKey))) changed.push('sources');

      if (imports) {
        const oldGroup: PriorityGroup = { metaverseObjectTypeId: ctx.rule.metaverseObjectTypeId, metaverseAttributeId: currentTarget };
        const newGroup: PriorityGroup = { metaverseObjectTypeId: ctx.rule.metaverseObjectTypeId, metaverseAttributeId: newTarget };
        const priorities = new AttributePriorityStore(m);
        await priorities.lockGroups([oldGroup, newGroup]);
        if (newTarget !== currentTarget) {
          mapping.priority = null;
          await m.getRepository(SyncRuleMappingEntity).save(mapping);
          await priorities.compactGroup(oldGroup);
          await priorities.writeOrder(placeAt(await priorities.groupMappingIds(newGroup, mappingId), mappingId, extras.priority));
        } else {
          await m.getRepository(SyncRuleMappingEntity).save(mapping);
          if (extras.priority !== undefined) {
            const moved = await priorities.writeOrder(placeAt(await priorities.groupMappingIds(newGroup), mappingId, extras.priority));
            if (moved.length) changed.push('priority');
          }
        }
      } else if (changed.length) {
        await m.getRepository(SyncRuleMappingEntity).save(mapping);
      }
      if (changed.includes('sources')) {
        await m.getRepository(SyncRuleMappingSourceEntity).delete({ mappingId });
        await this.writeSources(m, mappingId, sources!);
      }
      const view = await this.get(syncRuleId, mappingId, m);
      if (changed.length) {
        await markFullSyncRequired(m, ctx.rule.connectedSystemId);
        await this.record(m, ctx, initiator, 'Update', view, { changed, sourceType: view.sourceType, priority: view.priority });
      }
      return view;
    });
  }

  async remove(syncRuleId: number, mappingId: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const ctx = await loadRuleContext(m, syncRuleId, true);
      const mapping = await this.requireMapping(m, syncRuleId, mappingId);
      const view = await this.get(syncRuleId, mappingId, m);
      const group =
        isImport(ctx.rule) && mapping.targetMetaverseAttributeId !== null
          ? { metaverseObjectTypeId: ctx.rule.metaverseObjectTypeId, metaverseAttributeId: mapping.targetMetaverseAttributeId }
          : null;
      const priorities = new AttributePriorityStore(m);
      if (group) await priorities.lockGroups([group]);
      await m.getRepository(SyncRuleMappingEntity).delete({ id: mappingId });
      if (group) await priorities.compactGroup(group);
      await markFullSyncRequired(m, ctx.rule.connectedSystemId);
      await this.record(m, ctx, initiator, 'Delete', view, { sourceType: view.sourceType });
    });
  }

  private async requireMapping(m: EntityManager, syncRuleId: number, mappingId: number): Promise<SyncRuleMappingEntity> {
    const mapping = await m.getRepository(SyncRuleMappingEntity).findOneBy({ id: mappingId, syncRuleId });
    if (!mapping) throw childNotFound('Mapping', mappingId, syncRuleId);
    return mapping;
  }

  private async writeSources(m: EntityManager, mappingId: number, sources: readonly SourceFields[]): Promise<void> {
    await m.getRepository(SyncRuleMappingSourceEntity).insert(sources.map((s) => ({ mappingId, ...s })));
  }

  /** The target attribute id (validated), or undefined when it is missing or invalid (an error is recorded). */
  private async checkTarget(
    m: EntityManager,
    ctx: RuleContext,
    input: MappingInput,
    creating: boolean,
    mappingId: number | null,
    errors: ValidationErrorCollector,
  ): Promise<number | undefined> {
    const imports = isImport(ctx.rule);
    const field = imports ? 'targetMetaverseAttributeId' : 'targetConnectedSystemAttributeId';
    const other = imports ? 'targetConnectedSystemAttributeId' : 'targetMetaverseAttributeId';
    if (input[other] !== undefined && input[other] !== null) {
      errors.add(
        other,
        `${other} applies to ${imports ? 'Export' : 'Import'} rules only; this rule is ${ctx.rule.direction}: use ${field}.`,
      );
    }
    const raw = input[field];
    if (raw === undefined || raw === null) {
      if (creating || raw === null) errors.add(field, `${field} is required for ${ctx.rule.direction} rules.`);
      return undefined;
    }
    if (imports) {
      if (!ctx.mvAttributes.has(raw)) {
        errors.add(field, `Metaverse attribute ${raw} is not an attribute of the metaverse object type "${ctx.mvTypeName}".`);
        return undefined;
      }
    } else {
      const attribute = ctx.csAttributes.get(raw);
      if (!attribute) {
        errors.add(field, `Connected system attribute ${raw} is not an attribute of the object type "${ctx.csTypeName}".`);
        return undefined;
      }
      if (!attribute.selected) {
        errors.add(field, `Connected system attribute "${attribute.name}" is not selected for synchronisation; select it first.`);
        return undefined;
      }
      if (attribute.writability === AttributeWritability.ReadOnly) {
        errors.add(field, `Connected system attribute "${attribute.name}" is read-only and cannot be exported to.`);
        return undefined;
      }
    }
    const clash = await new SyncRuleMappingStore(m).mappingToTarget(ctx.rule.id, ctx.rule.direction as SyncRuleDirection, raw, mappingId);
    if (clash !== null) {
      errors.add(field, `This rule already has a mapping (${clash}) to that attribute: change that mapping, or give it several sources.`);
      return undefined;
    }
    return raw;
  }

  /** Normalised sources, or null when they do not fit the rule's schema (errors recorded). */
  private checkSources(
    ctx: RuleContext,
    sources: readonly MappingSourceInput[],
    errors: ValidationErrorCollector,
    expressionErrors: FieldExpressionError[],
  ): SourceFields[] | null {
    const imports = isImport(ctx.rule);
    const schema: ExpressionSchema = {
      cs: new Map([...ctx.csAttributes.values()].map((a) => [a.name.toLowerCase(), a])),
      mv: [...ctx.mvAttributes.values()].map((a) => a.name),
    };
    const out: SourceFields[] = [];
    let ok = true;
    const fail = (field: string, message: string) => {
      errors.add(field, message);
      ok = false;
    };
    sources.forEach((source, i) => {
      const path = `sources[${i}]`;
      const order = source.order ?? 0;
      const cs = source.connectedSystemAttributeId ?? null;
      const mv = source.metaverseAttributeId ?? null;
      let expression: string | null = null;
      if (source.expression && source.expression.trim() !== '') {
        expression = source.expression;
        const found = this.expressions.check(expression, `${path}.expression`, schema);
        if (found.length) {
          expressionErrors.push(...found);
          ok = false;
        }
      }
      const attributeField = imports ? 'connectedSystemAttributeId' : 'metaverseAttributeId';
      const attributeId = imports ? cs : mv;
      const misplaced = imports ? mv : cs;
      if (misplaced !== null) {
        fail(
          `${path}.${imports ? 'metaverseAttributeId' : 'connectedSystemAttributeId'}`,
          imports
            ? 'Import rules read connected system attributes: use connectedSystemAttributeId (an expression can read mv["…"]).'
            : 'Export rules read metaverse attributes: use metaverseAttributeId (an expression can read cs["…"] of the target object).',
        );
      }
      if (attributeId !== null) {
        if (imports) {
          const attribute = ctx.csAttributes.get(attributeId);
          if (!attribute)
            fail(
              `${path}.${attributeField}`,
              `Connected system attribute ${attributeId} is not an attribute of the object type "${ctx.csTypeName}".`,
            );
          else if (!attribute.selected)
            fail(
              `${path}.${attributeField}`,
              `Connected system attribute "${attribute.name}" is not selected for synchronisation; select it first.`,
            );
        } else if (!ctx.mvAttributes.has(attributeId)) {
          fail(
            `${path}.${attributeField}`,
            `Metaverse attribute ${attributeId} is not an attribute of the metaverse object type "${ctx.mvTypeName}".`,
          );
        }
      } else if (expression === null && misplaced === null) {
        fail(path, `${path} needs ${attributeField} or an expression.`);
      }
      out.push({
        order,
        connectedSystemAttributeId: imports ? cs : null,
        metaverseAttributeId: imports ? null : mv,
        expression,
      });
    });
    return ok ? out : null;
  }

  private checkExtras(
    ctx: RuleContext,
    input: MappingInput,
    errors: ValidationErrorCollector,
  ): { priority?: number; nullIsValue?: boolean; initialExportOnly?: boolean; enabled?: boolean } {
    const imports = isImport(ctx.rule);
    const out: { priority?: number; nullIsValue?: boolean; initialExportOnly?: boolean; enabled?: boolean } = {
      nullIsValue: input.nullIsValue,
      initialExportOnly: input.initialExportOnly,
      enabled: input.enabled,
    };
    if (input.priority !== undefined && input.priority !== null) {
      if (!imports)
        errors.add(
          'priority',
          `priority applies to Import rules only (it orders the contributors of a metaverse attribute); this rule is Export.`,
        );
      else out.priority = input.priority;
    }
    if (!imports && out.nullIsValue) errors.add('nullIsValue', 'nullIsValue applies to Import rules only; this rule is Export.');
    if (imports && out.initialExportOnly)
      errors.add('initialExportOnly', 'initialExportOnly applies to Export rules only; this rule is Import.');
    return out;
  }

  /** A direct copy between a reference and a non-reference attribute can never flow: refuse it when saved. */
  private checkReferenceTypes(
    ctx: RuleContext,
    target: number,
    sources: ReadonlyArray<{ connectedSystemAttributeId: number | null; metaverseAttributeId: number | null; expression: string | null }>,
    errors: ValidationErrorCollector,
  ): void {
    if (deriveMappingSourceType(sources) !== MappingSourceType.AttributeMapping) return;
    const imports = isImport(ctx.rule);
    const source = sources[0];
    const sourceType = imports
      ? ctx.csAttributes.get(source.connectedSystemAttributeId ?? 0)?.type
      : ctx.mvAttributes.get(source.metaverseAttributeId ?? 0)?.type;
    const targetType = imports ? ctx.mvAttributes.get(target)?.type : ctx.csAttributes.get(target)?.type;
    if (!sourceType || !targetType) return;
    if ((sourceType === AttributeDataType.Reference) !== (targetType === AttributeDataType.Reference)) {
      errors.add(
        imports ? 'targetMetaverseAttributeId' : 'targetConnectedSystemAttributeId',
        `A ${sourceType} attribute cannot be copied to a ${targetType} attribute: references flow only between Reference attributes.`,
      );
    }
  }

  private async record(
    m: EntityManager,
    ctx: RuleContext,
    initiator: Initiator,
    operation: 'Create' | 'Update' | 'Delete',
    view: MappingView,
    extra: Record<string, unknown>,
  ): Promise<void> {
    const target = view.targetMetaverseAttributeName ?? view.targetConnectedSystemAttributeName ?? '?';
    const from = view.sources.map((s) => s.connectedSystemAttributeName ?? s.metaverseAttributeName ?? 'expression').join(', ');
    const verb = operation === 'Create' ? 'added' : operation === 'Update' ? 'changed' : 'removed';
    await recordRuleActivity(
      this.activities,
      m,
      {
        initiator,
        operation: ActivityOperationType.Update,
        targetId: ctx.rule.id,
        targetName: ctx.rule.name,
        targetContext: ctx.connectedSystemName,
        message: `Mapping ${view.id} ${verb}: ${from} → ${target}`,
        details: { mapping: { operation, id: view.id, target, ...extra } },
      },
      { syncRuleId: ctx.rule.id, connectedSystemId: ctx.rule.connectedSystemId },
    );
  }
}
