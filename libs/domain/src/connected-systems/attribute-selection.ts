/**
 * Selection and external ID rules for the attributes of one connected-system object type
 * (spec 4.9 rules 1 and 2, plus Meridian's decisions for what the spec leaves open):
 *
 * 1. Setting `isExternalId` on an attribute clears it from every other attribute of the type.
 *    The same holds for `isSecondaryExternalId`: a type has at most one secondary external ID.
 * 2. External ID and secondary external ID attributes are selected automatically and cannot be
 *    deselected (clearing the flag and deselecting in the same update is allowed).
 * 3. One attribute cannot be both the external ID and the secondary external ID.
 * 4. In one request, only one attribute may set `isExternalId: true` (likewise secondary); later
 *    ones (ascending attribute id) are refused.
 *
 * A refused update is refused as a whole for that attribute; the others still apply.
 */

export interface AttributeSelectionState {
  id: number;
  name: string;
  selected: boolean;
  isExternalId: boolean;
  isSecondaryExternalId: boolean;
}

export interface AttributeSelectionUpdate {
  selected?: boolean;
  isExternalId?: boolean;
  isSecondaryExternalId?: boolean;
}

export type AttributeSelectionField = keyof AttributeSelectionUpdate;

export interface AttributeSelectionError {
  attributeId: number;
  field: AttributeSelectionField;
  message: string;
}

export interface AttributeSelectionPlan {
  /** Ids of the requested attributes whose update was applied. */
  applied: number[];
  /** Resulting state of every attribute that was applied or changed as a side effect, by ascending id. */
  affected: AttributeSelectionState[];
  /** Attributes whose stored state changes (subset of affected). */
  changed: AttributeSelectionState[];
  errors: AttributeSelectionError[];
}

/** `selectionLocked` of spec 2.11: the attribute is an external ID and cannot be deselected. */
export function isSelectionLocked(a: Pick<AttributeSelectionState, 'isExternalId' | 'isSecondaryExternalId'>): boolean {
  return a.isExternalId || a.isSecondaryExternalId;
}

type Entry = { id: number; update: AttributeSelectionUpdate };

function finalStates(attributes: readonly AttributeSelectionState[], active: readonly Entry[]): Map<number, AttributeSelectionState> {
  const byId = new Map(active.map((e) => [e.id, e.update]));
  const externalIdHolder = active.find((e) => e.update.isExternalId === true)?.id;
  const secondaryHolder = active.find((e) => e.update.isSecondaryExternalId === true)?.id;
  const out = new Map<number, AttributeSelectionState>();
  for (const a of attributes) {
    const u = byId.get(a.id);
    const isExternalId = u?.isExternalId ?? (externalIdHolder !== undefined && externalIdHolder !== a.id ? false : a.isExternalId);
    const isSecondaryExternalId =
      u?.isSecondaryExternalId ?? (secondaryHolder !== undefined && secondaryHolder !== a.id ? false : a.isSecondaryExternalId);
    const selected = isExternalId || isSecondaryExternalId ? true : (u?.selected ?? a.selected);
    out.set(a.id, { id: a.id, name: a.name, selected, isExternalId, isSecondaryExternalId });
  }
  return out;
}

/**
 * Plans selection/external-ID updates for attributes of one object type. `attributes` is every
 * attribute of the type; every id in `updates` must be one of them (callers reject unknown ids).
 */
export function planAttributeSelection(
  attributes: readonly AttributeSelectionState[],
  updates: ReadonlyArray<[number, AttributeSelectionUpdate]>,
): AttributeSelectionPlan {
  const names = new Map(attributes.map((a) => [a.id, a.name]));
  const errors: AttributeSelectionError[] = [];
  let active: Entry[] = [...updates].map(([id, update]) => ({ id, update })).sort((a, b) => a.id - b.id);

  for (const field of ['isExternalId', 'isSecondaryExternalId'] as const) {
    const setters = active.filter((e) => e.update[field] === true);
    const label = field === 'isExternalId' ? 'external ID' : 'secondary external ID';
    for (const extra of setters.slice(1)) {
      errors.push({
        attributeId: extra.id,
        field,
        message: `Only one attribute of an object type can be the ${label}; this request already sets "${names.get(setters[0].id)}" (${setters[0].id}).`,
      });
    }
    const refused = new Set(setters.slice(1).map((e) => e.id));
    active = active.filter((e) => !refused.has(e.id));
  }

  // Refusing one entry can change the outcome for another (e.g. the new external ID was refused, so
  // deselecting the old one is now a rule 2 violation): re-check until nothing more is refused.
  for (;;) {
    const states = finalStates(attributes, active);
    const refused = new Set<number>();
    for (const e of active) {
      const s = states.get(e.id)!;
      if (s.isExternalId && s.isSecondaryExternalId) {
        const field = e.update.isSecondaryExternalId === true ? 'isSecondaryExternalId' : 'isExternalId';
        errors.push({ attributeId: e.id, field, message: `"${s.name}" cannot be both the external ID and the secondary external ID.` });
        refused.add(e.id);
      } else if (e.update.selected === false && (s.isExternalId || s.isSecondaryExternalId)) {
        const what = s.isExternalId ? 'the external ID' : 'the secondary external ID';
        errors.push({
          attributeId: e.id,
          field: 'selected',
          message: `"${s.name}" is ${what} of its object type and cannot be deselected; designate another attribute first or clear the flag in the same update.`,
        });
        refused.add(e.id);
      }
    }
    if (!refused.size) break;
    active = active.filter((e) => !refused.has(e.id));
  }

  const states = finalStates(attributes, active);
  const applied = new Set(active.map((e) => e.id));
  const affected: AttributeSelectionState[] = [];
  const changed: AttributeSelectionState[] = [];
  for (const a of [...attributes].sort((x, y) => x.id - y.id)) {
    const s = states.get(a.id)!;
    const differs = s.selected !== a.selected || s.isExternalId !== a.isExternalId || s.isSecondaryExternalId !== a.isSecondaryExternalId;
    if (differs) changed.push(s);
    if (differs || applied.has(a.id)) affected.push(s);
  }
  errors.sort((a, b) => a.attributeId - b.attributeId);
  return { applied: [...applied].sort((a, b) => a - b), affected, changed, errors };
}
