import { checkCompleteOrder, placeAt } from './ordering';
import { deriveMappingSourceType, MappingSourceType } from './sync-rule.enums';

describe('deriveMappingSourceType (spec 2.12)', () => {
  it.each([
    [[{ expression: null }], MappingSourceType.AttributeMapping],
    [[{}], MappingSourceType.AttributeMapping],
    [[{ expression: '  ' }], MappingSourceType.AttributeMapping],
    [[{ expression: 'Upper(cs["sn"])' }], MappingSourceType.ExpressionMapping],
    [[{ expression: null }, { expression: null }], MappingSourceType.AdvancedMapping],
    [[{ expression: 'cs["a"]' }, { expression: null }], MappingSourceType.AdvancedMapping],
  ])('%o → %s', (sources, expected) => {
    expect(deriveMappingSourceType(sources)).toBe(expected);
  });
});

describe('checkCompleteOrder', () => {
  it.each([
    [[3, 1, 2], [1, 2, 3], {}],
    [[], [], {}],
    [[1, 2], [1, 2, 3], { ids: ['ids must list every one of the things; missing: 3.'] }],
    [[1, 2, 3, 4], [1, 2, 3], { ids: ['ids lists 4, which is not one of the things.'] }],
    [[1, 1, 2, 3], [1, 2, 3], { ids: ['ids lists 1 more than once.'] }],
    [[1, 'x', 0], [1], { ids: ['ids lists x, 0, which are not among the things.'] }],
  ])('%o against %o', (requested, current, expected) => {
    expect(checkCompleteOrder(current, requested, 'ids', 'things')).toEqual(expected);
  });
});

describe('placeAt', () => {
  it.each([
    [[1, 2, 3], 4, undefined, [1, 2, 3, 4]],
    [[1, 2, 3], 4, 1, [4, 1, 2, 3]],
    [[1, 2, 3], 4, 2, [1, 4, 2, 3]],
    [[1, 2, 3], 4, 99, [1, 2, 3, 4]],
    [[1, 2, 3], 3, 1, [3, 1, 2]],
    [[1, 2, 3], 1, 3, [2, 3, 1]],
    [[1, 2, 3], 2, null, [1, 3, 2]],
    [[1, 2, 3], 2, 0, [2, 1, 3]],
  ])('%o, moving %s to %s', (ids, id, position, expected) => {
    expect(placeAt(ids, id, position)).toEqual(expected);
  });
});
