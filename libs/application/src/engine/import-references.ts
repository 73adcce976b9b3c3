import { AttributeDataType, ExecutionErrorType, ObjectChangeType, UnresolvedReferenceHandling } from '@meridian/domain';
import { ConnectorSpaceObjectInput, ImportStore, UnresolvedReferences, uuidV7 } from '@meridian/persistence';
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
  const { attributes, targetTypeIds } = referenceSchema(schema);
  const result: ReferenceResolutionResult = { changed: 0, unresolved: 0 };
  if (!attributes.length) return result;
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

/** The reference attributes of the selected types, and the types a reference can point to (those with an external ID). */
function referenceSchema(schema: SystemSchema): {
  attributes: Array<{ attributeId: number; objectTypeId: number }>;
  targetTypeIds: number[];
} {
  return {
    attributes: schema.objectTypes.flatMap((t) =>
      t.attributes.filter((a) => a.type === AttributeDataType.Reference).map((a) => ({ attributeId: a.id, objectTypeId: t.id })),
    ),
    targetTypeIds: schema.objectTypes.filter((t) => t.externalId).map((t) => t.id),
  };
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

/**
 * Resolves the references of new objects as they are written, so that an import whose references name
 * objects it has already met (managers before their reports, groups after their members) does not
 * rewrite every object a second time after its pages. It applies only when one object type can be
 * referred to (the system's only selected type with an external ID: every value then names at most one
 * object) and only to objects whose every reference value names an object that exists already — one of
 * the same page, or one found by a single statement per page. Anything else is left unresolved (NULL),
 * for the resolution after the import, which also decides what the values that match nothing or match
 * by secondary external ID mean. An object referred to this way that the same import later removes (a
 * duplicate undone) or obsoletes is noted as gone, and the objects referring to it are resolved again
 * after the import, as every reference to an obsoleted object is.
 */
export class WriteTimeReferences {
  private constructor(
    private readonly targetTypeId: number,
    private readonly attributesByType: ReadonlyMap<number, readonly number[]>,
  ) {}

  /** Null when the schema has no reference attribute, or more than one type an object can be referred to by. */
  static of(schema: SystemSchema): WriteTimeReferences | null {
    const { attributes, targetTypeIds } = referenceSchema(schema);
    if (targetTypeIds.length !== 1 || !attributes.length) return null;
    const attributesByType = new Map<number, number[]>();
    for (const a of attributes) attributesByType.set(a.objectTypeId, [...(attributesByType.get(a.objectTypeId) ?? []), a.attributeId]);
    return new WriteTimeReferences(targetTypeIds[0], attributesByType);
  }

  /** Gives new objects their ids now and their resolved references where every value resolves. One statement at most. */
  async resolve(store: ImportStore, inserts: readonly ConnectorSpaceObjectInput[]): Promise<void> {
    const inPage = new Map<string, string>();
    const wanted = new Set<string>();
    for (const o of inserts) {
      if (o.objectTypeId === this.targetTypeId) inPage.set(o.externalId, (o.id ??= uuidV7()));
    }
    for (const o of inserts) {
      for (const attributeId of this.attributesByType.get(o.objectTypeId) ?? []) {
        for (const v of o.attributes[String(attributeId)] ?? []) if (!inPage.has(String(v))) wanted.add(String(v));
      }
    }
    const found = await store.idsByExternalId(this.targetTypeId, [...wanted]);
    for (const o of inserts) {
      const attributeIds = this.attributesByType.get(o.objectTypeId);
      if (!attributeIds) continue;
      const resolved: Record<string, string[]> = {};
      let complete = true;
      for (const attributeId of attributeIds) {
        const values = o.attributes[String(attributeId)];
        if (!values?.length) continue;
        const ids = values.map((v) => inPage.get(String(v)) ?? found.get(String(v)));
        if (ids.some((id) => id === undefined)) {
          complete = false;
          break;
        }
        resolved[String(attributeId)] = ids as string[];
      }
      if (complete) o.resolvedReferences = resolved;
    }
  }
}
