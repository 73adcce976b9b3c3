import type { AttributeValue, ExportChange } from '@meridian/connectors';
import {
  AttributeChangeOperation,
  AttributeDataType,
  AttributePlurality,
  ConnectorSpaceObjectStatus,
  PendingExportChangeType,
} from '@meridian/domain';
import type { ExportPageRow, ExportReferenceTarget, StoredAttributeChange } from '@meridian/persistence';
import type { SchemaAttribute, SystemSchema } from './system-schema';

/** A reference target in the exporting system: its object and the identifier to write, when it has one yet. */
export interface ResolvedReference {
  csoId: string;
  identifier: string | null;
}

/** What one pending export becomes: the change for the connector and what its object holds once it succeeded. */
export interface PreparedExport {
  row: ExportPageRow;
  objectType: string | null;
  /** The change for the connector; null when nothing is to be sent now. */
  change: ExportChange | null;
  /** An outcome decided without the connector: a failure, or a success with nothing to write. */
  local: { success: true } | { success: false; error: string } | null;
  /** The changes sent, in stored form (reference values as the identifiers sent). */
  sent: StoredAttributeChange[];
  /** Changes held back because their reference targets have no identifier in the system yet. */
  deferred: StoredAttributeChange[];
  deferredValues: number;
  attributesSet: Record<string, unknown[]>;
  attributesUnset: string[];
  referencesSet: Record<string, Array<string | null>>;
  referencesUnset: string[];
  /** The value written to the external ID attribute, if any. */
  externalIdValue: string | null;
  /** The value written to the secondary external ID attribute (e.g. a DN), if any. */
  secondaryExternalId: string | null;
}

const OPERATIONS = new Set<string>(Object.values(AttributeChangeOperation));
const CHANGE_TYPES = new Set<string>(Object.values(PendingExportChangeType));

/** Metaverse object ids referenced by the changes of a page (each once). */
export function referencedMetaverseObjects(rows: readonly ExportPageRow[]): string[] {
  const ids = new Set<string>();
  for (const row of rows) for (const c of row.attributeChanges) for (const id of c.mv ?? []) ids.add(id);
  return [...ids];
}

/**
 * The identifier each reference target has in the exporting system: its secondary external ID when its
 * type has one (e.g. a DN), else its external ID; none while it is still to be provisioned or obsolete.
 */
export function referenceIdentifiers(targets: readonly ExportReferenceTarget[], schema: SystemSchema): Map<string, ResolvedReference> {
  const out = new Map<string, ResolvedReference>();
  for (const t of targets) {
    const usable = t.status === ConnectorSpaceObjectStatus.Normal;
    const identifier = schema.typeById(t.objectTypeId)?.secondaryExternalId ? t.secondaryExternalId : t.externalId;
    out.set(t.metaverseObjectId, { csoId: t.csoId, identifier: usable && identifier ? identifier : null });
  }
  return out;
}

/**
 * Turns one pending export into the change the connector receives (attribute ids → names, references →
 * identifiers in the system), holding back references whose targets have no identifier yet, and works
 * out the values the object holds once the change succeeded.
 */
export function prepareExport(
  row: ExportPageRow,
  schema: SystemSchema,
  references: ReadonlyMap<string, ResolvedReference>,
): PreparedExport {
  const out: PreparedExport = {
    row,
    objectType: null,
    change: null,
    local: null,
    sent: [],
    deferred: [],
    deferredValues: 0,
    attributesSet: {},
    attributesUnset: [],
    referencesSet: {},
    referencesUnset: [],
    externalIdValue: null,
    secondaryExternalId: null,
  };
  const fail = (error: string): PreparedExport => ({ ...out, change: null, local: { success: false, error } });
  const type = schema.typeById(row.objectTypeId);
  if (!type)
    return fail(
      `The object type of this object (id ${row.objectTypeId}) is not selected in the schema of "${schema.system.name}"; select it to export.`,
    );
  out.objectType = type.name;
  if (!CHANGE_TYPES.has(row.changeType)) return fail(`"${row.changeType}" is not a change type (Create, Update or Delete).`);
  const changeType = row.changeType as PendingExportChangeType;

  if (changeType === PendingExportChangeType.Delete) {
    // Never created in the system: there is nothing to delete there.
    if (!row.externalId && row.status === ConnectorSpaceObjectStatus.PendingProvisioning) return { ...out, local: { success: true } };
    return { ...out, change: { id: row.id, objectType: type.name, changeType, externalId: row.externalId, attributes: [] } };
  }

  const state = new ObjectState(row);
  const attributes: ExportChange['attributes'] = [];
  for (const c of row.attributeChanges) {
    const attr = schema.attribute(c.a);
    if (!attr || attr.objectTypeId !== type.id) {
      return fail(
        `Attribute ${c.a} of this export is not a selected attribute of "${type.name}" in "${schema.system.name}"; select it, or synchronise again.`,
      );
    }
    if (!OPERATIONS.has(c.op)) return fail(`"${c.op}" is not an attribute operation (Add, Replace, Remove or RemoveAll).`);
    const op = c.op as AttributeChangeOperation;
    if (attr.type !== AttributeDataType.Reference || !c.mv || op === AttributeChangeOperation.RemoveAll) {
      const values = op === AttributeChangeOperation.RemoveAll ? [] : c.v.map(toAttributeValue);
      attributes.push({ name: attr.name, operation: op, values });
      out.sent.push(c);
      state.apply(
        attr,
        op,
        values.map((v) => ({ v, r: null })),
      );
      continue;
    }
    const resolved: Array<{ v: string; r: string; mv: string }> = [];
    const missing: string[] = [];
    for (const id of c.mv) {
      const target = references.get(id);
      if (target?.identifier) resolved.push({ v: target.identifier, r: target.csoId, mv: id });
      else missing.push(id);
    }
    if (missing.length && op !== AttributeChangeOperation.Remove) {
      // A Replace follows whole (it names the full set); an Add follows with the values held back. A
      // Remove of a value the system cannot hold (its target has no identifier there) has nothing to do.
      out.deferred.push(op === AttributeChangeOperation.Replace ? c : { ...c, v: [], mv: missing });
      out.deferredValues += missing.length;
      if (!resolved.length) continue;
    }
    if (!resolved.length && op !== AttributeChangeOperation.Replace) continue;
    attributes.push({ name: attr.name, operation: op, values: resolved.map((x) => x.v) });
    out.sent.push({ a: c.a, op: c.op, v: resolved.map((x) => x.v), mv: resolved.map((x) => x.mv) });
    state.apply(
      attr,
      op,
      resolved.map((x) => ({ v: x.v, r: x.r })),
    );
  }
  state.writeTo(out);
  if (type.externalId) out.externalIdValue = firstText(out.attributesSet[String(type.externalId.id)]);
  if (type.secondaryExternalId) out.secondaryExternalId = firstText(out.attributesSet[String(type.secondaryExternalId.id)]);

  if (changeType === PendingExportChangeType.Update && !attributes.length) {
    // Everything is held back (it stays pending as it is), or there was nothing to change.
    return out.deferred.length ? out : { ...out, local: { success: true } };
  }
  out.change = { id: row.id, objectType: type.name, changeType, externalId: row.externalId, attributes };
  return out;
}

interface Held {
  v: unknown;
  /** The connector space object a reference value points at. */
  r: string | null;
}

/** The touched attributes of one object as the changes of its export leave them, applied in order. */
class ObjectState {
  private readonly values = new Map<string, { attr: SchemaAttribute; held: Held[] }>();

  constructor(private readonly row: ExportPageRow) {}

  apply(attr: SchemaAttribute, op: AttributeChangeOperation, values: Held[]): void {
    const key = String(attr.id);
    let entry = this.values.get(key);
    if (!entry) {
      const current = this.row.current[key] ?? [];
      const refs = this.row.currentReferences[key] ?? [];
      entry = { attr, held: current.map((v, i) => ({ v, r: refs[i] ?? null })) };
      this.values.set(key, entry);
    }
    const reference = attr.type === AttributeDataType.Reference;
    const keyOf = (h: Held) => valueKey(h.v, reference);
    switch (op) {
      case AttributeChangeOperation.Replace:
        entry.held = dedupe(values, keyOf);
        break;
      case AttributeChangeOperation.Add: {
        if (attr.plurality === AttributePlurality.Single) {
          entry.held = values.slice(0, 1);
          break;
        }
        const present = new Set(entry.held.map(keyOf));
        entry.held = [...entry.held, ...dedupe(values, keyOf).filter((h) => !present.has(keyOf(h)))];
        break;
      }
      case AttributeChangeOperation.Remove: {
        const gone = new Set(values.map(keyOf));
        entry.held = entry.held.filter((h) => !gone.has(keyOf(h)));
        break;
      }
      case AttributeChangeOperation.RemoveAll:
        entry.held = [];
        break;
    }
  }

  writeTo(out: PreparedExport): void {
    for (const [key, { attr, held }] of this.values) {
      const reference = attr.type === AttributeDataType.Reference;
      if (held.length) {
        out.attributesSet[key] = held.map((h) => h.v);
        if (reference) out.referencesSet[key] = held.map((h) => h.r);
      } else {
        out.attributesUnset.push(key);
        if (reference) out.referencesUnset.push(key);
      }
    }
  }
}

function dedupe(values: Held[], keyOf: (h: Held) => string): Held[] {
  const seen = new Set<string>();
  return values.filter((h) => {
    const k = keyOf(h);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Identity of a value for Add/Remove: references (DNs, IDs) ignore case, other values compare as they are. */
function valueKey(v: unknown, reference: boolean): string {
  if (typeof v === 'string') return `s:${reference ? v.toLowerCase() : v}`;
  return `${typeof v}:${JSON.stringify(v)}`;
}

function toAttributeValue(v: unknown): AttributeValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

function firstText(values: unknown[] | undefined): string | null {
  const v = values?.[0];
  return v === null || v === undefined || v === '' ? null : String(v);
}
