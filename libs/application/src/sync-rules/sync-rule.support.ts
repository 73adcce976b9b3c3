import { ActivityOperationType, ActivityTargetType, DomainError, ErrorCode, SyncRuleDirection } from '@meridian/domain';
import {
  ActivityEntity,
  SyncRuleCsAttributeRow,
  SyncRuleEntity,
  SyncRuleMvAttributeRow,
  SyncRuleSchemaStore,
  SyncRuleStore,
} from '@meridian/persistence';
import { EntityManager } from 'typeorm';
import { ActivitiesService } from '../activities/activities.service';
import { Initiator } from '../activities/initiator';

/** A connected-system attribute as the sync-rule services need it. */
export type CsAttributeInfo = SyncRuleCsAttributeRow;

/** A metaverse attribute of a rule's metaverse object type. */
export type MvAttributeInfo = SyncRuleMvAttributeRow;

/** A sync rule with the names and schema its sub-resources are validated against. */
export interface RuleContext {
  rule: SyncRuleEntity;
  connectedSystemName: string;
  csTypeName: string;
  mvTypeName: string;
  /** Every attribute of the rule's connected-system object type still present in the schema, by id. */
  csAttributes: Map<number, CsAttributeInfo>;
  /** The attributes of the rule's metaverse object type, by id. */
  mvAttributes: Map<number, MvAttributeInfo>;
}

export const isImport = (rule: SyncRuleEntity) => rule.direction === SyncRuleDirection.Import;

/** Loads a rule (locking its row for the transaction when `lock`), or 404. */
export async function requireRule(m: EntityManager, id: number, lock = false): Promise<SyncRuleEntity> {
  const rule = await m
    .getRepository(SyncRuleEntity)
    .findOne({ where: { id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
  if (!rule) throw DomainError.notFound('Sync rule', id);
  return rule;
}

/** Every attribute of a connected-system object type still present in the schema, by id. */
export async function loadCsAttributes(m: EntityManager, objectTypeId: number): Promise<Map<number, CsAttributeInfo>> {
  return new Map((await new SyncRuleSchemaStore(m).csAttributes(objectTypeId)).map((a) => [a.id, a]));
}

/** The attributes of a metaverse object type, by id. */
export async function loadMvAttributes(m: EntityManager, objectTypeId: number): Promise<Map<number, MvAttributeInfo>> {
  return new Map((await new SyncRuleSchemaStore(m).mvAttributes(objectTypeId)).map((a) => [a.id, a]));
}

/** The rule with its names and the schema of both its object types. */
export async function loadRuleContext(m: EntityManager, id: number, lock = false): Promise<RuleContext> {
  const rule = await requireRule(m, id, lock);
  const names = await new SyncRuleStore(m).names(rule.connectedSystemId, rule.connectedSystemObjectTypeId, rule.metaverseObjectTypeId);
  return {
    rule,
    ...names,
    csAttributes: await loadCsAttributes(m, rule.connectedSystemObjectTypeId),
    mvAttributes: await loadMvAttributes(m, rule.metaverseObjectTypeId),
  };
}

/** A change to a rule's configuration means the next full synchronisation must re-apply it (DOMAIN.md §2.2). */
export async function markFullSyncRequired(m: EntityManager, connectedSystemIds: number | readonly number[]): Promise<void> {
  const ids = [...new Set(typeof connectedSystemIds === 'number' ? [connectedSystemIds] : connectedSystemIds)];
  await new SyncRuleStore(m).markFullSyncRequired(ids);
}

const MAX_TARGET_TEXT = 500;

/** Records a configuration-change activity and links it to the rule and its connected system (spec 2.4 detail fields). */
export async function recordRuleActivity(
  activities: ActivitiesService,
  m: EntityManager,
  change: {
    initiator: Initiator;
    targetType?: ActivityTargetType;
    operation: ActivityOperationType;
    targetId: number;
    targetName: string;
    targetContext?: string | null;
    message?: string | null;
    details?: Record<string, unknown> | null;
  },
  links: { syncRuleId: number | null; connectedSystemId: number | null },
): Promise<ActivityEntity> {
  // targetName and targetContext are varchar(500): a matching rule over many long attribute names must not fail the change.
  const activity = await activities.recordChange(
    {
      ...change,
      targetType: change.targetType ?? ActivityTargetType.SyncRule,
      targetName: change.targetName.slice(0, MAX_TARGET_TEXT),
      targetContext: change.targetContext?.slice(0, MAX_TARGET_TEXT) ?? null,
    },
    m,
  );
  await m
    .getRepository(ActivityEntity)
    .update({ id: activity.id }, { syncRuleId: links.syncRuleId, connectedSystemId: links.connectedSystemId });
  return activity;
}

/** 404 for a child resource that does not exist or belongs to another rule. */
export function childNotFound(kind: string, id: number, syncRuleId: number): DomainError {
  return new DomainError(ErrorCode.NotFound, `${kind} ${id} does not exist in sync rule ${syncRuleId}.`);
}

/** Reads an optional positive whole number id from input; records an error when malformed. */
export function positiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= 2_147_483_647;
}

/** Deep equality of JSON values ignoring key order (jsonb does not keep the order keys were written in). */
export function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
