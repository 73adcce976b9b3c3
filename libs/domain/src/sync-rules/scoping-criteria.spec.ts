import { parseDateTime } from '../common/date-time';
import { AttributeDataType } from '../metaverse/metaverse-schema';
import {
  describeRelativeDate,
  parseRelativeDate,
  RelativeDateDirection,
  RelativeDateUnit,
  resolveRelativeDate,
  SCOPING_LIMITS,
  ScopingAttribute,
  ScopingGroup,
  ScopingGroupType,
  ScopingOperator,
  validateScopingCriteria,
} from './scoping-criteria';
import { evaluateScoping, scopingAttributeIds } from './scoping-evaluation';

const ATTRS: ScopingAttribute[] = [
  { id: 1, name: 'department', type: AttributeDataType.String },
  { id: 2, name: 'employeeNumber', type: AttributeDataType.Integer },
  { id: 3, name: 'endDate', type: AttributeDataType.DateTime },
  { id: 4, name: 'enabled', type: AttributeDataType.Boolean },
  { id: 5, name: 'objectGuid', type: AttributeDataType.Guid },
  { id: 6, name: 'manager', type: AttributeDataType.Reference },
  { id: 7, name: 'salary', type: AttributeDataType.Decimal },
  { id: 8, name: 'proxyAddresses', type: AttributeDataType.String },
  { id: 9, name: 'notes', type: AttributeDataType.Text },
  { id: 10, name: 'bigNumber', type: AttributeDataType.LongNumber },
];
const SCHEMA = new Map(ATTRS.map((a) => [a.id, a]));
const TYPES = new Map(ATTRS.map((a) => [a.id, a.type]));
const NOW = new Date('2025-06-15T12:00:00.000Z');

const all = (...criteria: unknown[]) => ({ type: 'All', criteria });
const any = (...criteria: unknown[]) => ({ type: 'Any', criteria });
const c = (attributeId: number, operator: string, value?: unknown, caseSensitive?: boolean) => ({
  attributeId,
  operator,
  value,
  ...(caseSensitive === undefined ? {} : { caseSensitive }),
});

function valid(input: unknown): ScopingGroup[] {
  const result = validateScopingCriteria(input, SCHEMA);
  expect(result.errors).toEqual({});
  return result.criteria;
}

describe('validateScopingCriteria', () => {
  it('accepts nothing, null and an empty array as "no criteria"', () => {
    expect(valid(undefined)).toEqual([]);
    expect(valid(null)).toEqual([]);
    expect(valid([])).toEqual([]);
  });

  it('normalises a valid tree: defaults, ISO instants, relative dates as objects, lower-case GUIDs', () => {
    const criteria = valid([
      {
        type: 'All',
        criteria: [c(1, 'Equals', 'Sales'), c(3, 'LessThan', '2025-01-31'), c(3, 'GreaterThan', '30 days ago')],
        groups: [{ type: 'Any', criteria: [c(5, 'Equals', 'ABCDEF00-0000-4000-8000-000000000001'), c(6, 'IsPresent')] }],
      },
    ]);
    expect(criteria).toEqual([
      {
        type: ScopingGroupType.All,
        criteria: [
          { attributeId: 1, operator: ScopingOperator.Equals, value: 'Sales', caseSensitive: false },
          { attributeId: 3, operator: ScopingOperator.LessThan, value: '2025-01-31T00:00:00.000Z', caseSensitive: false },
          {
            attributeId: 3,
            operator: ScopingOperator.GreaterThan,
            value: { relative: { amount: 30, unit: 'Days', direction: 'Ago' } },
            caseSensitive: false,
          },
        ],
        groups: [
          {
            type: ScopingGroupType.Any,
            groups: [],
            criteria: [
              { attributeId: 5, operator: ScopingOperator.Equals, value: 'abcdef00-0000-4000-8000-000000000001', caseSensitive: false },
              { attributeId: 6, operator: ScopingOperator.IsPresent, value: null, caseSensitive: false },
            ],
          },
        ],
      },
    ]);
  });

  it.each([
    ['a non-array', { type: 'All' }, 'scopingCriteria', /must be an array of groups/],
    ['a group that is not an object', ['All'], 'scopingCriteria[0]', /must be a group/],
    ['an unknown group type', [{ type: 'Some', criteria: [c(1, 'Equals', 'x')] }], 'scopingCriteria[0].type', /All .* or Any/],
    ['an empty group', [{ type: 'All', criteria: [], groups: [] }], 'scopingCriteria[0]', /is empty/],
    ['criteria that is not an array', [{ type: 'All', criteria: 'x' }], 'scopingCriteria[0].criteria', /must be an array/],
    [
      'an unknown group field',
      [{ type: 'All', criteria: [c(1, 'Equals', 'x')], extra: 1 }],
      'scopingCriteria[0].extra',
      /not a known field/,
    ],
    [
      'an unknown criterion field',
      [all({ ...c(1, 'Equals', 'x'), negate: true })],
      'scopingCriteria[0].criteria[0].negate',
      /not a known field/,
    ],
    ['a criterion that is not an object', [all(5)], 'scopingCriteria[0].criteria[0]', /must be an object/],
    [
      'a missing attributeId',
      [all({ operator: 'Equals', value: 'x' })],
      'scopingCriteria[0].criteria[0].attributeId',
      /positive whole number/,
    ],
    [
      'an attribute of another object type',
      [all(c(99, 'Equals', 'x'))],
      'scopingCriteria[0].criteria[0].attributeId',
      /99 is not one this rule can test/,
    ],
    ['an unknown operator', [all(c(1, 'Like', 'x'))], 'scopingCriteria[0].criteria[0].operator', /must be one of Equals/],
    [
      'an ordering operator on text',
      [all(c(1, 'LessThan', 'x'))],
      'scopingCriteria[0].criteria[0].operator',
      /LessThan cannot be used with "department" \(String\)/,
    ],
    ['StartsWith on a number', [all(c(2, 'StartsWith', 1))], 'scopingCriteria[0].criteria[0].operator', /StartsWith cannot be used/],
    ['Equals on a reference', [all(c(6, 'Equals', 'x'))], 'scopingCriteria[0].criteria[0].operator', /use one of IsPresent, IsNotPresent/],
    ['GreaterThan on a boolean', [all(c(4, 'GreaterThan', true))], 'scopingCriteria[0].criteria[0].operator', /cannot be used/],
    ['a missing value', [all(c(1, 'Equals'))], 'scopingCriteria[0].criteria[0].value', /needs a value/],
    ['an empty text value', [all(c(1, 'Equals', ''))], 'scopingCriteria[0].criteria[0].value', /IsNotPresent/],
    [
      'a text value that is too long',
      [all(c(1, 'Contains', 'x'.repeat(SCOPING_LIMITS.maxValueLength + 1)))],
      'scopingCriteria[0].criteria[0].value',
      /at most 1000/,
    ],
    ['a number for a text attribute', [all(c(1, 'Equals', 5))], 'scopingCriteria[0].criteria[0].value', /must be a string/],
    ['text for an Integer', [all(c(2, 'Equals', '5'))], 'scopingCriteria[0].criteria[0].value', /whole number/],
    ['a fraction for an Integer', [all(c(2, 'Equals', 1.5))], 'scopingCriteria[0].criteria[0].value', /whole number/],
    ['text for a Decimal', [all(c(7, 'GreaterThan', 'lots'))], 'scopingCriteria[0].criteria[0].value', /must be a number/],
    ['text for a Boolean', [all(c(4, 'Equals', 'true'))], 'scopingCriteria[0].criteria[0].value', /true or false/],
    ['a malformed GUID', [all(c(5, 'Equals', 'not-a-guid'))], 'scopingCriteria[0].criteria[0].value', /must be a GUID/],
    ['a malformed date', [all(c(3, 'LessThan', '31/01/2025'))], 'scopingCriteria[0].criteria[0].value', /ISO 8601/],
    ['an impossible date', [all(c(3, 'LessThan', '2025-02-30'))], 'scopingCriteria[0].criteria[0].value', /ISO 8601/],
    [
      'a relative date with an unknown unit',
      [all(c(3, 'LessThan', { relative: { amount: 3, unit: 'Fortnights', direction: 'Ago' } }))],
      'scopingCriteria[0].criteria[0].value',
      /unit must be one of Minutes/,
    ],
    [
      'a relative date with a negative amount',
      [all(c(3, 'LessThan', { relative: { amount: -3, unit: 'Days', direction: 'Ago' } }))],
      'scopingCriteria[0].criteria[0].value',
      /amount must be a whole number of at least 0/,
    ],
    [
      'a relative date with a bad direction',
      [all(c(3, 'LessThan', { relative: { amount: 3, unit: 'Days', direction: 'Later' } }))],
      'scopingCriteria[0].criteria[0].value',
      /Ago or FromNow/,
    ],
    [
      'a relative date with an extra field',
      [all(c(3, 'LessThan', { relative: { amount: 3, unit: 'Days', direction: 'Ago', at: 1 } }))],
      'scopingCriteria[0].criteria[0].value',
      /unknown fields: at/,
    ],
    [
      'a relative date that is too far',
      [all(c(3, 'LessThan', '100001 days ago'))],
      'scopingCriteria[0].criteria[0].value',
      /at most 100000/,
    ],
    ['a value on IsPresent', [all(c(1, 'IsPresent', 'x'))], 'scopingCriteria[0].criteria[0].value', /takes no value/],
    ['caseSensitive on a number', [all(c(2, 'Equals', 1, true))], 'scopingCriteria[0].criteria[0].caseSensitive', /text attributes only/],
    [
      'caseSensitive that is not a boolean',
      [all(c(1, 'Equals', 'x', 'yes' as unknown as boolean))],
      'scopingCriteria[0].criteria[0].caseSensitive',
      /true or false/,
    ],
  ])('refuses %s, naming the path', (_label, input, path, message) => {
    const result = validateScopingCriteria(input, SCHEMA);
    expect(result.criteria).toEqual([]);
    expect(Object.keys(result.errors)).toContain(path);
    expect(result.errors[path].join(' ')).toMatch(message);
  });

  it('names paths inside nested groups and reports every error at once', () => {
    const result = validateScopingCriteria(
      [
        all(c(1, 'Equals', 'x')),
        { type: 'Any', criteria: [c(1, 'Equals', 'y')], groups: [{ type: 'All', criteria: [c(1, 'Equals', 'z'), c(2, 'Bogus', 1)] }] },
        { type: 'Nope', criteria: [c(1, 'Equals', 'x')] },
      ],
      SCHEMA,
    );
    expect(Object.keys(result.errors).sort()).toEqual(['scopingCriteria[1].groups[0].criteria[1].operator', 'scopingCriteria[2].type']);
  });

  it('uses the field name it is given', () => {
    expect(Object.keys(validateScopingCriteria([all(c(99, 'Equals', 'x'))], SCHEMA, 'body.scope').errors)).toEqual([
      'body.scope[0].criteria[0].attributeId',
    ]);
  });

  it(`limits nesting to ${SCOPING_LIMITS.maxDepth} levels`, () => {
    const nest = (depth: number): object =>
      depth === 1 ? all(c(1, 'Equals', 'x')) : { type: 'All', criteria: [], groups: [nest(depth - 1)] };
    expect(validateScopingCriteria([nest(SCOPING_LIMITS.maxDepth)], SCHEMA).errors).toEqual({});
    const tooDeep = validateScopingCriteria([nest(SCOPING_LIMITS.maxDepth + 1)], SCHEMA);
    expect(tooDeep.errors).toEqual({
      'scopingCriteria[0].groups[0].groups[0].groups[0].groups[0].groups': ['Groups can be nested at most 5 levels deep.'],
    });
  });

  it('limits the number of criteria and groups', () => {
    const many = Array.from({ length: SCOPING_LIMITS.maxCriteria + 1 }, () => c(1, 'Equals', 'x'));
    expect(validateScopingCriteria([{ type: 'Any', criteria: many }], SCHEMA).errors).toEqual({
      scopingCriteria: ['A rule can have at most 200 criteria in all.'],
    });
    expect(validateScopingCriteria([{ type: 'Any', criteria: many.slice(1) }], SCHEMA).errors).toEqual({});
    const groups = Array.from({ length: SCOPING_LIMITS.maxGroups + 1 }, () => all(c(1, 'Equals', 'x')));
    expect(validateScopingCriteria(groups, SCHEMA).errors).toEqual({ scopingCriteria: ['A rule can have at most 50 groups in all.'] });
    expect(validateScopingCriteria(groups.slice(1), SCHEMA).errors).toEqual({});
  });
});

describe('relative and absolute dates', () => {
  it.each([
    ['30 days ago', { amount: 30, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago }],
    ['1 day ago', { amount: 1, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago }],
    ['2 Weeks From Now', { amount: 2, unit: RelativeDateUnit.Weeks, direction: RelativeDateDirection.FromNow }],
    ['  6 months ago ', { amount: 6, unit: RelativeDateUnit.Months, direction: RelativeDateDirection.Ago }],
    ['1 year from now', { amount: 1, unit: RelativeDateUnit.Years, direction: RelativeDateDirection.FromNow }],
    ['90 minutes ago', { amount: 90, unit: RelativeDateUnit.Minutes, direction: RelativeDateDirection.Ago }],
    ['12 hours ago', { amount: 12, unit: RelativeDateUnit.Hours, direction: RelativeDateDirection.Ago }],
  ])('parses "%s"', (text, expected) => {
    expect(parseRelativeDate(text)).toEqual(expected);
  });

  it.each(['yesterday', '30 days', 'ago', '-3 days ago', '3 fortnights ago', '3.5 days ago'])('does not parse "%s"', (text) => {
    expect(parseRelativeDate(text)).toBeNull();
  });

  it.each([
    [{ amount: 30, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago }, '2025-05-16T12:00:00.000Z'],
    [{ amount: 2, unit: RelativeDateUnit.Weeks, direction: RelativeDateDirection.FromNow }, '2025-06-29T12:00:00.000Z'],
    [{ amount: 90, unit: RelativeDateUnit.Minutes, direction: RelativeDateDirection.Ago }, '2025-06-15T10:30:00.000Z'],
    [{ amount: 3, unit: RelativeDateUnit.Hours, direction: RelativeDateDirection.FromNow }, '2025-06-15T15:00:00.000Z'],
    [{ amount: 6, unit: RelativeDateUnit.Months, direction: RelativeDateDirection.Ago }, '2024-12-15T12:00:00.000Z'],
    [{ amount: 1, unit: RelativeDateUnit.Years, direction: RelativeDateDirection.FromNow }, '2026-06-15T12:00:00.000Z'],
    [{ amount: 0, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago }, '2025-06-15T12:00:00.000Z'],
  ])('resolves %o against the injected clock', (relative, expected) => {
    expect(resolveRelativeDate(relative, NOW).toISOString()).toBe(expected);
  });

  it('clamps month arithmetic to the last day of the month', () => {
    const rel = { amount: 1, unit: RelativeDateUnit.Months, direction: RelativeDateDirection.FromNow };
    expect(resolveRelativeDate(rel, new Date('2025-01-31T08:00:00Z')).toISOString()).toBe('2025-02-28T08:00:00.000Z');
    expect(resolveRelativeDate({ ...rel, unit: RelativeDateUnit.Years }, new Date('2024-02-29T00:00:00Z')).toISOString()).toBe(
      '2025-02-28T00:00:00.000Z',
    );
  });

  it('describes relative dates as text', () => {
    expect(describeRelativeDate({ amount: 1, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago })).toBe('1 day ago');
    expect(describeRelativeDate({ amount: 3, unit: RelativeDateUnit.Weeks, direction: RelativeDateDirection.FromNow })).toBe(
      '3 weeks from now',
    );
  });

  it.each([
    ['2025-01-31', '2025-01-31T00:00:00.000Z'],
    ['2025-01-31T08:30', '2025-01-31T08:30:00.000Z'],
    ['2025-01-31T08:30:15.5Z', '2025-01-31T08:30:15.500Z'],
    ['2025-01-31 08:30:15', '2025-01-31T08:30:15.000Z'],
    ['2025-01-31T08:30:00+02:00', '2025-01-31T06:30:00.000Z'],
    ['2025-01-31T08:30:00-0130', '2025-01-31T10:00:00.000Z'],
  ])('reads the ISO instant %s as UTC unless it names an offset', (text, iso) => {
    expect(parseDateTime(text)?.toISOString()).toBe(iso);
  });

  it.each(['2025-13-01', '2025-02-29', '2025-01-31T24:00', '31/01/2025', '1', ''])('refuses "%s" as an ISO instant', (text) => {
    expect(parseDateTime(text)).toBeNull();
  });
});

describe('evaluateScoping', () => {
  const scope = (input: unknown) => valid(input);

  it('puts everything in scope when there are no criteria', () => {
    expect(evaluateScoping([], {}, NOW)).toBe(true);
    expect(evaluateScoping([], new Map(), NOW, TYPES)).toBe(true);
  });

  it.each([
    // [criterion, values, expected]
    [c(1, 'Equals', 'Sales'), { 1: 'Sales' }, true],
    [c(1, 'Equals', 'Sales'), { 1: 'sales' }, true],
    [c(1, 'Equals', 'Sales', true), { 1: 'sales' }, false],
    [c(1, 'Equals', 'Sales', true), { 1: 'Sales' }, true],
    [c(1, 'NotEquals', 'Sales'), { 1: 'Finance' }, true],
    [c(1, 'NotEquals', 'Sales'), { 1: 'SALES' }, false],
    [c(1, 'NotEquals', 'Sales', true), { 1: 'SALES' }, true],
    [c(1, 'NotEquals', 'Sales'), {}, true],
    [c(1, 'Equals', 'Sales'), {}, false],
    [c(1, 'Equals', 'Sales'), { 1: '   ' }, false],
    [c(1, 'StartsWith', 'sal'), { 1: 'Sales' }, true],
    [c(1, 'StartsWith', 'sal', true), { 1: 'Sales' }, false],
    [c(1, 'NotStartsWith', 'sal'), { 1: 'Sales' }, false],
    [c(1, 'NotStartsWith', 'fin'), { 1: 'Sales' }, true],
    [c(1, 'EndsWith', 'ES'), { 1: 'Sales' }, true],
    [c(1, 'NotEndsWith', 'es'), { 1: 'Sales' }, false],
    [c(1, 'Contains', 'AL'), { 1: 'Sales' }, true],
    [c(1, 'Contains', 'AL', true), { 1: 'Sales' }, false],
    [c(1, 'NotContains', 'x'), { 1: 'Sales' }, true],
    [c(1, 'IsPresent'), { 1: 'Sales' }, true],
    [c(1, 'IsPresent'), { 1: '' }, false],
    [c(1, 'IsPresent'), { 1: [] }, false],
    [c(1, 'IsNotPresent'), { 1: null }, true],
    [c(1, 'IsNotPresent'), {}, true],
    [c(1, 'IsNotPresent'), { 1: 'x' }, false],
    [c(9, 'Contains', 'vip'), { 9: 'A VIP customer' }, true],
    // multi-valued: positive operators need any value, negated ones need none
    [c(8, 'EndsWith', '@example.org'), { 8: ['smtp:a@example.com', 'SMTP:a@example.org'] }, true],
    [c(8, 'NotEndsWith', '@example.org'), { 8: ['smtp:a@example.com', 'SMTP:a@example.org'] }, false],
    [c(8, 'NotEndsWith', '@example.net'), { 8: ['smtp:a@example.com', 'SMTP:a@example.org'] }, true],
    [c(8, 'Equals', 'x'), { 8: [null, '', 'x'] }, true],
    // numbers
    [c(2, 'Equals', 42), { 2: 42 }, true],
    [c(2, 'Equals', 42), { 2: '42' }, true],
    [c(2, 'NotEquals', 42), { 2: 41 }, true],
    [c(2, 'LessThan', 42), { 2: 41 }, true],
    [c(2, 'LessThan', 42), { 2: 42 }, false],
    [c(2, 'LessThanOrEqual', 42), { 2: 42 }, true],
    [c(2, 'GreaterThan', 42), { 2: 43 }, true],
    [c(2, 'GreaterThanOrEqual', 42), { 2: 41 }, false],
    [c(2, 'GreaterThan', 42), { 2: 'not a number' }, false],
    [c(2, 'GreaterThan', 42), {}, false],
    [c(10, 'GreaterThan', 1), { 10: BigInt(2) }, true],
    [c(7, 'LessThan', 1000.5), { 7: 1000.25 }, true],
    // dates, absolute and relative against NOW (2025-06-15T12:00Z)
    [c(3, 'LessThan', '2025-01-31'), { 3: '2025-01-30T23:59:59Z' }, true],
    [c(3, 'LessThan', '2025-01-31'), { 3: new Date('2025-01-31T00:00:00Z') }, false],
    [c(3, 'Equals', '2025-01-31'), { 3: '2025-01-31T00:00:00.000Z' }, true],
    [c(3, 'GreaterThan', '30 days ago'), { 3: '2025-05-20' }, true],
    [c(3, 'GreaterThan', '30 days ago'), { 3: '2025-05-10' }, false],
    [c(3, 'LessThanOrEqual', { relative: { amount: 2, unit: 'Weeks', direction: 'FromNow' } }), { 3: '2025-06-29T12:00:00Z' }, true],
    [c(3, 'LessThanOrEqual', { relative: { amount: 2, unit: 'Weeks', direction: 'FromNow' } }), { 3: '2025-06-29T12:00:01Z' }, false],
    [c(3, 'GreaterThan', '30 days ago'), { 3: 'soon' }, false],
    [c(3, 'NotEquals', '2025-01-31'), { 3: '2025-02-01' }, true],
    // booleans and GUIDs
    [c(4, 'Equals', true), { 4: true }, true],
    [c(4, 'Equals', true), { 4: 'TRUE' }, true],
    [c(4, 'Equals', false), { 4: true }, false],
    [c(4, 'NotEquals', false), { 4: true }, true],
    [c(4, 'Equals', true), { 4: 'yes' }, false],
    [c(5, 'Equals', 'ABCDEF00-0000-4000-8000-000000000001'), { 5: 'abcdef00-0000-4000-8000-000000000001' }, true],
    [c(5, 'NotEquals', 'abcdef00-0000-4000-8000-000000000001'), { 5: 'ABCDEF00-0000-4000-8000-000000000002' }, true],
    // references: presence only
    [c(6, 'IsPresent'), { 6: 'a7d1c7b4-0000-4000-8000-000000000001' }, true],
  ])('%o with %o → %s', (criterion, values, expected) => {
    const criteria = scope([all(criterion)]);
    expect(evaluateScoping(criteria, values as Record<string, unknown>, NOW, TYPES)).toBe(expected);
  });

  it('moves relative dates with the clock', () => {
    const criteria = scope([all(c(3, 'GreaterThan', '30 days ago'))]);
    const values = { 3: '2025-05-20T00:00:00Z' };
    expect(evaluateScoping(criteria, values, NOW, TYPES)).toBe(true);
    expect(evaluateScoping(criteria, values, new Date('2025-06-25T00:00:00Z'), TYPES)).toBe(false);
  });

  it('combines All and Any groups, nested, with top-level groups ORed', () => {
    // (department = Sales AND (employeeNumber < 100 OR enabled = true)) OR (department = IT)
    const criteria = scope([
      { type: 'All', criteria: [c(1, 'Equals', 'Sales')], groups: [any(c(2, 'LessThan', 100), c(4, 'Equals', true))] },
      all(c(1, 'Equals', 'IT')),
    ]);
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ 1: 'Sales', 2: 50, 4: false }, true],
      [{ 1: 'Sales', 2: 500, 4: true }, true],
      [{ 1: 'Sales', 2: 500, 4: false }, false],
      [{ 1: 'Sales' }, false],
      [{ 1: 'IT' }, true],
      [{ 1: 'HR', 2: 1, 4: true }, false],
    ];
    for (const [values, expected] of cases) expect([values, evaluateScoping(criteria, values, NOW, TYPES)]).toEqual([values, expected]);
  });

  it('reads values from a Map or a lookup function as well as a record', () => {
    const criteria = scope([all(c(1, 'Equals', 'Sales'), c(2, 'GreaterThan', 1))]);
    expect(
      evaluateScoping(
        criteria,
        new Map<number, unknown>([
          [1, 'Sales'],
          [2, 5],
        ]),
        NOW,
        TYPES,
      ),
    ).toBe(true);
    expect(evaluateScoping(criteria, (id) => (id === 1 ? ['Sales'] : 5), NOW, TYPES)).toBe(true);
    expect(evaluateScoping(criteria, (id) => (id === 1 ? 'HR' : 5), NOW, TYPES)).toBe(false);
  });

  it('never reads inherited properties of a record', () => {
    const criteria = scope([all(c(1, 'IsPresent'))]);
    const values = Object.create({ 1: 'inherited' }) as Record<string, unknown>;
    expect(evaluateScoping(criteria, values, NOW, TYPES)).toBe(false);
  });

  it('falls back on the value kind when the attribute type is not given', () => {
    expect(evaluateScoping(scope([all(c(2, 'GreaterThan', 10))]), { 2: '11' }, NOW)).toBe(true);
    expect(evaluateScoping(scope([all(c(4, 'Equals', true))]), { 4: 'true' }, NOW)).toBe(true);
    expect(evaluateScoping(scope([all(c(3, 'GreaterThan', '30 days ago'))]), { 3: '2025-06-01' }, NOW)).toBe(true);
    expect(evaluateScoping(scope([all(c(1, 'Equals', 'a'))]), { 1: 'A' }, NOW)).toBe(true);
  });

  it('lists the attributes the criteria test', () => {
    const criteria = scope([
      { type: 'All', criteria: [c(1, 'Equals', 'x'), c(2, 'Equals', 1)], groups: [any(c(1, 'Contains', 'y'), c(3, 'IsPresent'))] },
    ]);
    expect(scopingAttributeIds(criteria).sort()).toEqual([1, 2, 3]);
  });
});
