import { CsoChangeType, StoredAttributeDelta } from '@meridian/domain';
import type { ConnectorSpaceChange, ConnectorSpaceObjectInput, CsoChangeRow } from '@meridian/persistence';
import { importKey } from './import-page';

/**
 * The attribute changes of an object that did not exist before: every attribute with values, from none
 * to its values, in attribute id order (what meridian_attribute_delta('{}', values) gives in SQL), leaving
 * out the attributes in `except`. One pass: integer keys already enumerate in ascending order, so the
 * sort only runs for a document whose keys are not all attribute ids.
 */
export function addedAttributeChanges(
  values: Readonly<Record<string, readonly unknown[]>>,
  except?: ReadonlySet<string>,
): StoredAttributeDelta[] {
  const out: StoredAttributeDelta[] = [];
  let previous = -Infinity;
  let ordered = true;
  for (const key of Object.keys(values)) {
    const list = values[key];
    if (!list.length || except?.has(key)) continue;
    const a = Number(key);
    if (!(a > previous)) ordered = false;
    previous = a;
    out.push({ a, o: [], n: list.slice() });
  }
  if (!ordered) out.sort((x, y) => x.a - y.a);
  return out;
}

/**
 * The `Added` change records of the objects a page inserted: `inserts` as planned, `changes` as the
 * connector-space writer reported them (the ids it gave the new objects).
 */
export function addedRecords(inserts: readonly ConnectorSpaceObjectInput[], changes: readonly ConnectorSpaceChange[]): CsoChangeRow[] {
  const ids = new Map(changes.filter((c) => c.inserted).map((c) => [importKey(c.objectTypeId, c.externalId), c.id]));
  const rows: CsoChangeRow[] = [];
  for (const o of inserts) {
    const id = ids.get(importKey(o.objectTypeId, o.externalId));
    if (!id) continue;
    rows.push({
      connectedSystemId: o.connectedSystemId,
      connectedSystemObjectId: id,
      objectTypeId: o.objectTypeId,
      externalId: o.externalId,
      displayName: o.displayName ?? null,
      changeType: CsoChangeType.Added,
      attributeChanges: addedAttributeChanges(o.attributes),
    });
  }
  return rows;
}
