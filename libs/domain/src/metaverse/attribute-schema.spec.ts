import { isIndexableAttributeType, parseAttributeDataType, parseAttributePlurality, schemaNameProblem } from './attribute-schema';
import { builtInObjectTypesOf } from './metaverse-types';

describe('metaverse attribute schema rules', () => {
  it.each([
    ['String', true],
    ['Text', true],
    ['Guid', true],
    ['Integer', true],
    ['LongNumber', true],
    ['Decimal', false],
    ['Boolean', false],
    ['DateTime', false],
    ['Binary', false],
    ['Reference', false],
  ])('%s indexable: %p', (type, expected) => {
    expect(isIndexableAttributeType(type as string)).toBe(expected);
  });

  it.each<[unknown, RegExp | null]>([
    ['Cost Centre', null],
    ['  Cost Centre  ', null],
    ['', /required/],
    ['   ', /required/],
    [42, /required/],
    ['a'.repeat(201), /at most 200/],
    ['a,b', /commas/],
    ['*', /"\*"/],
    ['tab\there', /control/],
  ])('name %p', (name, problem) => {
    const result = schemaNameProblem(name, 'Attribute');
    if (problem) expect(result).toMatch(problem);
    else expect(result).toBeNull();
  });

  it('reads data types and pluralities in any case', () => {
    expect(parseAttributeDataType('longnumber')).toBe('LongNumber');
    expect(parseAttributeDataType('Number')).toBeNull();
    expect(parseAttributePlurality('MULTI')).toBe('Multi');
    expect(parseAttributePlurality(1)).toBeNull();
  });

  it('knows which built-in types own a built-in attribute', () => {
    expect(builtInObjectTypesOf('email')).toEqual(['User', 'Group']);
    expect(builtInObjectTypesOf('Employee ID')).toEqual(['User']);
    expect(builtInObjectTypesOf('Static Members')).toEqual(['Group']);
    expect(builtInObjectTypesOf('Cost Centre')).toEqual([]);
  });
});
