import { normaliseValues } from './flow-values';
import type { EngineAttribute, MatchingRuleDef } from './sync-model';

/**
 * The candidate values of a matching rule for one connector space object: the values of all its
 * source attributes as text (numbers and dates in their stored text form), empty ones dropped.
 * Lookups compare lower-cased values; a case-sensitive rule re-checks the exact text afterwards.
 */
export function matchingValues(
  rule: MatchingRuleDef,
  values: (attributeId: number) => readonly unknown[],
  attributes: ReadonlyMap<number, EngineAttribute>,
): string[] {
  const out: string[] = [];
  for (const id of rule.csAttributeIds) {
    const attr = attributes.get(id);
    if (!attr) continue;
    const normalised = normaliseValues(values(id), attr);
    if (!normalised.ok) continue;
    for (const v of normalised.values) {
      const text = String(v);
      if (!out.includes(text)) out.push(text);
    }
  }
  return out;
}
