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

/**
 * Applies a create/update body to the current deletion settings. Field errors go to `errors` (named by
 * field); whether the trigger systems exist is the caller's to check. Rules: the grace period is a
 * timespan of whole seconds up to MAX_DELETION_GRACE_PERIOD_DAYS (null, 0 or "00:00:00": none); trigger
 * systems are required by WhenAuthoritativeSourceDisconnected and refused by the other rules, which
 * clear them.
 */
export function resolveDeletionRule(
  current: DeletionRuleSettings,
  input: DeletionRuleInput,
  errors: ValidationErrorCollector,
): DeletionRuleSettings {
  const out: DeletionRuleSettings = { ...current, deletionTriggerConnectedSystemIds: [...current.deletionTriggerConnectedSystemIds] };

  if (input.deletionRule !== undefined) {
    const rule = canonical(Object.values(DeletionRule), input.deletionRule);
    if (!rule) errors.add('deletionRule', `deletionRule must be one of ${Object.values(DeletionRule).join(', ')}.`);
    else out.deletionRule = rule;
  }

  if (input.deletionGracePeriod !== undefined) {
    const raw = input.deletionGracePeriod;
    if (raw === null || raw === 0) out.deletionGracePeriodSeconds = null;
    else {
      const ms = typeof raw === 'string' ? parseTimeSpan(raw) : null;
      if (ms === null)
        errors.add(
          'deletionGracePeriod',
          'deletionGracePeriod must be a timespan such as "7.00:00:00" (d.hh:mm:ss) or "12:00:00", or null.',
        );
      else if (ms % 1000 !== 0) errors.add('deletionGracePeriod', 'deletionGracePeriod must be a whole number of seconds.');
      else if (ms > MAX_DELETION_GRACE_PERIOD_DAYS * 86_400_000)
        errors.add('deletionGracePeriod', `deletionGracePeriod must be at most ${MAX_DELETION_GRACE_PERIOD_DAYS} days.`);
      else out.deletionGracePeriodSeconds = ms === 0 ? null : ms / 1000;
    }
  }

  let idsGiven = false;
  let idsInvalid = false;
  if (input.deletionTriggerConnectedSystemIds !== undefined) {
    const raw = input.deletionTriggerConnectedSystemIds;
    if (raw === null) out.deletionTriggerConnectedSystemIds = [];
    else if (!Array.isArray(raw) || raw.some((id) => typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647)) {
      errors.add(
        'deletionTriggerConnectedSystemIds',
        'deletionTriggerConnectedSystemIds must be an array of connected system ids (positive integers).',
      );
      idsInvalid = true;
    } else {
      out.deletionTriggerConnectedSystemIds = [...new Set(raw as number[])].sort((a, b) => a - b);
      idsGiven = out.deletionTriggerConnectedSystemIds.length > 0;
    }
  }

  if (input.deletionTriggerMode !== undefined) {
    const mode = canonical(Object.values(DeletionTriggerMode), input.deletionTriggerMode);
    if (!mode) errors.add('deletionTriggerMode', 'deletionTriggerMode must be Any or All.');
    else out.deletionTriggerMode = mode;
  }

  if (out.deletionRule === DeletionRule.WhenAuthoritativeSourceDisconnected) {
    if (!out.deletionTriggerConnectedSystemIds.length && !idsInvalid) {
      errors.add(
        'deletionTriggerConnectedSystemIds',
        'WhenAuthoritativeSourceDisconnected needs at least one connected system in deletionTriggerConnectedSystemIds.',
      );
    }
  } else {
    if (idsGiven)
      errors.add(
        'deletionTriggerConnectedSystemIds',
        `deletionTriggerConnectedSystemIds apply only to ${DeletionRule.WhenAuthoritativeSourceDisconnected}.`,
      );
    out.deletionTriggerConnectedSystemIds = [];
  }
  return out;
}
