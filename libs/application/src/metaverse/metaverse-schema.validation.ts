import { ValidationErrorCollector } from '@meridian/domain';
import { MetaverseSchemaStore, SchemaIdTable } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

/** Whether an error is PostgreSQL's unique violation (23505), optionally of one index. */
export function isUniqueViolation(e: unknown, index?: string): boolean {
  const err = e as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = err?.driverError?.code ?? err?.code;
  const constraint = err?.driverError?.constraint ?? err?.constraint;
  return code === '23505' && (!index || constraint === index);
}

/** A description as stored: trimmed, and null when absent or blank. */
export function storedDescription(description: string | null | undefined): string | null {
  return description?.trim() || null;
}

/** Ids without duplicates, in ascending order. */
export function distinctIds(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Records under `field` the ids of `table` that do not exist. */
export async function checkIdsExist(
  m: EntityManager,
  table: SchemaIdTable,
  ids: readonly number[],
  field: string,
  noun: string,
  errors: ValidationErrorCollector,
): Promise<void> {
  const missing = await new MetaverseSchemaStore(m).missingIds(table, ids);
  if (missing.length) errors.add(field, `${noun} ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist.`);
}
