import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  ActivityTargetType,
  AttributeDataType,
  checkCompleteOrder,
  DomainError,
  placeAt,
  ValidationErrorCollector,
} from '@meridian/domain';
import { MatchingRuleStore, SyncRuleMatchingRuleEntity } from '@meridian/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { backfillAttributeLookups, lockLookupSchemaExclusive } from '../metaverse/metaverse-lookups';
import {
  childNotFound,
  isImport,
  loadRuleContext,
  markFullSyncRequired,
  recordRuleActivity,
  requireRule,
  RuleContext,
} from './sync-rule.support';
import { loadMatchingRuleViews, MatchingRuleView } from './sync-rule.views';

/** A matching rule as the request gives it; an update sends only what changes. */
export interface MatchingRuleInput {
  /** 1 to 10 positive ids; whether they are distinct attributes of the rule's type is checked here. */
  connectedSystemAttributeIds?: number[];
  metaverseAttributeId?: number;
  caseSensitive?: boolean;
  /** The 1-based position in evaluation order; absent or null: last (create) or unchanged (update). */
  order?: number | null;
}

/** A new matching rule: both sides are required. */
export interface NewMatchingRuleInput extends MatchingRuleInput {
  connectedSystemAttributeIds: number[];
  metaverseAttributeId: number;
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

  async create(syncRuleId: number, input: NewMatchingRuleInput, initiator: Initiator): Promise<MatchingRuleView> {
    return this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const errors = new ValidationErrorCollector();
      const csIds = this.checkSourceAttributes(ctx, input.connectedSystemAttributeIds, errors);
      const mvId = this.checkTargetAttribute(ctx, input.metaverseAttributeId, errors);
      const { caseSensitive } = input;
      const order = input.order ?? undefined;
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
      const errors = new ValidationErrorCollector();
      const csIds =
        input.connectedSystemAttributeIds === undefined
          ? undefined
          : this.checkSourceAttributes(ctx, input.connectedSystemAttributeIds, errors);
      const mvId =
        input.metaverseAttributeId === undefined ? undefined : this.checkTargetAttribute(ctx, input.metaverseAttributeId, errors);
      const { caseSensitive } = input;
      const order = input.order ?? undefined;
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
  async reorder(syncRuleId: number, matchingRuleIds: readonly unknown[], initiator: Initiator): Promise<MatchingRuleView[]> {
    return this.ds.transaction(async (m) => {
      const ctx = await this.importRule(m, syncRuleId);
      const store = new MatchingRuleStore(m);
      const current = await store.orderedIds(syncRuleId);
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

  /** The ids when each names a distinct, selected, comparable attribute of the rule's object type. */
  private checkSourceAttributes(ctx: RuleContext, ids: number[], errors: ValidationErrorCollector): number[] | undefined {
    const field = 'connectedSystemAttributeIds';
    let ok = true;
    ids.forEach((id, i) => {
      const path = `${field}[${i}]`;
      const fail = (message: string) => {
        errors.add(path, message);
        ok = false;
      };
      if (ids.indexOf(id) !== i) return fail(`Attribute ${id} is listed more than once.`);
      const attribute = ctx.csAttributes.get(id);
      if (!attribute) return fail(`Connected system attribute ${id} is not an attribute of the object type "${ctx.csTypeName}".`);
      if (!attribute.selected)
        return fail(`Connected system attribute "${attribute.name}" is not selected for synchronisation; select it first.`);
      if (!MATCHABLE_CS_TYPES.includes(attribute.type))
        return fail(
          `"${attribute.name}" is ${attribute.type}: matching compares values of String, Text, Guid, Integer, LongNumber, Decimal or DateTime attributes.`,
        );
    });
    return ok ? ids : undefined;
  }

  /** The id when it names an indexable attribute of the rule's metaverse object type. */
  private checkTargetAttribute(ctx: RuleContext, raw: number, errors: ValidationErrorCollector): number | undefined {
    const field = 'metaverseAttributeId';
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
