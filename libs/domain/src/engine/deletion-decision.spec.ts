import { DeletionTriggerMode } from '../metaverse/deletion-rule';
import { DeletionRule, MetaverseObjectOrigin } from '../metaverse/metaverse-types';
import { decideDeletion, DeletionDecision } from './deletion-decision';
import type { MetaverseTypeDef } from './sync-model';

const NOW = new Date('2025-06-15T12:00:00.000Z');
const HR = 1;
const AD = 2;
const LMS = 3;

function type(rule: DeletionRule, grace: number | null = null, triggers: number[] = [], mode = DeletionTriggerMode.Any): MetaverseTypeDef {
  return {
    id: 1,
    name: 'User',
    deletionRule: rule,
    deletionGracePeriodSeconds: grace,
    deletionTriggerConnectedSystemIds: triggers,
    deletionTriggerMode: mode,
  };
}

const NONE: DeletionDecision = { action: 'None' };
const DELETE: DeletionDecision = { action: 'Delete' };
const { Manual, WhenLastConnectorDisconnected: Last, WhenAuthoritativeSourceDisconnected: Authoritative } = DeletionRule;
const { Any, All } = DeletionTriggerMode;

describe('decideDeletion', () => {
  it.each<[string, MetaverseTypeDef, number[], number[], DeletionDecision]>([
    // [case, type, remaining systems, disconnected systems, decision]
    ['Manual: never, even with nothing left', type(Manual), [], [HR], NONE],
    ['Manual: never, even with a grace period', type(Manual, 3600), [], [HR, AD], NONE],

    ['last connector: the last one gone → delete', type(Last), [], [HR], DELETE],
    ['last connector: two gone at once, nothing left → delete', type(Last), [], [HR, AD], DELETE],
    ['last connector: another system still joined → nothing', type(Last), [AD], [HR], NONE],
    ['last connector: nothing disconnected in this run → nothing', type(Last), [], [], NONE],
    ['last connector: grace 0 counts as none → delete', type(Last, 0), [], [HR], DELETE],
    [
      'last connector: grace period → pending',
      type(Last, 86_400),
      [],
      [HR],
      { action: 'Pending', eligible: new Date('2025-06-16T12:00:00.000Z') },
    ],

    [
      'authoritative, Any: a trigger system gone → delete, even with others joined',
      type(Authoritative, null, [HR], Any),
      [AD, LMS],
      [HR],
      DELETE,
    ],
    ['authoritative, Any: one of two triggers gone → delete', type(Authoritative, null, [HR, LMS], Any), [LMS, AD], [HR], DELETE],
    ['authoritative, Any: a non-trigger system gone → nothing', type(Authoritative, null, [HR], Any), [HR], [AD], NONE],
    ['authoritative, Any: a non-trigger system gone, nothing left → nothing', type(Authoritative, null, [HR], Any), [], [AD], NONE],
    ['authoritative, Any: nothing disconnected in this run → nothing', type(Authoritative, null, [HR], Any), [AD], [], NONE],
    [
      'authoritative, Any: with a grace period → pending',
      type(Authoritative, 7 * 86_400, [HR], Any),
      [AD],
      [HR],
      { action: 'Pending', eligible: new Date('2025-06-22T12:00:00.000Z') },
    ],

    [
      'authoritative, All: one of two triggers gone, the other still joined → nothing',
      type(Authoritative, null, [HR, LMS], All),
      [LMS, AD],
      [HR],
      NONE,
    ],
    [
      'authoritative, All: the last trigger gone (the other left earlier) → delete',
      type(Authoritative, null, [HR, LMS], All),
      [AD],
      [HR],
      DELETE,
    ],
    ['authoritative, All: both triggers gone in this run → delete', type(Authoritative, null, [HR, LMS], All), [AD], [HR, LMS], DELETE],
    ['authoritative, All: a trigger never joined counts as gone', type(Authoritative, null, [HR, LMS], All), [], [HR], DELETE],
    [
      'authoritative, All: a non-trigger system gone, triggers long gone → nothing (not caused by this run)',
      type(Authoritative, null, [HR, LMS], All),
      [],
      [AD],
      NONE,
    ],
    [
      'authoritative, All: with a grace period → pending',
      type(Authoritative, 60, [HR, LMS], All),
      [],
      [HR, LMS],
      { action: 'Pending', eligible: new Date('2025-06-15T12:01:00.000Z') },
    ],

    ['authoritative without trigger systems: nothing', type(Authoritative, null, [], Any), [], [HR], NONE],
    ['an unknown rule: nothing', type('Sometimes' as DeletionRule), [], [HR], NONE],
  ])('%s', (_name, t, remaining, disconnected, expected) => {
    expect(
      decideDeletion({
        type: t,
        origin: MetaverseObjectOrigin.Projected,
        remainingSystemIds: remaining,
        disconnectedSystemIds: disconnected,
        now: NOW,
      }),
    ).toEqual(expected);
  });

  it.each([type(Last), type(Last, 3600), type(Authoritative, null, [HR], Any), type(Authoritative, null, [HR], All)])(
    'never deletes an Internal object (%j)',
    (t) => {
      expect(
        decideDeletion({ type: t, origin: MetaverseObjectOrigin.Internal, remainingSystemIds: [], disconnectedSystemIds: [HR], now: NOW }),
      ).toEqual(NONE);
    },
  );

  it('counts the grace period from the time of the run', () => {
    const later = new Date('2030-01-01T00:00:00.000Z');
    expect(
      decideDeletion({
        type: type(Last, 30),
        origin: MetaverseObjectOrigin.Projected,
        remainingSystemIds: [],
        disconnectedSystemIds: [HR],
        now: later,
      }),
    ).toEqual({ action: 'Pending', eligible: new Date('2030-01-01T00:00:30.000Z') });
  });
});
