import { AttributeSelectionState, AttributeSelectionUpdate, isSelectionLocked, planAttributeSelection } from './attribute-selection';

const attr = (id: number, flags = ''): AttributeSelectionState => ({
  id,
  name: `a${id}`,
  selected: flags.includes('s'),
  isExternalId: flags.includes('x'),
  isSecondaryExternalId: flags.includes('2'),
});
/** Compact state: s = selected, x = external ID, 2 = secondary external ID. */
const flags = (s: AttributeSelectionState) => `${s.selected ? 's' : ''}${s.isExternalId ? 'x' : ''}${s.isSecondaryExternalId ? '2' : ''}`;

function run(attributes: AttributeSelectionState[], updates: Array<[number, AttributeSelectionUpdate]>) {
  const plan = planAttributeSelection(attributes, updates);
  return {
    affected: Object.fromEntries(plan.affected.map((a) => [a.id, flags(a)])),
    changed: plan.changed.map((a) => a.id),
    applied: plan.applied,
    errors: plan.errors.map((e) => [e.attributeId, e.field]),
  };
}

describe('planAttributeSelection (spec 4.9 rules)', () => {
  it.each<[string, AttributeSelectionState[], Array<[number, AttributeSelectionUpdate]>, Record<number, string>, Array<[number, string]>]>([
    ['selects a plain attribute', [attr(1), attr(2)], [[1, { selected: true }]], { 1: 's' }, []],
    ['deselects a plain attribute', [attr(1, 's')], [[1, { selected: false }]], { 1: '' }, []],
    [
      'rule 1: a new external ID clears the old one (which stays selected)',
      [attr(1, 'sx'), attr(2)],
      [[2, { isExternalId: true }]],
      { 1: 's', 2: 'sx' },
      [],
    ],
    ['rule 2: an external ID is selected automatically', [attr(1)], [[1, { isExternalId: true, selected: false }]], {}, [[1, 'selected']]],
    ['rule 2: a secondary external ID is selected automatically', [attr(1)], [[1, { isSecondaryExternalId: true }]], { 1: 's2' }, []],
    ['rule 2: deselecting the external ID is refused', [attr(1, 'sx')], [[1, { selected: false }]], {}, [[1, 'selected']]],
    ['rule 2: deselecting the secondary external ID is refused', [attr(1, 's2')], [[1, { selected: false }]], {}, [[1, 'selected']]],
    [
      'clearing the flag and deselecting together is allowed',
      [attr(1, 'sx')],
      [[1, { isExternalId: false, selected: false }]],
      { 1: '' },
      [],
    ],
    ['clearing the flag alone keeps the attribute selected', [attr(1, 'sx')], [[1, { isExternalId: false }]], { 1: 's' }, []],
    ['one secondary external ID per type', [attr(1, 's2'), attr(2)], [[2, { isSecondaryExternalId: true }]], { 1: 's', 2: 's2' }, []],
    ['an attribute cannot be both', [attr(1, 'sx')], [[1, { isSecondaryExternalId: true }]], {}, [[1, 'isSecondaryExternalId']]],
    [
      'both in one update is refused',
      [attr(1)],
      [[1, { isExternalId: true, isSecondaryExternalId: true }]],
      {},
      [[1, 'isSecondaryExternalId']],
    ],
    [
      'moving the external ID and deselecting the old one in one request',
      [attr(1, 'sx'), attr(2)],
      [
        [1, { selected: false }],
        [2, { isExternalId: true }],
      ],
      { 1: '', 2: 'sx' },
      [],
    ],
    [
      'the old one is still locked when the move is refused',
      [attr(1, 'sx'), attr(2), attr(3)],
      [
        [1, { selected: false }],
        [2, { isExternalId: true, isSecondaryExternalId: true }],
      ],
      {},
      [
        [1, 'selected'],
        [2, 'isSecondaryExternalId'],
      ],
    ],
    [
      'two new external IDs in one request: the first (lowest id) wins',
      [attr(1), attr(2), attr(3, 'sx')],
      [
        [2, { isExternalId: true }],
        [1, { isExternalId: true }],
      ],
      { 1: 'sx', 3: 's' },
      [[2, 'isExternalId']],
    ],
    ['an applied update without a change is still reported', [attr(1, 's')], [[1, { selected: true }]], { 1: 's' }, []],
    [
      'a refused attribute does not stop the others',
      [attr(1, 'sx'), attr(2), attr(3, 's')],
      [
        [1, { selected: false }],
        [2, { selected: true }],
        [3, { selected: false }],
      ],
      { 2: 's', 3: '' },
      [[1, 'selected']],
    ],
  ])('%s', (_name, attributes, updates, affected, errors) => {
    const result = run(attributes, updates);
    expect(result.affected).toEqual(affected);
    expect(result.errors).toEqual(errors);
  });

  it('lists what changed separately from what was applied', () => {
    const result = run(
      [attr(1, 'sx'), attr(2, 's'), attr(3)],
      [
        [2, { isExternalId: true }],
        [3, { selected: false }],
      ],
    );
    expect(result.applied).toEqual([2, 3]);
    expect(result.changed).toEqual([1, 2]);
    expect(result.affected).toEqual({ 1: 's', 2: 'sx', 3: '' });
  });

  it('explains rule 2 in the error message', () => {
    const plan = planAttributeSelection([attr(1, 'sx')], [[1, { selected: false }]]);
    expect(plan.errors[0].message).toMatch(/"a1" is the external ID .* cannot be deselected/);
  });

  it('selectionLocked is true for external IDs only', () => {
    expect([attr(1), attr(2, 'sx'), attr(3, 's2'), attr(4, 's')].map(isSelectionLocked)).toEqual([false, true, true, false]);
  });
});
