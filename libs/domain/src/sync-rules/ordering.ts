import { ValidationErrors } from '../errors/domain-error';

/**
 * Checks that `requested` is a complete reordering of `current` (the same ids, each exactly once) and
 * returns the field errors when it is not — used for attribute priority and matching-rule order.
 */
export function checkCompleteOrder(
  current: readonly number[],
  requested: readonly unknown[],
  field: string,
  noun: string,
): ValidationErrors {
  const errors: string[] = [];
  const known = new Set(current);
  const seen = new Set<number>();
  const duplicates = new Set<number>();
  const unknown: string[] = [];
  for (const id of requested) {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
      unknown.push(String(id));
      continue;
    }
    if (seen.has(id)) duplicates.add(id);
    seen.add(id);
    if (!known.has(id)) unknown.push(String(id));
  }
  const missing = current.filter((id) => !seen.has(id));
  if (duplicates.size) errors.push(`${field} lists ${[...duplicates].join(', ')} more than once.`);
  if (unknown.length)
    errors.push(`${field} lists ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is not one of' : 'are not among'} the ${noun}.`);
  if (missing.length) errors.push(`${field} must list every one of the ${noun}; missing: ${missing.join(', ')}.`);
  return errors.length ? { [field]: errors } : {};
}

/**
 * Moves `id` to the 1-based `position` within `ids` (appended when position is absent or past the
 * end) and returns the new order.
 */
export function placeAt(ids: readonly number[], id: number, position?: number | null): number[] {
  const rest = ids.filter((x) => x !== id);
  const index = position === undefined || position === null ? rest.length : Math.min(Math.max(position, 1), rest.length + 1) - 1;
  return [...rest.slice(0, index), id, ...rest.slice(index)];
}
