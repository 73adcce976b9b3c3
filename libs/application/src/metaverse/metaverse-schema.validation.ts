import { MAX_SCHEMA_DESCRIPTION_LENGTH, schemaNameProblem, ValidationErrorCollector } from '@meridian/domain';
import { MetaverseSchemaStore, SchemaIdTable } from '@meridian/persistence';
import { EntityManager } from 'typeorm';

/** Whether an error is PostgreSQL's unique violation (23505), optionally of one index. */
export function isUniqueViolation(e: unknown, index?: string): boolean {
  const err = e as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = err?.driverError?.code ?? err?.code;
  const constraint = err?.driverError?.constraint ?? err?.constraint;
  return code === '23505' && (!index || constraint === index);
}

/** A trimmed name, or undefined after recording the problem under `name`. */
export function checkName(raw: unknown, what: string, errors: ValidationErrorCollector): string | undefined {
  const problem = schemaNameProblem(raw, what);
  if (problem) {
    errors.add('name', problem);
    return undefined;
  }
  return (raw as string).trim();
}

/** A description (null or blank → null), or undefined after recording the problem under `description`. */
export function checkDescription(raw: unknown, errors: ValidationErrorCollector): string | null | undefined {
  if (raw === null) return null;
  if (typeof raw !== 'string') {
    errors.add('description', 'description must be text or null.');
    return undefined;
  }
  if (raw.length > MAX_SCHEMA_DESCRIPTION_LENGTH) {
    errors.add('description', `description must be at most ${MAX_SCHEMA_DESCRIPTION_LENGTH} characters.`);
    return undefined;
  }
  return raw.trim() || null;
}

/** Positive integer ids without duplicates, or undefined after recording the problem under `field`. */
export function checkIdList(raw: unknown, field: string, errors: ValidationErrorCollector): number[] | undefined {
  if (!Array.isArray(raw) || raw.some((id) => typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647)) {
    errors.add(field, `${field} must be an array of ids (positive integers).`);
    return undefined;
  }
  return [...new Set(raw as number[])].sort((a, b) => a - b);
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
