/**
 * Schema import: what changes when a connector's discovered schema meets the stored one. Names match
 * case-insensitively. New types and attributes arrive unselected (except connector-suggested external
 * IDs, see below); existing ones keep every administrator choice; ones that disappeared are flagged
 * `presentInSchema = false`, never deleted, so selections and sync rules survive a transient change.
 */

export interface StoredSchemaAttribute {
  id: number;
  name: string;
  type: string;
  plurality: string;
  writability: string;
  description: string | null;
  className: string | null;
  presentInSchema: boolean;
  selected: boolean;
  isExternalId: boolean;
  isSecondaryExternalId: boolean;
}

export interface StoredSchemaObjectType {
  id: number;
  name: string;
  selected: boolean;
  presentInSchema: boolean;
  attributes: StoredSchemaAttribute[];
}

export interface DiscoveredSchemaAttribute {
  name: string;
  type: string;
  plurality: string;
  writability: string;
  description?: string | null;
  className?: string | null;
  suggestedExternalId?: boolean;
  suggestedSecondaryExternalId?: boolean;
}

export interface DiscoveredSchemaObjectType {
  name: string;
  attributes: DiscoveredSchemaAttribute[];
}

export interface NewSchemaAttribute {
  name: string;
  type: string;
  plurality: string;
  writability: string;
  description: string | null;
  className: string | null;
  selected: boolean;
  isExternalId: boolean;
  isSecondaryExternalId: boolean;
}

/** Connector-owned fields of an attribute that a re-import refreshes. */
export type AttributeSchemaChanges = Partial<
  Pick<StoredSchemaAttribute, 'name' | 'type' | 'plurality' | 'writability' | 'description' | 'className' | 'presentInSchema'>
>;

export interface SchemaDiff {
  objectTypesToAdd: Array<{ name: string; attributes: NewSchemaAttribute[] }>;
  attributesToAdd: Array<{ objectTypeId: number; objectType: string; attribute: NewSchemaAttribute }>;
  objectTypeUpdates: Array<{ id: number; changes: { name?: string; presentInSchema?: boolean } }>;
  attributeUpdates: Array<{ id: number; objectType: string; attribute: string; changes: AttributeSchemaChanges }>;
  /** Reported to the administrator (names as stored). */
  objectTypesRemoved: string[];
  attributesRemoved: Array<{ objectType: string; attribute: string }>;
  objectTypesRestored: string[];
  attributesRestored: Array<{ objectType: string; attribute: string }>;
  /** Attributes whose connector-owned definition (type, plurality, writability, …) changed. */
  attributesChanged: Array<{ objectType: string; attribute: string; fields: string[] }>;
  warnings: string[];
  /** True when something selected for synchronisation changed, so the next sync must be a full one. */
  affectsSelection: boolean;
}

const key = (name: string) => name.toLowerCase();

/** Drops case-insensitive duplicates (first wins) and reports them. */
function unique<T extends { name: string }>(items: readonly T[], what: (name: string) => string, warnings: string[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    if (seen.has(key(item.name))) {
      warnings.push(`${what(item.name)} was reported twice by the connector; the first definition was used.`);
      continue;
    }
    seen.add(key(item.name));
    out.push(item);
  }
  return out;
}

/**
 * Applies the connector's external ID suggestions to new attributes: only the first suggested
 * attribute, and only when the object type has no external ID (resp. secondary external ID) yet.
 */
function newAttributes(
  discovered: DiscoveredSchemaAttribute[],
  hasExternalId: boolean,
  hasSecondaryExternalId: boolean,
): NewSchemaAttribute[] {
  let externalIdTaken = hasExternalId;
  let secondaryTaken = hasSecondaryExternalId;
  return discovered.map((a) => {
    const isExternalId = !externalIdTaken && !!a.suggestedExternalId;
    if (isExternalId) externalIdTaken = true;
    const isSecondaryExternalId = !isExternalId && !secondaryTaken && !!a.suggestedSecondaryExternalId;
    if (isSecondaryExternalId) secondaryTaken = true;
    return {
      name: a.name,
      type: a.type,
      plurality: a.plurality,
      writability: a.writability,
      description: a.description ?? null,
      className: a.className ?? null,
      selected: isExternalId || isSecondaryExternalId,
      isExternalId,
      isSecondaryExternalId,
    };
  });
}

function attributeChanges(stored: StoredSchemaAttribute, found: DiscoveredSchemaAttribute): AttributeSchemaChanges {
  const changes: AttributeSchemaChanges = {};
  if (stored.name !== found.name) changes.name = found.name;
  if (stored.type !== found.type) changes.type = found.type;
  if (stored.plurality !== found.plurality) changes.plurality = found.plurality;
  if (stored.writability !== found.writability) changes.writability = found.writability;
  if ((found.description ?? null) !== stored.description) changes.description = found.description ?? null;
  if ((found.className ?? null) !== stored.className) changes.className = found.className ?? null;
  if (!stored.presentInSchema) changes.presentInSchema = true;
  return changes;
}

/** Compares the stored schema of a connected system with a freshly discovered one. */
export function diffSchema(stored: readonly StoredSchemaObjectType[], discovered: readonly DiscoveredSchemaObjectType[]): SchemaDiff {
  const diff: SchemaDiff = {
    objectTypesToAdd: [],
    attributesToAdd: [],
    objectTypeUpdates: [],
    attributeUpdates: [],
    objectTypesRemoved: [],
    attributesRemoved: [],
    objectTypesRestored: [],
    attributesRestored: [],
    attributesChanged: [],
    warnings: [],
    affectsSelection: false,
  };
  const types = unique(discovered, (n) => `Object type "${n}"`, diff.warnings);
  if (!types.length)
    diff.warnings.push('The connector reported no object types; existing ones are kept and flagged as no longer in the schema.');
  const storedByName = new Map(stored.map((t) => [key(t.name), t]));
  const discoveredNames = new Set(types.map((t) => key(t.name)));

  for (const type of types) {
    const attributes = unique(type.attributes, (n) => `Attribute "${n}" of "${type.name}"`, diff.warnings);
    const existing = storedByName.get(key(type.name));
    if (!existing) {
      diff.objectTypesToAdd.push({ name: type.name, attributes: newAttributes(attributes, false, false) });
      continue;
    }
    const typeChanges: { name?: string; presentInSchema?: boolean } = {};
    if (existing.name !== type.name) typeChanges.name = type.name;
    if (!existing.presentInSchema) {
      typeChanges.presentInSchema = true;
      diff.objectTypesRestored.push(existing.name);
      if (existing.selected) diff.affectsSelection = true;
    }
    if (Object.keys(typeChanges).length) diff.objectTypeUpdates.push({ id: existing.id, changes: typeChanges });

    const storedAttributes = new Map(existing.attributes.map((a) => [key(a.name), a]));
    const foundNames = new Set(attributes.map((a) => key(a.name)));
    const added = attributes.filter((a) => !storedAttributes.has(key(a.name)));
    const fresh = newAttributes(
      added,
      existing.attributes.some((a) => a.isExternalId),
      existing.attributes.some((a) => a.isSecondaryExternalId),
    );
    for (const attribute of fresh) {
      diff.attributesToAdd.push({ objectTypeId: existing.id, objectType: type.name, attribute });
      if (existing.selected && attribute.selected) diff.affectsSelection = true;
    }
    for (const found of attributes) {
      const current = storedAttributes.get(key(found.name));
      if (!current) continue;
      const changes = attributeChanges(current, found);
      if (!Object.keys(changes).length) continue;
      diff.attributeUpdates.push({ id: current.id, objectType: type.name, attribute: found.name, changes });
      if (changes.presentInSchema) diff.attributesRestored.push({ objectType: type.name, attribute: found.name });
      const fields = Object.keys(changes).filter((f) => f !== 'presentInSchema' && f !== 'name');
      if (fields.length) diff.attributesChanged.push({ objectType: type.name, attribute: found.name, fields });
      if (existing.selected && current.selected && (changes.presentInSchema || changes.type || changes.plurality))
        diff.affectsSelection = true;
    }
    for (const current of existing.attributes) {
      if (foundNames.has(key(current.name)) || !current.presentInSchema) continue;
      diff.attributeUpdates.push({
        id: current.id,
        objectType: existing.name,
        attribute: current.name,
        changes: { presentInSchema: false },
      });
      diff.attributesRemoved.push({ objectType: existing.name, attribute: current.name });
      if (existing.selected && current.selected) diff.affectsSelection = true;
    }
  }

  for (const existing of stored) {
    if (discoveredNames.has(key(existing.name)) || !existing.presentInSchema) continue;
    diff.objectTypeUpdates.push({ id: existing.id, changes: { presentInSchema: false } });
    diff.objectTypesRemoved.push(existing.name);
    if (existing.selected) diff.affectsSelection = true;
  }
  return diff;
}
