import type { ExpressionContext } from '../expressions';
import { ExecutionErrorType } from './engine.enums';
import { evaluateMapping, sameValue } from './flow-values';
import type { EngineAttribute, ImportRuleDef, InboundMapping, StoredMetaverseAttributes, StoredMetaverseValue } from './sync-model';

/** One connector space object joined to the metaverse object, with the import rules it is in scope of. */
export interface Contributor {
  systemId: number;
  csoId: string;
  /** In-scope import rules of this object for the metaverse object's type (empty: joined but contributes nothing). */
  rules: readonly ImportRuleDef[];
  /** Stored values by attribute id, reference attributes already mapped to metaverse object ids. */
  values(attributeId: number): readonly unknown[];
  /** `cs[…]` for expressions. */
  cs: ExpressionContext['cs'];
}

export interface InboundInput {
  current: StoredMetaverseAttributes;
  attributes: ReadonlyMap<number, EngineAttribute>;
  contributors: readonly Contributor[];
  /** Systems whose object leaves the metaverse object in this run, and whether their values stay (`removeContributedAttributesOnObsoletion` false). */
  leaving?: ReadonlyArray<{ systemId: number; keepValues: boolean }>;
  /** Systems whose joined object is out of scope but stays joined (RemainJoined): their values stay as they are. */
  frozenSystemIds?: readonly number[];
  /** `mv[…]` for expressions: the metaverse object's values before this flow. */
  mv?: ExpressionContext['mv'];
}

export interface InboundError {
  csoId: string;
  errorType: ExecutionErrorType;
  message: string;
}

export interface InboundResult {
  attributes: StoredMetaverseAttributes;
  /** Metaverse attributes whose values changed. */
  changed: number[];
  /** Per contributing connector space object: the number of attributes it changed. */
  flows: Map<string, number>;
  errors: InboundError[];
}

interface Candidate {
  mapping: InboundMapping;
  contributor: Contributor;
  values: unknown[] | null;
}

function byPriority(a: Candidate, b: Candidate): number {
  const pa = a.mapping.priority ?? Number.MAX_SAFE_INTEGER;
  const pb = b.mapping.priority ?? Number.MAX_SAFE_INTEGER;
  return pa - pb || a.mapping.id - b.mapping.id;
}

/**
 * The metaverse object's values from everything joined to it (DOMAIN.md §2.2 rules 5-7): every mapping
 * of every in-scope rule of every joined object computes its values; per attribute, the contributor with
 * the best priority that has a value (or asserts emptiness with `nullIsValue`) wins; with no contributor
 * left the value goes — unless the leaving system keeps its values. Values set through the API on
 * attributes no rule maps stay. Deterministic: the same joins and values always give the same result,
 * so re-election after a disconnection happens in the same run.
 */
export function computeMetaverseAttributes(input: InboundInput): InboundResult {
  const errors: InboundError[] = [];
  const candidates = new Map<number, Candidate[]>();
  for (const contributor of input.contributors) {
    const flowInput = { values: (id: number) => contributor.values(id), context: { cs: contributor.cs, mv: input.mv } };
    for (const rule of contributor.rules) {
      for (const mapping of rule.mappings) {
        const target = input.attributes.get(mapping.targetAttributeId);
        if (!target) continue;
        const result = evaluateMapping(mapping.sources, flowInput, target);
        if (!result.ok) errors.push({ csoId: contributor.csoId, errorType: result.errorType, message: result.message });
        const list = candidates.get(target.id) ?? [];
        list.push({ mapping, contributor, values: result.ok ? result.values : null });
        candidates.set(target.id, list);
      }
    }
  }

  // Systems whose values stay without flowing: leaving ones that keep their values, and joined objects
  // out of scope with RemainJoined (kept joined without attribute flow).
  const keepers = new Set([...(input.leaving ?? []).filter((l) => l.keepValues).map((l) => l.systemId), ...(input.frozenSystemIds ?? [])]);
  // Systems whose values go now: leaving ones that recall their values. Values of a system that is no
  // longer joined and is not leaving now stayed when it left (it kept them): they stay until another
  // contributor takes over.
  const recalled = new Set((input.leaving ?? []).filter((l) => !l.keepValues).map((l) => l.systemId));
  const joined = new Set(input.contributors.map((c) => c.systemId));
  const stays = (x: StoredMetaverseValue) => x.s !== null && (keepers.has(x.s) || (!joined.has(x.s) && !recalled.has(x.s)));
  const out: StoredMetaverseAttributes = {};
  const changed: number[] = [];
  const flows = new Map<string, number>();
  const attributeIds = new Set<number>([...Object.keys(input.current).map(Number), ...candidates.keys()]);

  for (const id of attributeIds) {
    const current = input.current[String(id)] ?? [];
    const group = candidates.get(id);
    let next: StoredMetaverseValue[];
    let winner: Candidate | undefined;
    if (group) {
      group.sort(byPriority);
      const chosen = group.find((c) => c.values === null || c.values.length > 0 || c.mapping.nullIsValue);
      if (chosen && chosen.values === null) {
        next = current; // the would-be winner failed: the attribute is left alone
      } else if (chosen) {
        winner = chosen;
        next = chosen.values!.map((v) => ({ v, s: chosen.contributor.systemId, r: chosen.mapping.ruleId }));
      } else {
        next = current.filter(stays);
      }
    } else {
      // No rule maps this attribute now: values set through the API, and kept values of systems that left
      // or are frozen, stay; a joined system that no longer maps it, or one recalling its values, gives it up.
      next = current.filter((x) => x.s === null || stays(x));
    }
    if (sameStored(current, next))
      next = current; // the same values in another order are no change: keep the stored order
    else {
      changed.push(id);
      if (winner) flows.set(winner.contributor.csoId, (flows.get(winner.contributor.csoId) ?? 0) + 1);
    }
    if (next.length) out[String(id)] = next;
  }
  return { attributes: out, changed, flows, errors };
}

/** The same values with the same provenance, in any order (multi-valued attributes are sets). */
function sameStored(a: readonly StoredMetaverseValue[], b: readonly StoredMetaverseValue[]): boolean {
  if (a.length !== b.length) return false;
  const same = (x: StoredMetaverseValue, y: StoredMetaverseValue) =>
    sameValue(x.v, y.v) && (x.s ?? null) === (y.s ?? null) && (x.r ?? null) === (y.r ?? null);
  if (a.every((x, i) => same(x, b[i]))) return true;
  // Another order: compare as multisets, in linear time (group memberships can be large).
  const key = (x: StoredMetaverseValue) => `${x.s ?? ''}\u0000${x.r ?? ''}\u0000${String(x.v)}`;
  const counts = new Map<string, number>();
  for (const x of a) counts.set(key(x), (counts.get(key(x)) ?? 0) + 1);
  for (const y of b) {
    const n = counts.get(key(y));
    if (!n) return false;
    counts.set(key(y), n - 1);
  }
  return true;
}
