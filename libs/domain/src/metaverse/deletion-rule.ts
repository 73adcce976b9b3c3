import { formatTimeSpan, parseTimeSpan } from '../common/timespan';
import { ValidationErrorCollector } from '../errors/domain-error';
import { DeletionRule } from './metaverse-types';

/** Whether any or all of the trigger systems must disconnect (WhenAuthoritativeSourceDisconnected). */
export enum DeletionTriggerMode {
  Any = 'Any',
  All = 'All',
}

/** The deletion settings of a metaverse object type as stored. */
export interface DeletionRuleSettings {
  deletionRule: DeletionRule;
  /** null: no grace period (deleted within the synchronisation run). */
  deletionGracePeriodSeconds: number | null;
  deletionTriggerConnectedSystemIds: number[];
  deletionTriggerMode: DeletionTriggerMode;
}

/** The deletion fields of an object type create/update body; absent fields keep their current value. */
export interface DeletionRuleInput {
  deletionRule?: unknown;
  deletionGracePeriod?: unknown;
  deletionTriggerConnectedSystemIds?: unknown;
  deletionTriggerMode?: unknown;
}

/** Longest grace period (about ten years); longer is almost certainly a typo. */
export const MAX_DELETION_GRACE_PERIOD_DAYS = 3650;

export const DEFAULT_DELETION_RULE: DeletionRuleSettings = {
  deletionRule: DeletionRule.WhenLastConnectorDisconnected,
  deletionGracePeriodSeconds: null,
  deletionTriggerConnectedSystemIds: [],
  deletionTriggerMode: DeletionTriggerMode.Any,
};

const canonical = <T extends string>(values: readonly T[], v: unknown): T | undefined =>
  typeof v === 'string' ? values.find((x) => x.toLowerCase() === v.trim().toLowerCase()) : undefined;

/** The grace period as a timespan (`d.hh:mm:ss`), or null when there is none. */
export function formatGracePeriod(seconds: number | null): string | null {
  return seconds ? formatTimeSpan(seconds * 1000) : null;
}

/** One field's reading: the value, or the message telling why the input is not one. */
export type FieldReading<T> = { value: T } | { error: string };

/** A deletion rule named in any case. */
export function parseDeletionRule(raw: unknown): FieldReading<DeletionRule> {
  const rule = canonical(Object.values(DeletionRule), raw);
  return rule ? { value: rule } : { error: `deletionRule must be one of ${Object.values(DeletionRule).join(', ')}.` };
}

/** A trigger mode named in any case. */
export function parseDeletionTriggerMode(raw: unknown): FieldReading<DeletionTriggerMode> {
  const mode = canonical(Object.values(DeletionTriggerMode), raw);
  return mode ? { value: mode } : { error: 'deletionTriggerMode must be Any or All.' };
}

/** A grace period in seconds from a timespan of whole seconds up to MAX_DELETION_GRACE_PERIOD_DAYS; null, 0 or "00:00:00": none (null). */
export function parseDeletionGracePeriod(raw: unknown): FieldReading<number | null> {
  if (raw === null || raw === 0) return { value: null };
  const ms = typeof raw === 'string' ? parseTimeSpan(raw) : null;
  if (ms === null) return { error: 'deletionGracePeriod must be a timespan such as "7.00:00:00" (d.hh:mm:ss) or "12:00:00", or null.' };
  if (ms % 1000 !== 0) return { error: 'deletionGracePeriod must be a whole number of seconds.' };
  if (ms > MAX_DELETION_GRACE_PERIOD_DAYS * 86_400_000)
    return { error: `deletionGracePeriod must be at most ${MAX_DELETION_GRACE_PERIOD_DAYS} days.` };
  return { value: ms === 0 ? null : ms / 1000 };
}

/** Trigger systems: positive integer ids, without duplicates and in order; null: none. */
export function parseDeletionTriggerIds(raw: unknown): FieldReading<number[]> {
  if (raw === null) return { value: [] };
  if (!Array.isArray(raw) || raw.some((id) => typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647)) {
    return { error: 'deletionTriggerConnectedSystemIds must be an array of connected system ids (positive integers).' };
  }
  return { value: [...new Set(raw as number[])].sort((a, b) => a - b) };
}

/** A change of the deletion settings with each field already read (absent fields keep their current value). */
export interface DeletionRuleChange {
  deletionRule?: DeletionRule;
  deletionGracePeriodSeconds?: number | null;
  deletionTriggerConnectedSystemIds?: number[];
  deletionTriggerMode?: DeletionTriggerMode;
}

/**
 * Applies a change to the current deletion settings, checking the rule that spans the fields: trigger systems are
 * required by WhenAuthoritativeSourceDisconnected and refused by the other rules, which clear them. Whether the
 * trigger systems exist is the caller's to check.
 */
export function applyDeletionRule(
  current: DeletionRuleSettings,
  change: DeletionRuleChange,
  errors: ValidationErrorCollector,
): DeletionRuleSettings {
  return settle(current, change, errors, false);
}

function settle(
  current: DeletionRuleSettings,
  change: DeletionRuleChange,
  errors: ValidationErrorCollector,
  idsInvalid: boolean,
): DeletionRuleSettings {
  const out: DeletionRuleSettings = {
    deletionRule: change.deletionRule ?? current.deletionRule,
    deletionGracePeriodSeconds:
      change.deletionGracePeriodSeconds !== undefined ? change.deletionGracePeriodSeconds : current.deletionGracePeriodSeconds,
    deletionTriggerConnectedSystemIds: [...(change.deletionTriggerConnectedSystemIds ?? current.deletionTriggerConnectedSystemIds)],
    deletionTriggerMode: change.deletionTriggerMode ?? current.deletionTriggerMode,
  };
  if (out.deletionRule === DeletionRule.WhenAuthoritativeSourceDisconnected) {
    if (!out.deletionTriggerConnectedSystemIds.length && !idsInvalid) {
      errors.add(
        'deletionTriggerConnectedSystemIds',
        'WhenAuthoritativeSourceDisconnected needs at least one connected system in deletionTriggerConnectedSystemIds.',
      );
    }
  } else {
    if (change.deletionTriggerConnectedSystemIds?.length)
      errors.add(
        'deletionTriggerConnectedSystemIds',
        `deletionTriggerConnectedSystemIds apply only to ${DeletionRule.WhenAuthoritativeSourceDisconnected}.`,
      );
    out.deletionTriggerConnectedSystemIds = [];
  }
  return out;
}

/**
 * Applies a create/update body to the current deletion settings: each field read by its parser above (errors named by
 * field), then applyDeletionRule. Whether the trigger systems exist is the caller's to check.
 */
export function resolveDeletionRule(
  current: DeletionRuleSettings,
  input: DeletionRuleInput,
  errors: ValidationErrorCollector,
): DeletionRuleSettings {
  const change: DeletionRuleChange = {};
  const read = <T>(field: string, raw: unknown, parse: (raw: unknown) => FieldReading<T>): T | undefined => {
    if (raw === undefined) return undefined;
    const reading = parse(raw);
    if ('error' in reading) errors.add(field, reading.error);
    return 'value' in reading ? reading.value : undefined;
  };
  change.deletionRule = read('deletionRule', input.deletionRule, parseDeletionRule);
  change.deletionGracePeriodSeconds = read('deletionGracePeriod', input.deletionGracePeriod, parseDeletionGracePeriod);
  change.deletionTriggerConnectedSystemIds = read(
    'deletionTriggerConnectedSystemIds',
    input.deletionTriggerConnectedSystemIds,
    parseDeletionTriggerIds,
  );
  change.deletionTriggerMode = read('deletionTriggerMode', input.deletionTriggerMode, parseDeletionTriggerMode);
  const idsInvalid = input.deletionTriggerConnectedSystemIds !== undefined && change.deletionTriggerConnectedSystemIds === undefined;
  return settle(current, change, errors, idsInvalid);
}
