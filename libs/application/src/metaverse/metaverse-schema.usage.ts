import { builtInObjectTypesOf, compileExpression } from '@meridian/domain';
import { MetaverseSchemaStore, NamedRef } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

export type SyncRuleRef = NamedRef;

/**
 * Sync rules that use a metaverse attribute by id: as a mapping target or source, in a matching rule,
 * or in the scoping criteria of an export rule. Limited to rules of one metaverse object type when
 * `objectTypeId` is given.
 */
export function syncRulesReferencingAttribute(m: EntityManager, attributeId: number, objectTypeId?: number): Promise<SyncRuleRef[]> {
  return new MetaverseSchemaStore(m).syncRulesReferencingAttribute(attributeId, objectTypeId);
}

/** Sync rules whose mapping expressions name the attribute (`mv["Name"]`, compared ignoring case). */
export async function syncRulesNamingAttribute(m: EntityManager, name: string, objectTypeId?: number): Promise<SyncRuleRef[]> {
  const candidates = await new MetaverseSchemaStore(m).mappingExpressionsContaining(name, objectTypeId);
  const lower = name.toLowerCase();
  const found = new Map<number, SyncRuleRef>();
  for (const c of candidates) {
    if (found.has(c.id)) continue;
    const compiled = compileExpression(c.expression);
    if (compiled.ok && compiled.expression.references.some((ref) => ref.source === 'mv' && ref.name.toLowerCase() === lower))
      found.set(c.id, { id: c.id, name: c.name });
  }
  return [...found.values()];
}

/** Every sync rule that uses the attribute, by id or by name in an expression. */
export async function syncRulesUsingAttribute(
  m: EntityManager,
  attr: { id: number; name: string },
  objectTypeId?: number,
): Promise<SyncRuleRef[]> {
  const byId = new Map((await syncRulesReferencingAttribute(m, attr.id, objectTypeId)).map((r) => [r.id, r]));
  for (const r of await syncRulesNamingAttribute(m, attr.name, objectTypeId)) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** Whether any metaverse object (of one type, when given) holds a value for the attribute. */
export function attributeHasValues(m: EntityManager, attributeId: number, objectTypeId?: number): Promise<boolean> {
  return new MetaverseSchemaStore(m).attributeHasValues(attributeId, objectTypeId);
}

const names = (rules: SyncRuleRef[]) => rules.map((r) => `"${r.name}"`).join(', ');

/**
 * Why an attribute cannot be taken off an object type, or null: the seeded links of the built-in
 * schema stay, and a link is kept while objects of the type hold values for the attribute or sync
 * rules of the type use it.
 */
export async function detachProblem(
  m: EntityManager,
  attr: { id: number; name: string; isBuiltIn: boolean },
  type: { id: number; name: string; isBuiltIn: boolean },
): Promise<string | null> {
  if (attr.isBuiltIn && type.isBuiltIn && builtInObjectTypesOf(attr.name).includes(type.name)) {
    return `${attr.name} is part of the built-in ${type.name} schema and cannot be taken off it.`;
  }
  if (await attributeHasValues(m, attr.id, type.id))
    return `${type.name} objects hold values for ${attr.name}; it cannot be taken off ${type.name}.`;
  const rules = await syncRulesUsingAttribute(m, attr, type.id);
  if (rules.length) return `${attr.name} is used by sync rule(s) ${names(rules)} of ${type.name}; it cannot be taken off ${type.name}.`;
  return null;
}

export function describeRules(rules: SyncRuleRef[]): string {
  return names(rules);
}
