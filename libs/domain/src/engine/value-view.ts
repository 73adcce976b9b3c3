import { AttributeDataType } from '../metaverse/metaverse-types';
import { parseDateTime } from '../common/date-time';
import type { AttributeLookup } from '../expressions';
import type { EngineAttribute, StoredConnectorAttributes, StoredMetaverseAttributes } from './sync-model';

/**
 * One object's values as both scoping (by attribute id) and expressions (by name, case-insensitively)
 * read them, built once per object: DateTime values are Dates for expressions, single-valued
 * attributes scalars, multi-valued ones lists.
 */
export class ValueView {
  private readonly byName: Map<string, EngineAttribute>;

  constructor(
    private readonly values: (attributeId: number) => readonly unknown[] | undefined,
    private readonly attributes: ReadonlyMap<number, EngineAttribute>,
    byName?: Map<string, EngineAttribute>,
  ) {
    this.byName = byName ?? new Map([...attributes.values()].map((a) => [a.name.toLowerCase(), a]));
  }

  /** A connector space object's values (`{ "<attributeId>": [values] }`). */
  static ofConnectorObject(
    attributes: StoredConnectorAttributes,
    schema: ReadonlyMap<number, EngineAttribute>,
    byName?: Map<string, EngineAttribute>,
  ): ValueView {
    return new ValueView((id) => attributes[String(id)], schema, byName);
  }

  /** A metaverse object's values (`{ "<attributeId>": [{ v, s }] }`). */
  static ofMetaverseObject(
    attributes: StoredMetaverseAttributes,
    schema: ReadonlyMap<number, EngineAttribute>,
    byName?: Map<string, EngineAttribute>,
  ): ValueView {
    return new ValueView((id) => attributes[String(id)]?.map((x) => x.v), schema, byName);
  }

  /** The stored values of an attribute (empty when absent). */
  list(attributeId: number): readonly unknown[] {
    return this.values(attributeId) ?? [];
  }

  /** For scoping: a scalar for single-valued attributes, the list otherwise, undefined when absent. */
  readonly scoping = (attributeId: number): unknown => {
    const list = this.values(attributeId);
    if (!list || list.length === 0) return undefined;
    const attr = this.attributes.get(attributeId);
    return attr?.plurality === 'Multi' ? list : list[0];
  };

  /** For expressions (`cs["name"]` / `mv["name"]`): null when absent; DateTime values as Dates. */
  readonly expression: AttributeLookup = (name: string): unknown => {
    const attr = this.byName.get(name.toLowerCase());
    if (!attr) return null;
    const list = this.values(attr.id);
    if (!list || list.length === 0) return null;
    const convert = attr.type === AttributeDataType.DateTime ? toDate : (v: unknown) => v;
    return attr.plurality === 'Multi' ? list.map(convert) : convert(list[0]);
  };
}

function toDate(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  return parseDateTime(v) ?? v;
}
