import { AttributeDataType, ExecutionErrorType, ObjectChangeType, UnresolvedReferenceHandling } from '@meridian/domain';
import type { ImportStore, UnresolvedReferences } from '@meridian/persistence';
import type { RunContext } from './run-context';
import type { SystemSchema } from './system-schema';

export interface ReferenceResolutionResult {
  /** Objects whose resolved references changed (flagged for synchronisation). */
  changed: number;
  /** Objects left with at least one unresolved reference value. */
  unresolved: number;
}

/**
 * Resolves reference values after the objects are written (DOMAIN.md §2.1 rule 5), set-based in
 * keyset batches of the page size; see ImportStore.resolveReferences. An unresolved value is handled
 * per the system's setting: `Error` → an `UnresolvedReference` error item; `Warn` → an item without
 * error type (outcome `UnresolvedReference:<values>`) and one run warning; `Ignore` → nothing. The
 * value stays unresolved (null) and is tried again by every later import.
 */
export async function resolveImportReferences(
  ctx: RunContext,
  store: ImportStore,
  schema: SystemSchema,
  setting: string,
): Promise<ReferenceResolutionResult> {
  const handling =
    setting === UnresolvedReferenceHandling.Error || setting === UnresolvedReferenceHandling.Ignore
      ? setting
      : UnresolvedReferenceHandling.Warn;
  const attributes = schema.objectTypes.flatMap((t) =>
    t.attributes.filter((a) => a.type === AttributeDataType.Reference).map((a) => ({ attributeId: a.id, objectTypeId: t.id })),
  );
  const result: ReferenceResolutionResult = { changed: 0, unresolved: 0 };
  if (!attributes.length) return result;
  const targetTypeIds = schema.objectTypes.filter((t) => t.externalId).map((t) => t.id);
  await store.collectReferenceCandidates([...new Set(attributes.map((a) => a.objectTypeId))]);
  let after: string | null = null;
  for (;;) {
    const batch = await store.resolveReferences(attributes, targetTypeIds, after, ctx.info.pageSize);
    if (batch.last === null) break;
    result.changed += batch.changed;
    result.unresolved += batch.unresolved.length;
    if (handling !== UnresolvedReferenceHandling.Ignore) for (const u of batch.unresolved) report(ctx, schema, u, handling);
    after = batch.last;
    await ctx.pageDone(0);
  }
  if (result.unresolved && handling === UnresolvedReferenceHandling.Warn) {
    ctx.warn(
      `${result.unresolved} object(s) of "${schema.system.name}" have reference values that match no object of the system (or several); ` +
        'they stay unresolved until the objects they name are imported. See the execution items.',
    );
  }
  return result;
}

function report(ctx: RunContext, schema: SystemSchema, u: UnresolvedReferences, handling: UnresolvedReferenceHandling): void {
  const shown = u.examples.map((e) => `${schema.attribute(e.attributeId)?.name ?? e.attributeId} = "${e.value}"`).join(', ');
  const more = u.count > u.examples.length ? ` and ${u.count - u.examples.length} more` : '';
  const why = u.ambiguous ? 'match no object, or more than one object, of this system' : 'match no object of this system';
  const message = `Reference value${u.count === 1 ? '' : 's'} ${shown}${more} ${why}; left unresolved.`;
  const about = {
    externalIdValue: u.externalId,
    displayName: u.displayName,
    objectType: schema.typeById(u.objectTypeId)?.name ?? null,
    connectedSystemObjectId: u.id,
  };
  if (handling === UnresolvedReferenceHandling.Error) ctx.error(ExecutionErrorType.UnresolvedReference, message, about);
  else
    ctx.item({
      ...about,
      objectChangeType: ObjectChangeType.NoChange,
      errorMessage: message,
      outcomes: { [ExecutionErrorType.UnresolvedReference]: u.count },
    });
}
