import {
  AttributeChangeOperation,
  ConnectorSpaceObjectStatus,
  EngineAttribute,
  ExecutionErrorType,
  normaliseValues,
  ObjectChangeType,
  PendingExportChangeType,
  PendingExportStatus,
  sameValue,
  SyncOutcome,
} from '@meridian/domain';
import type { ExportedPendingExport, ImportStore, PendingExportConfirmationUpdate, StoredAttributeChange } from '@meridian/persistence';
import type { RunContext } from './run-context';
import type { SchemaAttribute, SystemSchema } from './system-schema';

export type ConfirmationResult = 'Confirmed' | 'Retry' | 'Failed';

export interface ConfirmationDecision {
  pendingExport: ExportedPendingExport;
  result: ConfirmationResult;
  /** The staged changes the connector space does not show yet. */
  unconfirmed: StoredAttributeChange[];
  attempts: number;
}

export interface ConfirmationPlan {
  remove: string[];
  updates: PendingExportConfirmationUpdate[];
  decisions: ConfirmationDecision[];
}

/** One value as the synchronisation normalises it (text trimmed, whitespace-only is no value); null: no value. */
function normalised(value: unknown, attribute: EngineAttribute): unknown {
  const result = normaliseValues([value], attribute);
  if (result.ok) return result.values[0] ?? null;
  return typeof value === 'string' ? value.trim() || null : value;
}

/**
 * Whether the values an object holds now show one staged change (DOMAIN.md §2.1 rule 6): `Add` values
 * present, `Replace` the same set of values, `Remove` values absent, `RemoveAll` no value. Values compare
 * as the synchronisation compares them (normalised, multi-valued as sets); a reference also matches
 * the object its raw value resolved to. A reference the export could not write yet (still a metaverse
 * id) is not confirmed.
 */
export function changeConfirmed(
  change: StoredAttributeChange,
  attribute: SchemaAttribute,
  held: readonly unknown[],
  resolved: ReadonlyArray<string | null>,
): boolean {
  if (change.mv?.length && change.v.length < change.mv.length) return false;
  const engineAttribute: EngineAttribute = { id: attribute.id, name: attribute.name, type: attribute.type, plurality: attribute.plurality };
  const positions = held
    .map((raw, i) => ({ raw: normalised(raw, engineAttribute), id: resolved[i] ?? null }))
    .filter((p) => p.raw !== null);
  const staged = change.v.map((v) => normalised(v, engineAttribute)).filter((v) => v !== null);
  const matches = (p: { raw: unknown; id: string | null }, v: unknown) => sameValue(p.raw, v) || (p.id !== null && sameValue(p.id, v));
  const present = (v: unknown) => positions.some((p) => matches(p, v));
  switch (change.op) {
    case AttributeChangeOperation.Add:
      return staged.every(present);
    case AttributeChangeOperation.Replace:
      return staged.every(present) && positions.every((p) => staged.some((v) => matches(p, v)));
    case AttributeChangeOperation.Remove:
      return !staged.some(present);
    case AttributeChangeOperation.RemoveAll:
      return positions.length === 0;
    default:
      return false;
  }
}

/**
 * The staged changes of an exported pending export that the connector space does not show yet, or
 * null when everything is confirmed. A `Delete` is confirmed when the object is gone from the source
 * (`Obsolete`); a `Create` or `Update` needs the object present (`Normal`) and every change shown.
 * Changes to attributes the import does not read (not selected) cannot be checked and count as confirmed.
 */
export function unconfirmedChanges(pe: ExportedPendingExport, schema: SystemSchema): StoredAttributeChange[] | null {
  if (pe.changeType === PendingExportChangeType.Delete) return pe.csoStatus === ConnectorSpaceObjectStatus.Obsolete ? null : pe.changes;
  if (pe.csoStatus !== ConnectorSpaceObjectStatus.Normal) return pe.changes;
  const missing = pe.changes.filter((change) => {
    const attribute = schema.attribute(change.a);
    if (!attribute) return false;
    return !changeConfirmed(change, attribute, pe.values[String(change.a)] ?? [], pe.resolvedReferences[String(change.a)] ?? []);
  });
  return missing.length ? missing : null;
}

/**
 * What to do with a page of exported pending exports: confirmed ones are removed; the others keep
 * only their unconfirmed changes and go back to `Pending` with one more confirmation attempt, or
 * become `Failed` once the attempts reach `maxRetries`. An object may have one unexported export only:
 * when it has one already (newer, staged by a synchronisation since), the unconfirmed changes merge into
 * it for the attributes it does not touch, and the exported one is removed.
 */
export function planConfirmations(page: readonly ExportedPendingExport[], schema: SystemSchema, maxRetries: number): ConfirmationPlan {
  const plan: ConfirmationPlan = { remove: [], updates: [], decisions: [] };
  const open = new Map<string, PendingExportConfirmationUpdate>();
  for (const pe of page) {
    const missing = unconfirmedChanges(pe, schema);
    const attempts = pe.confirmationAttempts + 1;
    if (!missing) {
      plan.remove.push(pe.id);
      plan.decisions.push({ pendingExport: pe, result: 'Confirmed', unconfirmed: [], attempts: pe.confirmationAttempts });
      continue;
    }
    const lastError = describeUnconfirmed(pe, missing, schema, attempts);
    if (attempts >= maxRetries) {
      plan.updates.push({ id: pe.id, status: PendingExportStatus.Failed, changes: missing, confirmationAttempts: attempts, lastError });
      plan.decisions.push({ pendingExport: pe, result: 'Failed', unconfirmed: missing, attempts });
      continue;
    }
    let target = open.get(pe.csoId);
    if (!target && pe.openId) {
      target = { id: pe.openId, status: null, changes: pe.openChanges ?? [], confirmationAttempts: null, lastError: null };
      open.set(pe.csoId, target);
      plan.updates.push(target);
    }
    if (target) {
      const touched = new Set(target.changes.map((c) => c.a));
      target.changes = [...target.changes, ...missing.filter((c) => !touched.has(c.a))];
      plan.remove.push(pe.id);
    } else {
      const update: PendingExportConfirmationUpdate = {
        id: pe.id,
        status: PendingExportStatus.Pending,
        changes: missing,
        confirmationAttempts: attempts,
        lastError,
      };
      open.set(pe.csoId, update);
      plan.updates.push(update);
    }
    plan.decisions.push({ pendingExport: pe, result: 'Retry', unconfirmed: missing, attempts });
  }
  return plan;
}

function describeUnconfirmed(
  pe: ExportedPendingExport,
  missing: readonly StoredAttributeChange[],
  schema: SystemSchema,
  attempts: number,
): string {
  if (pe.changeType === PendingExportChangeType.Delete) return `Import ${attempts} still found the object deleted by the export.`;
  if (pe.csoStatus !== ConnectorSpaceObjectStatus.Normal) return `Import ${attempts} did not find the exported object.`;
  const names = missing.map((c) => `"${schema.attribute(c.a)?.name ?? c.a}"`).join(', ');
  return `Import ${attempts} does not show the exported value(s) of ${names}.`;
}

/**
 * The confirming import (DOMAIN.md §2.1 rule 6): every `Exported` pending export of the system, a page
 * at a time (keyset on id), compared with what the import left in the connector space; each page's
 * decisions are written in one transaction (two statements).
 */
export async function confirmExports(ctx: RunContext, store: ImportStore, schema: SystemSchema, maxRetries: number): Promise<number> {
  let after: string | null = null;
  let confirmed = 0;
  for (;;) {
    const page = await store.exportedPendingExports(after, ctx.info.pageSize);
    if (!page.length) break;
    const plan = planConfirmations(page, schema, maxRetries);
    await ctx.session.transaction(() => store.applyConfirmations(plan.remove, plan.updates), 'page');
    for (const d of plan.decisions) {
      const pe = d.pendingExport;
      const about = {
        externalIdValue: pe.externalId,
        displayName: pe.displayName,
        objectType: schema.typeById(pe.objectTypeId)?.name ?? null,
        connectedSystemObjectId: pe.csoId,
      };
      if (d.result === 'Confirmed') {
        confirmed++;
        ctx.item({ ...about, objectChangeType: ObjectChangeType.NoChange, outcomes: { [SyncOutcome.ExportConfirmed]: 1 } });
      } else if (d.result === 'Failed') {
        ctx.error(
          ExecutionErrorType.ExportNotConfirmed,
          `${describeUnconfirmed(pe, d.unconfirmed, schema, d.attempts)} The export was not confirmed after ${d.attempts} import(s) and is marked Failed.`,
          about,
        );
      } else {
        ctx.item({
          ...about,
          objectChangeType: ObjectChangeType.NoChange,
          errorMessage: `${describeUnconfirmed(pe, d.unconfirmed, schema, d.attempts)} The change(s) go back to be exported again (confirmation attempt ${d.attempts} of ${maxRetries}).`,
        });
      }
    }
    after = page[page.length - 1].id;
    await ctx.pageDone(0);
    if (page.length < ctx.info.pageSize) break;
  }
  return confirmed;
}
