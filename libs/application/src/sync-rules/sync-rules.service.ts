import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ActivityOperationType,
  DomainError,
  InboundOutOfScopeAction,
  OutboundDeprovisionAction,
  ScopingGroup,
  SyncRuleDirection,
  ValidationErrorCollector,
  validateScopingCriteria,
} from '@meridian/domain';
import { AttributePriorityStore, SyncRuleEntity, SyncRuleFilter, SyncRuleSchemaStore, SyncRuleStore } from '@meridian/persistence';
import { PagedResult, pageOf, pagingOf } from '@meridian/platform';
import { DataSource, EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';
import { loadCsAttributes, loadMvAttributes, markFullSyncRequired, recordRuleActivity, requireRule, sameJson } from './sync-rule.support';
import { loadMappingViews, loadMatchingRuleViews, SyncRuleDetailView, syncRuleView, SyncRuleView } from './sync-rule.views';

/**
 * Fields of a sync rule as the request gives them; an update sends only what changes. Null is the
 * request's own: a direction field of the other direction may be null (or false), and on an update
 * direction and connectedSystemId may only repeat the rule's values.
 */
export interface SyncRuleInput {
  name?: string;
  description?: string | null;
  connectedSystemId?: number | null;
  direction?: string | null;
  connectedSystemObjectTypeId?: number | null;
  metaverseObjectTypeId?: number | null;
  projectToMetaverse?: boolean;
  provisionToConnectedSystem?: boolean;
  enabled?: boolean;
  inboundOutOfScopeAction?: InboundOutOfScopeAction | null;
  outboundDeprovisionAction?: OutboundDeprovisionAction | null;
  /** Checked against the attributes of the rule's object types (validateScopingCriteria); null means none. */
  scopingCriteria?: unknown[] | null;
}

/** A new sync rule: what it connects, and its name, are required. */
export interface NewSyncRuleInput extends SyncRuleInput {
  name: string;
  connectedSystemId: number;
  direction: SyncRuleDirection;
  connectedSystemObjectTypeId: number;
  metaverseObjectTypeId: number;
}

export interface SyncRuleListQuery {
  page?: number;
  pageSize?: number;
  connectedSystemId?: number;
  direction?: SyncRuleDirection;
  metaverseObjectTypeId?: number;
}

export interface ScopingCriteriaView {
  syncRuleId: number;
  scopingCriteria: ScopingGroup[];
}

const INBOUND = Object.values(InboundOutOfScopeAction);
const OUTBOUND = Object.values(OutboundDeprovisionAction);

/** Sync rules (spec 4.8, docs/sync-rules.md): list, read, create, update, delete, and their scoping criteria. */
@Injectable()
export class SyncRulesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly activities: ActivitiesService,
  ) {}

  async list(query: SyncRuleListQuery): Promise<PagedResult<SyncRuleView>> {
    const paging = pagingOf(query, 25);
    const filter: SyncRuleFilter = {
      connectedSystemId: query.connectedSystemId,
      metaverseObjectTypeId: query.metaverseObjectTypeId,
      direction: query.direction,
    };
    const store = new SyncRuleStore(this.ds.manager);
    const count = await store.count(filter);
    const rows = await store.page(filter, paging);
    return pageOf(rows.map(syncRuleView), count, paging);
  }

  async get(id: number, m: EntityManager = this.ds.manager): Promise<SyncRuleDetailView> {
    const row = await new SyncRuleStore(m).row(id);
    if (!row) throw DomainError.notFound('Sync rule', id);
    return {
      ...syncRuleView(row),
      scopingCriteria: row.scopingCriteria ?? [],
      mappings: await loadMappingViews(m, id),
      matchingRules: await loadMatchingRuleViews(m, id),
    };
  }

  async create(input: NewSyncRuleInput, initiator: Initiator): Promise<SyncRuleDetailView> {
    const errors = new ValidationErrorCollector();
    const name = input.name.trim();
    const description = this.normaliseDescription(input.description);
    const { direction } = input;
    this.checkDirectionFields(direction, input, errors);

    return this.ds.transaction(async (m) => {
      const systemName = await new SyncRuleStore(m).connectedSystemName(input.connectedSystemId);
      if (systemName === null) errors.add('connectedSystemId', `Connected system ${input.connectedSystemId} does not exist.`);
      const csType =
        systemName !== null ? await this.checkCsObjectType(m, input.connectedSystemId, input.connectedSystemObjectTypeId, errors) : null;
      const mvType = await this.checkMvObjectType(m, input.metaverseObjectTypeId, errors);
      let scopingCriteria: ScopingGroup[] = [];
      if (csType && mvType) scopingCriteria = await this.checkScoping(m, direction, csType.id, mvType.id, input.scopingCriteria, errors);
      errors.throwIfAny();
      await this.requireUniqueName(m, name, null);

      const imports = direction === SyncRuleDirection.Import;
      const saved = await m.getRepository(SyncRuleEntity).save({
        name,
        description: description ?? null,
        connectedSystemId: input.connectedSystemId,
        direction,
        connectedSystemObjectTypeId: csType!.id,
        metaverseObjectTypeId: mvType!.id,
        projectToMetaverse: imports && input.projectToMetaverse === true,
        provisionToConnectedSystem: !imports && input.provisionToConnectedSystem === true,
        enabled: input.enabled ?? true,
        inboundOutOfScopeAction: (imports ? input.inboundOutOfScopeAction : undefined) ?? InboundOutOfScopeAction.Disconnect,
        outboundDeprovisionAction: (imports ? undefined : input.outboundDeprovisionAction) ?? OutboundDeprovisionAction.Disconnect,
        scopingCriteria,
      });
      await markFullSyncRequired(m, saved.connectedSystemId);
      await recordRuleActivity(
        this.activities,
        m,
        {
          initiator,
          operation: ActivityOperationType.Create,
          targetId: saved.id,
          targetName: saved.name,
          targetContext: systemName ?? '',
          details: {
            direction: saved.direction,
            connectedSystemObjectType: csType!.name,
            metaverseObjectType: mvType!.name,
            projectToMetaverse: saved.projectToMetaverse,
            provisionToConnectedSystem: saved.provisionToConnectedSystem,
            enabled: saved.enabled,
            scopingGroups: scopingCriteria.length,
          },
        },
        { syncRuleId: saved.id, connectedSystemId: saved.connectedSystemId },
      );
      return this.get(saved.id, m);
    });
  }

  async update(id: number, input: SyncRuleInput, initiator: Initiator): Promise<SyncRuleDetailView> {
    return this.ds.transaction(async (m) => {
      const rule = await requireRule(m, id, true);
      const direction = rule.direction as SyncRuleDirection;
      const errors = new ValidationErrorCollector();
      if (input.direction !== undefined && input.direction !== rule.direction) {
        errors.add('direction', `direction cannot be changed (the rule is ${rule.direction}): create a new rule instead.`);
      }
      if (input.connectedSystemId !== undefined && input.connectedSystemId !== rule.connectedSystemId) {
        errors.add(
          'connectedSystemId',
          `connectedSystemId cannot be changed (the rule belongs to connected system ${rule.connectedSystemId}): create a new rule instead.`,
        );
      }
      const name = input.name?.trim();
      const description = this.normaliseDescription(input.description);
      this.checkDirectionFields(direction, input, errors);

      const changes: Partial<SyncRuleEntity> = {};
      let csTypeName: string | null = null;
      let mvTypeName: string | null = null;
      const csTypeChanged =
        input.connectedSystemObjectTypeId !== undefined && input.connectedSystemObjectTypeId !== rule.connectedSystemObjectTypeId;
      const mvTypeChanged = input.metaverseObjectTypeId !== undefined && input.metaverseObjectTypeId !== rule.metaverseObjectTypeId;
      if (csTypeChanged) {
        const csType = await this.checkCsObjectType(m, rule.connectedSystemId, input.connectedSystemObjectTypeId, errors);
        if (csType) {
          changes.connectedSystemObjectTypeId = csType.id;
          csTypeName = csType.name;
        }
      }
      if (mvTypeChanged) {
        const mvType = await this.checkMvObjectType(m, input.metaverseObjectTypeId, errors);
        if (mvType) {
          changes.metaverseObjectTypeId = mvType.id;
          mvTypeName = mvType.name;
        }
      }
      if (csTypeChanged || mvTypeChanged)
        await this.checkTypeChangeAllowed(m, rule, csTypeChanged, mvTypeChanged, input.scopingCriteria !== undefined, errors);
      const csTypeId = csTypeChanged ? changes.connectedSystemObjectTypeId : rule.connectedSystemObjectTypeId;
      const mvTypeId = mvTypeChanged ? changes.metaverseObjectTypeId : rule.metaverseObjectTypeId;
      if (input.scopingCriteria !== undefined && csTypeId !== undefined && mvTypeId !== undefined) {
        const criteria = await this.checkScoping(m, direction, csTypeId, mvTypeId, input.scopingCriteria, errors);
        if (!sameJson(criteria, rule.scopingCriteria ?? [])) changes.scopingCriteria = criteria;
      }
      errors.throwIfAny();

      if (name !== undefined && name !== rule.name) {
        await this.requireUniqueName(m, name, rule.id);
        changes.name = name;
      }
      if (description !== undefined && description !== rule.description) changes.description = description;
      for (const key of ['enabled', 'projectToMetaverse', 'provisionToConnectedSystem'] as const) {
        if (input[key] !== undefined && input[key] !== rule[key]) changes[key] = input[key];
      }
      if (
        direction === SyncRuleDirection.Import &&
        input.inboundOutOfScopeAction &&
        input.inboundOutOfScopeAction !== rule.inboundOutOfScopeAction
      ) {
        changes.inboundOutOfScopeAction = input.inboundOutOfScopeAction;
      }
      if (
        direction === SyncRuleDirection.Export &&
        input.outboundDeprovisionAction &&
        input.outboundDeprovisionAction !== rule.outboundDeprovisionAction
      ) {
        changes.outboundDeprovisionAction = input.outboundDeprovisionAction;
      }
      const changed = Object.keys(changes);
      const previousName = rule.name;
      if (changed.length) {
        await m.getRepository(SyncRuleEntity).save(Object.assign(rule, changes, { lastUpdated: new Date() }));
        await markFullSyncRequired(m, rule.connectedSystemId);
        const systemName = await new SyncRuleStore(m).connectedSystemName(rule.connectedSystemId);
        await recordRuleActivity(
          this.activities,
          m,
          {
            initiator,
            operation: ActivityOperationType.Update,
            targetId: id,
            targetName: rule.name,
            targetContext: systemName,
            details: {
              changed,
              ...(changes.name ? { previousName } : {}),
              ...(csTypeName ? { connectedSystemObjectType: csTypeName } : {}),
              ...(mvTypeName ? { metaverseObjectType: mvTypeName } : {}),
            },
          },
          { syncRuleId: id, connectedSystemId: rule.connectedSystemId },
        );
      }
      return this.get(id, m);
    });
  }

  async remove(id: number, initiator: Initiator): Promise<void> {
    await this.ds.transaction(async (m) => {
      const rule = await requireRule(m, id, true);
      const priorities = new AttributePriorityStore(m);
      const groups = await priorities.groupsOfRule(id);
      await priorities.lockGroups(groups);
      const systemName = await new SyncRuleStore(m).connectedSystemName(rule.connectedSystemId);
      const { mappings } = await new SyncRuleStore(m).childCounts(id);
      await m.getRepository(SyncRuleEntity).delete({ id });
      for (const group of groups) await priorities.compactGroup(group);
      await markFullSyncRequired(m, rule.connectedSystemId);
      await recordRuleActivity(
        this.activities,
        m,
        {
          initiator,
          operation: ActivityOperationType.Delete,
          targetId: id,
          targetName: rule.name,
          targetContext: systemName,
          details: { direction: rule.direction, mappingsRemoved: mappings },
        },
        { syncRuleId: id, connectedSystemId: rule.connectedSystemId },
      );
    });
  }

  async getScopingCriteria(id: number): Promise<ScopingCriteriaView> {
    const rule = await requireRule(this.ds.manager, id);
    return { syncRuleId: id, scopingCriteria: rule.scopingCriteria as ScopingGroup[] };
  }

  async setScopingCriteria(id: number, scopingCriteria: unknown[], initiator: Initiator): Promise<ScopingCriteriaView> {
    await this.update(id, { scopingCriteria }, initiator);
    return this.getScopingCriteria(id);
  }

  /** A blank description is stored as none. */
  private normaliseDescription(description: string | null | undefined): string | null | undefined {
    return typeof description === 'string' && description.trim() === '' ? null : description;
  }

  /** Fields of the other direction are refused rather than silently ignored (false / null are tolerated). */
  private checkDirectionFields(direction: SyncRuleDirection, input: SyncRuleInput, errors: ValidationErrorCollector): void {
    const wrong =
      direction === SyncRuleDirection.Import
        ? ([
            ['provisionToConnectedSystem', input.provisionToConnectedSystem === true],
            ['outboundDeprovisionAction', input.outboundDeprovisionAction !== undefined && input.outboundDeprovisionAction !== null],
          ] as const)
        : ([
            ['projectToMetaverse', input.projectToMetaverse === true],
            ['inboundOutOfScopeAction', input.inboundOutOfScopeAction !== undefined && input.inboundOutOfScopeAction !== null],
          ] as const);
    const other = direction === SyncRuleDirection.Import ? 'Export' : 'Import';
    for (const [field, present] of wrong)
      if (present) errors.add(field, `${field} applies to ${other} rules only; this rule is ${direction}.`);
    if (direction === SyncRuleDirection.Import && input.inboundOutOfScopeAction === null)
      errors.add('inboundOutOfScopeAction', `inboundOutOfScopeAction must be one of ${INBOUND.join(', ')}.`);
    if (direction === SyncRuleDirection.Export && input.outboundDeprovisionAction === null)
      errors.add('outboundDeprovisionAction', `outboundDeprovisionAction must be one of ${OUTBOUND.join(', ')}.`);
  }

  private async checkCsObjectType(
    m: EntityManager,
    connectedSystemId: number,
    raw: number | null | undefined,
    errors: ValidationErrorCollector,
  ): Promise<{ id: number; name: string } | null> {
    if (raw === null || raw === undefined) return null;
    const type = await new SyncRuleSchemaStore(m).csObjectType(raw);
    const field = 'connectedSystemObjectTypeId';
    if (!type) errors.add(field, `Connected system object type ${raw} does not exist.`);
    else if (type.connectedSystemId !== connectedSystemId)
      errors.add(field, `Object type ${raw} ("${type.name}") belongs to another connected system.`);
    else if (!type.presentInSchema) errors.add(field, `Object type "${type.name}" is no longer in the connected system's schema.`);
    else if (!type.selected) {
      errors.add(
        field,
        `Object type "${type.name}" is not selected for synchronisation: select it first (PUT /api/v1/synchronisation/connected-systems/${connectedSystemId}/object-types/${type.id} with selected true).`,
      );
    } else return { id: type.id, name: type.name };
    return null;
  }

  private async checkMvObjectType(
    m: EntityManager,
    raw: number | null | undefined,
    errors: ValidationErrorCollector,
  ): Promise<{ id: number; name: string } | null> {
    if (raw === null || raw === undefined) return null;
    const type = await new SyncRuleSchemaStore(m).mvObjectType(raw);
    if (!type) {
      errors.add('metaverseObjectTypeId', `Metaverse object type ${raw} does not exist.`);
      return null;
    }
    return type;
  }

  /** Import rules scope on the selected attributes of their connected-system object type, Export rules on their metaverse type's attributes. */
  private async checkScoping(
    m: EntityManager,
    direction: SyncRuleDirection,
    csTypeId: number,
    mvTypeId: number,
    raw: unknown[] | null | undefined,
    errors: ValidationErrorCollector,
  ): Promise<ScopingGroup[]> {
    if (raw === undefined || raw === null) return [];
    const attributes =
      direction === SyncRuleDirection.Import
        ? [...(await loadCsAttributes(m, csTypeId)).values()].filter((a) => a.selected)
        : [...(await loadMvAttributes(m, mvTypeId)).values()];
    const result = validateScopingCriteria(raw, new Map(attributes.map((a) => [a.id, a])));
    for (const [field, messages] of Object.entries(result.errors)) for (const message of messages) errors.add(field, message);
    return result.criteria;
  }

  /** Mappings, matching rules and criteria name attributes of the rule's types, so the types change only while there are none. */
  private async checkTypeChangeAllowed(
    m: EntityManager,
    rule: SyncRuleEntity,
    csTypeChanged: boolean,
    mvTypeChanged: boolean,
    criteriaReplaced: boolean,
    errors: ValidationErrorCollector,
  ): Promise<void> {
    const { mappings, matching } = await new SyncRuleStore(m).childCounts(rule.id);
    const criteriaUseChangedType = rule.direction === SyncRuleDirection.Import ? csTypeChanged : mvTypeChanged;
    const blockers = [
      mappings ? `${mappings} mapping${mappings === 1 ? '' : 's'}` : '',
      matching ? `${matching} matching rule${matching === 1 ? '' : 's'}` : '',
      criteriaUseChangedType && !criteriaReplaced && (rule.scopingCriteria ?? []).length ? 'scoping criteria' : '',
    ].filter(Boolean);
    if (!blockers.length) return;
    const message = `The object type cannot change while the rule has ${blockers.join(' and ')} naming attributes of the current one: remove them first (or send new scopingCriteria with the change).`;
    if (csTypeChanged) errors.add('connectedSystemObjectTypeId', message);
    if (mvTypeChanged) errors.add('metaverseObjectTypeId', message);
  }

  /** Names are unique ignoring case, so activities, priorities and logs that name a rule are unambiguous. */
  private async requireUniqueName(m: EntityManager, name: string, exceptId: number | null): Promise<void> {
    const store = new SyncRuleStore(m);
    await store.lockNames();
    const clash = await store.ruleNamedLike(name, exceptId);
    if (clash !== null)
      throw DomainError.conflict(`A sync rule named "${name}" already exists (id ${clash}).`, { field: 'name', syncRuleId: clash });
  }
}
