import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityOperationType, ActivityTargetType, AttributeDataType, checkCompleteOrder, DomainError, placeAt } from '@meridian/domain';
import { MatchingRuleStore, SyncRuleMatchingRuleEntity } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { backfillAttributeLookups, lockLookupSchemaExclusive } from '../metaverse/metaverse-lookups';
import {
  childNotFound,
  FieldErrors,
  isImport,
  loadRuleContext,
  markFullSyncRequired,
  positiveInt,
  recordRuleActivity,
  requireRule,
  RuleContext,
} from './sync-rule.support';
import { loadMatchingRuleViews, MatchingRuleView } from './sync-rule.views';

export interface MatchingRuleInput {
  connectedSystemAttributeIds?: unknown;
  metaverseAttributeId?: unknown;
  caseSensitive?: unknown;
  order?: unknown;
}

/** Metaverse attribute types that have lookup rows (metaverse_object_lookup) and so can be matched on by index. */
export const MATCHABLE_TYPES: readonly AttributeDataType[] = [
  AttributeDataType.String,
  AttributeDataType.Text,
  AttributeDataType.Guid,
  AttributeDataType.Integer,
  AttributeDataType.LongNumber,
];
/** Connected-system attribute types whose values can be compared with a metaverse value. */
const MATCHABLE_CS_TYPES: readonly AttributeDataType[] = [...MATCHABLE_TYPES, AttributeDataType.Decimal, AttributeDataType.DateTime];
const MAX_SOURCE_ATTRIBUTES = 10;
/** Lookup values are lower-cased and cut to this length (the format of MetaverseObjectsWriter). */

/**
 * Ordered matching rules of import sync rules (DOMAIN.md §2.2.3): connected-system attribute(s) → a
 * metaverse attribute. Matching needs the metaverse attribute indexed: the first rule on an attribute
 * turns its index on and backfills the lookup rows in one statement.
 */
@Injectable()
export class MatchingRulesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  /** Export rules have no matching rules: their list is empty. */
  async list(syncRuleId: number): Promise<MatchingRuleView[]> {
    await requireRule(this.ds.manager, syncRuleId);
    return loadMatchingRuleViews(this.ds.manager, syncRuleId);
  }

  async get(syncRuleId: number, id: number, m: EntityManager = this.ds.manager): Promise<MatchingRuleView> {
    const [view] = await loadMatchingRuleViews(m, syncRuleId, [id]);
    if (!view) throw childNotFound('Matching rule', id, syncRuleId);
    return view;
  }

  async create(syncRuleId: number, input: MatchingRuleInput, initiator: Initiator): Promise<MatchingRuleView> {
    return this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const errors = new FieldErrors();
      const csIds = this.checkSourceAttributes(ctx, input.connectedSystemAttributeIds, true, errors);
      const mvId = this.checkTargetAttribute(ctx, input.metaverseAttributeId, true, errors);
      const caseSensitive = this.checkBoolean(input.caseSensitive, 'caseSensitive', errors);
      const order = this.checkOrder(input.order, errors);
      errors.throwIfAny();
      await this.refuseDuplicate(m, syncRuleId, csIds!, mvId!, null);

      const saved = await m.getRepository(SyncRuleMatchingRuleEntity).save({
        syncRuleId,
        connectedSystemAttributeIds: csIds!,
        metaverseAttributeId: mvId!,
        caseSensitive: caseSensitive ?? false,
        order: 0,
      });
      const store = new MatchingRuleStore(m);
      await store.writeOrder(placeAt(await store.orderedIds(syncRuleId, saved.id), saved.id, order));
      const indexed = await this.ensureIndexed(m, ctx, mvId!);
      await markFullSyncRequired(m, ctx.rule.connectedSystemId);
      const view = await this.get(syncRuleId, saved.id, m);
      await this.record(m, ctx, initiator, ActivityOperationType.Create, view, {
        order: view.order,
        caseSensitive: view.caseSensitive,
        ...indexed,
      });
      return view;
    });
  }

  async update(syncRuleId: number, id: number, input: MatchingRuleInput, initiator: Initiator): Promise<MatchingRuleView> {
    return this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const rule = await m.getRepository(SyncRuleMatchingRuleEntity).findOneBy({ id, syncRuleId });
      if (!rule) throw childNotFound('Matching rule', id, syncRuleId);
      const errors = new FieldErrors();
      const csIds = this.checkSourceAttributes(ctx, input.connectedSystemAttributeIds, false, errors);
      const mvId = this.checkTargetAttribute(ctx, input.metaverseAttributeId, false, errors);
      const caseSensitive = this.checkBoolean(input.caseSensitive, 'caseSensitive', errors);
      const order = this.checkOrder(input.order, errors);
      errors.throwIfAny();

      const changed: string[] = [];
      if (csIds && csIds.join() !== rule.connectedSystemAttributeIds.join()) {
        rule.connectedSystemAttributeIds = csIds;
        changed.push('connectedSystemAttributeIds');
      }
      if (mvId !== undefined && mvId !== rule.metaverseAttributeId) {
        rule.metaverseAttributeId = mvId;
        changed.push('metaverseAttributeId');
      }
      if (caseSensitive !== undefined && caseSensitive !== rule.caseSensitive) {
        rule.caseSensitive = caseSensitive;
        changed.push('caseSensitive');
      }
      if (changed.some((c) => c !== 'caseSensitive'))
        await this.refuseDuplicate(m, syncRuleId, rule.connectedSystemAttributeIds, rule.metaverseAttributeId, id);
      if (changed.length) await m.getRepository(SyncRuleMatchingRuleEntity).save(rule);
      const store = new MatchingRuleStore(m);
      if (order !== undefined && (await store.writeOrder(placeAt(await store.orderedIds(syncRuleId), id, order))) > 0)
        changed.push('order');
      const indexed = changed.includes('metaverseAttributeId') ? await this.ensureIndexed(m, ctx, rule.metaverseAttributeId) : {};
      const view = await this.get(syncRuleId, id, m);
      if (changed.length) {
        await markFullSyncRequired(m, ctx.rule.connectedSystemId);
        await this.record(m, ctx, initiator, ActivityOperationType.Update, view, { changed, ...indexed });
      }
      return view;
    });
  }

  async remove(syncRuleId: number, id: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const view = await this.get(syncRuleId, id, m);
      await m.getRepository(SyncRuleMatchingRuleEntity).delete({ id });
      const store = new MatchingRuleStore(m);
      await store.writeOrder(await store.orderedIds(syncRuleId));
      await markFullSyncRequired(m, ctx.rule.connectedSystemId);
      await this.record(m, ctx, initiator, ActivityOperationType.Delete, view, {});
    });
  }

  /** Sets the evaluation order: `matchingRuleIds` must list every matching rule of the rule exactly once. */
  async reorder(syncRuleId: number, matchingRuleIds: unknown, initiator: Initiator): Promise<MatchingRuleView[]> {
    return this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const store = new MatchingRuleStore(m);
      const current = await store.orderedIds(syncRuleId);
      if (!Array.isArray(matchingRuleIds))
        throw DomainError.validation('matchingRuleIds', 'matchingRuleIds must be an array of matching rule ids.');
      const problems = checkCompleteOrder(
        current,
        matchingRuleIds,
        'matchingRuleIds',
        `matching rules of sync rule ${syncRuleId} (${current.join(', ') || 'none'})`,
      );
      if (Object.keys(problems).length) throw DomainError.validationMany(problems);
      const changed = (await store.writeOrder(matchingRuleIds as number[])) > 0;
      const views = await loadMatchingRuleViews(m, syncRuleId);
      if (changed) {
        await markFullSyncRequired(m, ctx.rule.connectedSystemId);
        await recordRuleActivity(
          this.activities,
          m,
          {
            initiator,
            targetType: ActivityTargetType.ObjectMatchingRule,
            operation: ActivityOperationType.Update,
            targetId: syncRuleId,
            targetName: `Order of the matching rules of ${ctx.rule.name}`,
            targetContext: ctx.rule.name,
            message: 'Matching rules reordered',
            details: { order: views.map((v) => v.id) },
          },
          { syncRuleId, connectedSystemId: ctx.rule.connectedSystemId },
        );
      }
      return views;
    });
  }

  /** Locks the rule; matching rules belong to Import rules only. */
  private async importRule(m: EntityManager, syncRuleId: number): Promise<RuleContext> {
    const ctx = await loadRuleContext(m, syncRuleId, true);
    if (!isImport(ctx.rule)) {
      throw DomainError.badRequest(
        `Sync rule ${syncRuleId} is an Export rule: matching rules join connected system objects to metaverse objects and belong to Import rules.`,
      );
    }
    return ctx;
  }

  private checkSourceAttributes(ctx: RuleContext, raw: unknown, required: boolean, errors: FieldErrors): number[] | undefined {
    const field = 'connectedSystemAttributeIds';
    if (raw === undefined && !required) return undefined;
    if (!Array.isArray(raw) || raw.length === 0) {
      errors.add(field, `${field} must list at least one connected system attribute id.`);
      return undefined;
    }
    if (raw.length > MAX_SOURCE_ATTRIBUTES) {
      errors.add(field, `${field} can list at most ${MAX_SOURCE_ATTRIBUTES} attributes.`);
      return undefined;
    }
    let ok = true;
    raw.forEach((id, i) => {
      const path = `${field}[${i}]`;
      const fail = (message: string) => {
        errors.add(path, message);
        ok = false;
      };
      if (!positiveInt(id)) return fail(`${path} must be a positive whole number.`);
      if (raw.indexOf(id) !== i) return fail(`Attribute ${id} is listed more than once.`);
      const attribute = ctx.csAttributes.get(id);
      if (!attribute) return fail(`Connected system attribute ${id} is not an attribute of the object type "${ctx.csTypeName}".`);
      if (!attribute.selected)
        return fail(`Connected system attribute "${attribute.name}" is not selected for synchronisation; select it first.`);
      if (!MATCHABLE_CS_TYPES.includes(attribute.type))
        return fail(
          `"${attribute.name}" is ${attribute.type}: matching compares values of String, Text, Guid, Integer, LongNumber, Decimal or DateTime attributes.`,
        );
    });
    return ok ? (raw as number[]) : undefined;
  }

  private checkTargetAttribute(ctx: RuleContext, raw: unknown, required: boolean, errors: FieldErrors): number | undefined {
    const field = 'metaverseAttributeId';
    if (raw === undefined && !required) return undefined;
    if (!positiveInt(raw)) {
      errors.add(field, `${field} is required and must be a positive whole number.`);
      return undefined;
    }
    const attribute = ctx.mvAttributes.get(raw);
    if (!attribute) {
      errors.add(field, `Metaverse attribute ${raw} is not an attribute of the metaverse object type "${ctx.mvTypeName}".`);
      return undefined;
    }
    if (!MATCHABLE_TYPES.includes(attribute.type)) {
      errors.add(
        field,
        `"${attribute.name}" is ${attribute.type}: matching needs a String, Text, Guid, Integer or LongNumber metaverse attribute (one that can be indexed).`,
      );
      return undefined;
    }
    return raw;
  }

  private checkBoolean(raw: unknown, field: string, errors: FieldErrors): boolean | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'boolean') {
      errors.add(field, `${field} must be true or false.`);
      return undefined;
    }
    return raw;
  }

  /** `order` is the 1-based position (1 = tried first); past the end means last. */
  private checkOrder(raw: unknown, errors: FieldErrors): number | undefined {
    if (raw === undefined || raw === null) return undefined;
    if (!positiveInt(raw)) {
      errors.add('order', 'order must be a whole number of at least 1 (1 = tried first).');
      return undefined;
    }
    return raw;
  }

  private async refuseDuplicate(
    m: EntityManager,
    syncRuleId: number,
    csIds: readonly number[],
    mvId: number,
    exceptId: number | null,
  ): Promise<void> {
    const clash = await new MatchingRuleStore(m).sameAttributes(syncRuleId, csIds, mvId, exceptId);
    if (clash !== null) throw DomainError.validation('metaverseAttributeId', `Matching rule ${clash} already matches these attributes.`);
  }

  /**
   * Turns the metaverse attribute's index on when it is off and backfills its lookup rows with the
   * metaverse area's own backfill (under its lookup-schema lock), so the first match of the next
   * synchronisation already uses the index.
   */
  private async ensureIndexed(m: EntityManager, ctx: RuleContext, attributeId: number): Promise<Record<string, unknown>> {
    await lockLookupSchemaExclusive(m);
    const name = await new MatchingRuleStore(m).indexAttribute(attributeId, MATCHABLE_TYPES);
    if (name === null) return {};
    const rows = await backfillAttributeLookups(m, attributeId);
    ctx.mvAttributes.get(attributeId)!.isIndexed = true;
    return { indexedMetaverseAttribute: { id: attributeId, name, lookupRowsWritten: rows } };
  }

  private async record(
    m: EntityManager,
    ctx: RuleContext,
    initiator: Initiator,
    operation: ActivityOperationType,
    view: MatchingRuleView,
    details: Record<string, unknown>,
  ): Promise<void> {
    await recordRuleActivity(
      this.activities,
      m,
      {
        initiator,
        targetType: ActivityTargetType.ObjectMatchingRule,
        operation,
        targetId: view.id,
        targetName: `${view.connectedSystemAttributes.map((a) => a.name).join(', ')} → ${view.metaverseAttributeName}`,
        targetContext: ctx.rule.name,
        details: {
          syncRuleId: ctx.rule.id,
          connectedSystemAttributeIds: view.connectedSystemAttributeIds,
          metaverseAttributeId: view.metaverseAttributeId,
          ...details,
        },
      },
      { syncRuleId: ctx.rule.id, connectedSystemId: ctx.rule.connectedSystemId },
    );
  }
}
