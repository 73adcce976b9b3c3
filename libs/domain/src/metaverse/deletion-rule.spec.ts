import { ValidationErrorCollector } from '../errors/domain-error';
import {
  applyDeletionRule,
  DEFAULT_DELETION_RULE,
  DeletionRuleChange,
  DeletionRuleInput,
  DeletionTriggerMode,
  formatGracePeriod,
  resolveDeletionRule,
} from './deletion-rule';
import { DeletionRule } from './metaverse-types';

function resolve(input: DeletionRuleInput, current = DEFAULT_DELETION_RULE) {
  const errors = new ValidationErrorCollector();
  const result = resolveDeletionRule(current, input, errors);
  let fields: string[] = [];
  try {
    errors.throwIfAny();
  } catch (e) {
    fields = Object.keys((e as { validationErrors: Record<string, string[]> }).validationErrors);
  }
  return { result, fields };
}

describe('resolveDeletionRule', () => {
  it('keeps the current settings when nothing is given', () => {
    expect(resolve({})).toEqual({ result: DEFAULT_DELETION_RULE, fields: [] });
  });

  it.each<[DeletionRuleInput, Partial<typeof DEFAULT_DELETION_RULE>]>([
    [{ deletionRule: 'Manual' }, { deletionRule: DeletionRule.Manual }],
    [{ deletionRule: 'manual' }, { deletionRule: DeletionRule.Manual }],
    [{ deletionGracePeriod: '7.00:00:00' }, { deletionGracePeriodSeconds: 7 * 86_400 }],
    [{ deletionGracePeriod: '12:30:00' }, { deletionGracePeriodSeconds: 45_000 }],
    [{ deletionGracePeriod: '00:00:00' }, { deletionGracePeriodSeconds: null }],
    [{ deletionGracePeriod: 0 }, { deletionGracePeriodSeconds: null }],
    [{ deletionGracePeriod: null }, { deletionGracePeriodSeconds: null }],
    [{ deletionGracePeriod: '3650.00:00:00' }, { deletionGracePeriodSeconds: 3650 * 86_400 }],
    [
      { deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: [3, 1, 3], deletionTriggerMode: 'all' },
      {
        deletionRule: DeletionRule.WhenAuthoritativeSourceDisconnected,
        deletionTriggerConnectedSystemIds: [1, 3],
        deletionTriggerMode: DeletionTriggerMode.All,
      },
    ],
  ])('applies %p', (input, expected) => {
    expect(resolve(input)).toEqual({ result: { ...DEFAULT_DELETION_RULE, ...expected }, fields: [] });
  });

  it.each<[DeletionRuleInput, string]>([
    [{ deletionRule: 'Sometimes' }, 'deletionRule'],
    [{ deletionRule: 5 }, 'deletionRule'],
    [{ deletionGracePeriod: '7 days' }, 'deletionGracePeriod'],
    [{ deletionGracePeriod: 604_800 }, 'deletionGracePeriod'],
    [{ deletionGracePeriod: '00:00:01.5' }, 'deletionGracePeriod'],
    [{ deletionGracePeriod: '3651.00:00:00' }, 'deletionGracePeriod'],
    [{ deletionTriggerMode: 'Some' }, 'deletionTriggerMode'],
    [{ deletionRule: 'WhenAuthoritativeSourceDisconnected' }, 'deletionTriggerConnectedSystemIds'],
    [{ deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: [] }, 'deletionTriggerConnectedSystemIds'],
    [{ deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: [0] }, 'deletionTriggerConnectedSystemIds'],
    [
      { deletionRule: 'WhenAuthoritativeSourceDisconnected', deletionTriggerConnectedSystemIds: ['1'] },
      'deletionTriggerConnectedSystemIds',
    ],
    [{ deletionRule: 'Manual', deletionTriggerConnectedSystemIds: [1] }, 'deletionTriggerConnectedSystemIds'],
  ])('refuses %p naming %s', (input, field) => {
    expect(resolve(input).fields).toEqual([field]);
  });

  it('clears the trigger systems when the rule moves away from WhenAuthoritativeSourceDisconnected', () => {
    const current = {
      ...DEFAULT_DELETION_RULE,
      deletionRule: DeletionRule.WhenAuthoritativeSourceDisconnected,
      deletionTriggerConnectedSystemIds: [4],
    };
    expect(resolve({ deletionGracePeriod: '01:00:00' }, current)).toEqual({
      result: { ...current, deletionGracePeriodSeconds: 3600 },
      fields: [],
    });
    expect(resolve({ deletionRule: 'Manual' }, current).result.deletionTriggerConnectedSystemIds).toEqual([]);
  });

  it('formats grace periods as timespans', () => {
    expect(formatGracePeriod(null)).toBeNull();
    expect(formatGracePeriod(0)).toBeNull();
    expect(formatGracePeriod(7 * 86_400)).toBe('7.00:00:00');
    expect(formatGracePeriod(45_000)).toBe('12:30:00');
  });
});

describe('applyDeletionRule (fields already read)', () => {
  const apply = (change: DeletionRuleChange, current = DEFAULT_DELETION_RULE) => {
    const errors = new ValidationErrorCollector();
    const result = applyDeletionRule(current, change, errors);
    try {
      errors.throwIfAny();
      return { result, fields: [] as string[] };
    } catch (e) {
      return { result, fields: Object.keys((e as { validationErrors: Record<string, string[]> }).validationErrors) };
    }
  };

  it('keeps absent fields and takes the given ones', () => {
    expect(apply({ deletionGracePeriodSeconds: 60, deletionTriggerMode: DeletionTriggerMode.All })).toEqual({
      result: { ...DEFAULT_DELETION_RULE, deletionGracePeriodSeconds: 60, deletionTriggerMode: DeletionTriggerMode.All },
      fields: [],
    });
  });

  it('requires trigger systems with WhenAuthoritativeSourceDisconnected and refuses them with other rules', () => {
    expect(apply({ deletionRule: DeletionRule.WhenAuthoritativeSourceDisconnected }).fields).toEqual(['deletionTriggerConnectedSystemIds']);
    expect(apply({ deletionRule: DeletionRule.Manual, deletionTriggerConnectedSystemIds: [1] }).fields).toEqual([
      'deletionTriggerConnectedSystemIds',
    ]);
    const authoritative = {
      ...DEFAULT_DELETION_RULE,
      deletionRule: DeletionRule.WhenAuthoritativeSourceDisconnected,
      deletionTriggerConnectedSystemIds: [2],
    };
    expect(apply({ deletionRule: DeletionRule.Manual }, authoritative)).toEqual({
      result: { ...authoritative, deletionRule: DeletionRule.Manual, deletionTriggerConnectedSystemIds: [] },
      fields: [],
    });
  });
});
