import type { ExpressionContext } from '../expressions';
import { AttributeDataType } from '../metaverse/metaverse-types';
import { evaluateScoping, ScopingValues } from '../sync-rules/scoping-evaluation';
import { ExecutionErrorType, PendingExportChangeType } from './engine.enums';
import { evaluateMapping, sameValues } from './flow-values';
import type { AttributeChange, EngineAttribute, ExportRuleDef } from './sync-model';

/** The target connector space object of an export rule, as export evaluation sees it. */
export interface ExportTarget {
  csoId: string;
  status: string;
  /** Values by attribute id as last seen or exported; reference attributes as metaverse object ids. */
  values(attributeId: number): readonly unknown[] | undefined;
  /** The unexported pending export of the object, if any (its changes are what the object will hold). */
  pending: { changeType: PendingExportChangeType; changes: readonly AttributeChange[] } | null;
}

export interface ExportInput {
  rule: ExportRuleDef;
  /** The metaverse object's values by metaverse attribute id (references are metaverse object ids). */
  values(attributeId: number): readonly unknown[];
  scoping: ScopingValues;
  scopingTypes?: ReadonlyMap<number, string>;
  /** `mv[…]` (and `cs[…]` of the target) for expressions. */
  context: ExpressionContext;
  /** Attributes of the target object type by id. */
  targetAttributes: ReadonlyMap<number, EngineAttribute>;
  target: ExportTarget | null;
  now: Date;
}

export type ExportDecision =
  | { action: 'None' }
  /** Create the object: a `PendingProvisioning` CSO and a `Create` export with every mapped attribute. */
  | { action: 'Provision'; changes: AttributeChange[] }
  /** The changes the pending export must hold from now on (merged with an unexported one). */
  | { action: 'Update'; changes: AttributeChange[]; added: number }
  | { action: 'Disconnect' }
  | { action: 'Delete' }
  /** A Create never exported and now out of scope: both cancel. */
  | { action: 'CancelCreate' };

export interface ExportEvaluation {
  decision: ExportDecision;
  errors: Array<{ errorType: ExecutionErrorType; message: string }>;
}

/**
 * What one export rule asks of one metaverse object (DOMAIN.md §2.2 rule 8). Values are compared at the
 * value level with what the target holds (or will hold once its pending export is done), so an
 * unchanged value never produces an export and write-back cannot loop.
 */
export function evaluateExport(input: ExportInput): ExportEvaluation {
  const { rule, target } = input;
  const errors: ExportEvaluation['errors'] = [];
  const inScope = evaluateScoping(rule.scoping as never, input.scoping, input.now, input.scopingTypes);
  if (!inScope) {
    if (!target) return { decision: { action: 'None' }, errors };
    // Never created in the system: whether the rule deletes or disconnects, the object is not created
    // (disconnecting would still export an unjoined object for someone out of scope).
    if (target.pending?.changeType === PendingExportChangeType.Create) return { decision: { action: 'CancelCreate' }, errors };
    if (rule.deprovisionAction !== 'Delete') return { decision: { action: 'Disconnect' }, errors };
    if (target.pending?.changeType === PendingExportChangeType.Delete) return { decision: { action: 'None' }, errors };
    return { decision: { action: 'Delete' }, errors };
  }
  if (target?.pending?.changeType === PendingExportChangeType.Delete) return { decision: { action: 'None' }, errors };
  const creating = !target || target.pending?.changeType === PendingExportChangeType.Create;
  if (!target && !rule.provision) return { decision: { action: 'None' }, errors };

  const desired: AttributeChange[] = [];
  for (const mapping of rule.mappings) {
    if (mapping.initialExportOnly && !creating) continue;
    const attr = input.targetAttributes.get(mapping.targetAttributeId);
    if (!attr) continue;
    const result = evaluateMapping(mapping.sources, { values: (id) => input.values(id), context: input.context }, attr);
    if (!result.ok) {
      errors.push({ errorType: result.errorType, message: result.message });
      continue;
    }
    desired.push(
      attr.type === AttributeDataType.Reference
        ? { a: attr.id, op: 'Replace', v: [], mv: result.values.map(String) }
        : { a: attr.id, op: 'Replace', v: result.values },
    );
  }

  if (!target) {
    return { decision: { action: 'Provision', changes: desired.filter((c) => c.v.length || c.mv?.length) }, errors };
  }
  // What the object holds once its pending export is done.
  const pending = new Map((target.pending?.changes ?? []).map((c) => [c.a, c]));
  const merged = new Map(pending);
  let added = 0;
  for (const change of desired) {
    const planned = pending.get(change.a);
    const holds = planned ? plannedValues(planned) : (target.values(change.a) ?? []);
    const wants = change.mv ?? change.v;
    if (sameValues(holds, wants)) continue;
    if (!planned && wants.length === 0 && holds.length === 0) continue;
    // A cleared value: RemoveAll on an update; on a create not yet exported the attribute is left out
    // (as when provisioning: a create never carries an attribute without values).
    if (wants.length === 0 && creating) merged.delete(change.a);
    else merged.set(change.a, wants.length === 0 ? { a: change.a, op: 'RemoveAll', v: [] } : change);
    added++;
  }
  if (!added) return { decision: { action: 'None' }, errors };
  return { decision: { action: 'Update', changes: [...merged.values()], added }, errors };
}

function plannedValues(c: AttributeChange): readonly unknown[] {
  if (c.op === 'RemoveAll' || c.op === 'Remove') return [];
  return c.mv ?? c.v;
}
