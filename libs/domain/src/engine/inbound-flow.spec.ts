import { compileExpressionOrThrow } from '../expressions';
import { AttributeDataType } from '../metaverse/metaverse-types';
import { ExecutionErrorType } from './engine.enums';
import { computeMetaverseAttributes, Contributor, InboundInput, InboundResult } from './inbound-flow';
import type {
  EngineAttribute,
  ImportRuleDef,
  InboundMapping,
  MappingSource,
  StoredMetaverseAttributes,
  StoredMetaverseValue,
} from './sync-model';
import { ValueView } from './value-view';

// Metaverse attributes.
const DISPLAY_NAME = 1;
const DEPARTMENT = 2;
const EMAILS = 3;
const EMPLOYEE_NUMBER = 4;
const MANAGER = 5;
const DESCRIPTION = 6;
const JOB_TITLE = 7;
const MV_ATTRIBUTES = new Map<number, EngineAttribute>([
  [DISPLAY_NAME, { id: DISPLAY_NAME, name: 'Display Name', type: AttributeDataType.String, plurality: 'Single' }],
  [DEPARTMENT, { id: DEPARTMENT, name: 'Department', type: AttributeDataType.String, plurality: 'Single' }],
  [EMAILS, { id: EMAILS, name: 'Emails', type: AttributeDataType.String, plurality: 'Multi' }],
  [EMPLOYEE_NUMBER, { id: EMPLOYEE_NUMBER, name: 'Employee Number', type: AttributeDataType.Integer, plurality: 'Single' }],
  [MANAGER, { id: MANAGER, name: 'Manager', type: AttributeDataType.Reference, plurality: 'Single' }],
  [DESCRIPTION, { id: DESCRIPTION, name: 'Description', type: AttributeDataType.String, plurality: 'Single' }],
  [JOB_TITLE, { id: JOB_TITLE, name: 'Job Title', type: AttributeDataType.String, plurality: 'Single' }],
]);

// Connected-system attributes (every system uses the same ids, each has its own values).
const FIRST_NAME = 11;
const LAST_NAME = 12;
const DEPT = 13;
const MAIL = 14;
const EMP_NO = 15;
const MANAGER_REF = 16;
const TITLE = 17;
const CS_SCHEMA = new Map<number, EngineAttribute>([
  [FIRST_NAME, { id: FIRST_NAME, name: 'firstName', type: AttributeDataType.String, plurality: 'Single' }],
  [LAST_NAME, { id: LAST_NAME, name: 'lastName', type: AttributeDataType.String, plurality: 'Single' }],
  [DEPT, { id: DEPT, name: 'department', type: AttributeDataType.String, plurality: 'Single' }],
  [MAIL, { id: MAIL, name: 'mail', type: AttributeDataType.String, plurality: 'Multi' }],
  [EMP_NO, { id: EMP_NO, name: 'employeeNumber', type: AttributeDataType.String, plurality: 'Single' }],
  [MANAGER_REF, { id: MANAGER_REF, name: 'manager', type: AttributeDataType.Reference, plurality: 'Single' }],
  [TITLE, { id: TITLE, name: 'title', type: AttributeDataType.String, plurality: 'Single' }],
]);

const HR = 1;
const AD = 2;
const LMS = 3;
const CSO_ID: Record<number, string> = { [HR]: 'hr-1', [AD]: 'ad-1', [LMS]: 'lms-1' };
/** Each system has one import rule, id = system × 10. */
const ruleId = (system: number) => system * 10;

const direct = (attributeId: number): MappingSource => ({ attributeId, expression: null });
const expr = (text: string): MappingSource => ({ attributeId: null, expression: compileExpressionOrThrow(text) });

function mapping(
  id: number,
  system: number,
  target: number,
  sources: MappingSource[],
  priority: number | null = null,
  nullIsValue = false,
): InboundMapping {
  return { id, ruleId: ruleId(system), systemId: system, targetAttributeId: target, priority, nullIsValue, sources };
}

function rule(system: number, mappings: InboundMapping[]): ImportRuleDef {
  return {
    id: ruleId(system),
    name: `rule ${system}`,
    systemId: system,
    csObjectTypeId: 1,
    mvObjectTypeId: 1,
    project: system === HR,
    scoping: [],
    outOfScopeAction: 'Disconnect',
    mappings,
    matchingRules: [],
  };
}

/** A joined object of a system: its values, and the mappings of its in-scope rule (none: in scope of nothing). */
function joined(system: number, values: Record<number, unknown[]>, mappings: InboundMapping[] | null): Contributor {
  const stored = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v]));
  return {
    systemId: system,
    csoId: CSO_ID[system],
    rules: mappings ? [rule(system, mappings)] : [],
    values: (id) => values[id] ?? [],
    cs: ValueView.ofConnectorObject(stored, CS_SCHEMA).expression,
  };
}

const from = (system: number | null, ...values: unknown[]): StoredMetaverseValue[] =>
  values.map((v) => (system === null ? { v, s: null } : { v, s: system, r: ruleId(system) }));

function flow(input: Omit<InboundInput, 'attributes'>): InboundResult {
  return computeMetaverseAttributes({ attributes: MV_ATTRIBUTES, ...input });
}

/** The result in a comparable form: changed sorted, flows as a plain object. */
function summary(result: InboundResult) {
  return {
    attributes: result.attributes,
    changed: [...result.changed].sort((a, b) => a - b),
    flows: Object.fromEntries(result.flows),
    errors: result.errors,
  };
}

describe('computeMetaverseAttributes: mappings', () => {
  it('flows direct and expression mappings into a new object, with provenance, typed, trimmed', () => {
    const hr = joined(
      HR,
      {
        [FIRST_NAME]: ['  Ann '],
        [LAST_NAME]: ['Lee'],
        [DEPT]: [' Sales  '],
        [MAIL]: ['ann@example.com', ' ANN.LEE@example.com'],
        [EMP_NO]: [' 1001 '],
        [MANAGER_REF]: ['0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B'],
      },
      [
        mapping(1, HR, DISPLAY_NAME, [expr('Trim(cs["firstName"]) + " " + cs["lastName"]')], 1),
        mapping(2, HR, DEPARTMENT, [direct(DEPT)], 1),
        mapping(3, HR, EMAILS, [direct(MAIL), expr('Lower(Trim(cs["firstName"])) + "@corp.example.com"')], 1),
        mapping(4, HR, EMPLOYEE_NUMBER, [direct(EMP_NO)], 1),
        mapping(5, HR, MANAGER, [direct(MANAGER_REF)], 1),
      ],
    );
    expect(summary(flow({ current: {}, contributors: [hr] }))).toEqual({
      attributes: {
        [DISPLAY_NAME]: from(HR, 'Ann Lee'),
        [DEPARTMENT]: from(HR, 'Sales'),
        [EMAILS]: from(HR, 'ann@example.com', 'ANN.LEE@example.com', 'ann@corp.example.com'),
        [EMPLOYEE_NUMBER]: from(HR, 1001),
        [MANAGER]: from(HR, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'),
      },
      changed: [DISPLAY_NAME, DEPARTMENT, EMAILS, EMPLOYEE_NUMBER, MANAGER],
      flows: { 'hr-1': 5 },
      errors: [],
    });
  });

  it.each<[string, MappingSource[], Record<number, unknown[]>, StoredMetaverseValue[] | undefined]>([
    ['whitespace-only text is no value', [direct(DEPT)], { [DEPT]: ['   '] }, undefined],
    ['an empty source is no value', [direct(DEPT)], {}, undefined],
    ['an expression giving null is no value', [expr('cs["nothing"]')], {}, undefined],
    ['an expression giving blank text is no value', [expr('"  "')], {}, undefined],
    [
      'single-valued, several sources: the first with a value',
      [direct(DEPT), direct(TITLE), direct(LAST_NAME)],
      { [TITLE]: ['Engineer'], [LAST_NAME]: ['Lee'] },
      from(HR, 'Engineer'),
    ],
    [
      'single-valued, several sources: blank ones are skipped',
      [direct(DEPT), expr('cs["title"]')],
      { [DEPT]: [' '], [TITLE]: [' Engineer '] },
      from(HR, 'Engineer'),
    ],
    [
      'the expression reads mv[…] as it was before the flow',
      [expr('mv["Department"] + "/" + cs["title"]')],
      { [TITLE]: ['Engineer'] },
      from(HR, 'Legal/Engineer'),
    ],
  ])('%s', (_name, sources, values, expected) => {
    const hr = joined(HR, values, [mapping(1, HR, JOB_TITLE, sources, 1)]);
    const result = flow({ current: {}, contributors: [hr], mv: { Department: 'Legal' } });
    expect(result.attributes[JOB_TITLE]).toEqual(expected);
    expect(result.changed).toEqual(expected ? [JOB_TITLE] : []);
    expect(Object.fromEntries(result.flows)).toEqual(expected ? { 'hr-1': 1 } : {});
  });

  it('builds a multi-valued attribute from the union of its sources, duplicates removed', () => {
    const hr = joined(HR, { [MAIL]: ['a@x.com', 'b@x.com', 'a@x.com'], [FIRST_NAME]: ['b@x.com'] }, [
      mapping(1, HR, EMAILS, [direct(MAIL), direct(FIRST_NAME), expr('Split("c@x.com; a@x.com", ";")')], 1),
    ]);
    expect(flow({ current: {}, contributors: [hr] }).attributes[EMAILS]).toEqual(from(HR, 'a@x.com', 'b@x.com', 'c@x.com'));
  });

  it('gives a multi-valued attribute to one contributor by priority (no union across systems)', () => {
    const hr = joined(HR, { [MAIL]: ['hr@x.com'] }, [mapping(1, HR, EMAILS, [direct(MAIL)], 2)]);
    const ad = joined(AD, { [MAIL]: ['ad@x.com', 'ad2@x.com'] }, [mapping(2, AD, EMAILS, [direct(MAIL)], 1)]);
    expect(flow({ current: {}, contributors: [hr, ad] }).attributes[EMAILS]).toEqual(from(AD, 'ad@x.com', 'ad2@x.com'));
  });

  it('treats the same multi-valued values in another order as no change', () => {
    const hr = joined(HR, { [MAIL]: ['b@x.com', 'a@x.com'] }, [mapping(1, HR, EMAILS, [direct(MAIL)], 1)]);
    const current = { [EMAILS]: from(HR, 'a@x.com', 'b@x.com') };
    const result = flow({ current, contributors: [hr] });
    expect(summary(result)).toEqual({ attributes: current, changed: [], flows: {}, errors: [] });
  });

  it.each<[string, boolean, StoredMetaverseValue[], string[]]>([
    // [case, changed, current Emails, HR's values now]
    ['same order', false, from(HR, 'a', 'b', 'c'), ['a', 'b', 'c']],
    ['reversed', false, from(HR, 'a', 'b', 'c'), ['c', 'b', 'a']],
    ['one value replaced, same count', true, from(HR, 'a', 'b', 'c'), ['c', 'd', 'a']],
    ['one value fewer', true, from(HR, 'a', 'b', 'c'), ['c', 'a']],
    ['same values from another system', true, from(AD, 'a', 'b'), ['b', 'a']],
    ['a stored duplicate is not the same list', true, from(HR, 'a', 'a', 'b'), ['b', 'a', 'c']],
  ])('multi-valued comparison: %s → changed %s', (_name, changed, current, now) => {
    const hr = joined(HR, { [MAIL]: now }, [mapping(1, HR, EMAILS, [direct(MAIL)], 1)]);
    const result = flow({ current: { [EMAILS]: current }, contributors: [hr] });
    expect([result.changed, Object.fromEntries(result.flows)]).toEqual(changed ? [[EMAILS], { 'hr-1': 1 }] : [[], {}]);
    expect(result.attributes[EMAILS]).toEqual(changed ? from(HR, ...now) : current);
  });

  it('sees a value added to a multi-valued attribute', () => {
    const hr = joined(HR, { [MAIL]: ['b@x.com', 'a@x.com', 'c@x.com'] }, [mapping(1, HR, EMAILS, [direct(MAIL)], 1)]);
    const result = flow({ current: { [EMAILS]: from(HR, 'a@x.com', 'b@x.com') }, contributors: [hr] });
    expect(summary(result)).toEqual({
      attributes: { [EMAILS]: from(HR, 'b@x.com', 'a@x.com', 'c@x.com') },
      changed: [EMAILS],
      flows: { 'hr-1': 1 },
      errors: [],
    });
  });
});

describe('computeMetaverseAttributes: attribute priority', () => {
  interface Side {
    system: number;
    priority: number | null;
    value?: string[];
    nullIsValue?: boolean;
    mappingId?: number;
  }
  const side = (system: number, priority: number | null, value?: string[], extra: Partial<Side> = {}): Side => ({
    system,
    priority,
    value,
    ...extra,
  });
  const department = (s: Side): Contributor =>
    joined(s.system, s.value ? { [DEPT]: s.value } : {}, [
      mapping(s.mappingId ?? s.system * 100, s.system, DEPARTMENT, [direct(DEPT)], s.priority, s.nullIsValue ?? false),
    ]);

  it.each<[string, Side[], StoredMetaverseValue[], StoredMetaverseValue[] | undefined, string | null]>([
    // [case, contributors, current Department, expected Department, contributor credited with a flow]
    ['1 beats 2', [side(HR, 1, ['Sales']), side(AD, 2, ['IT'])], [], from(HR, 'Sales'), 'hr-1'],
    ['1 beats 2 whichever system it is', [side(HR, 2, ['Sales']), side(AD, 1, ['IT'])], [], from(AD, 'IT'), 'ad-1'],
    ['the order of the contributors does not matter', [side(AD, 1, ['IT']), side(HR, 2, ['Sales'])], [], from(AD, 'IT'), 'ad-1'],
    ['a better contributor without a value lets the next one win', [side(HR, 1), side(AD, 2, ['IT'])], [], from(AD, 'IT'), 'ad-1'],
    ['a blank value is no value', [side(HR, 1, ['  ']), side(AD, 2, ['IT'])], [], from(AD, 'IT'), 'ad-1'],
    ['no priority comes after every numbered one', [side(HR, null, ['Sales']), side(AD, 50, ['IT'])], [], from(AD, 'IT'), 'ad-1'],
    ['no priority still wins over no value', [side(HR, 1), side(AD, null, ['IT'])], [], from(AD, 'IT'), 'ad-1'],
    [
      'equal priorities: the lower mapping id wins',
      [side(HR, 1, ['Sales'], { mappingId: 9 }), side(AD, 1, ['IT'], { mappingId: 3 })],
      [],
      from(AD, 'IT'),
      'ad-1',
    ],
    [
      'both without priority: the lower mapping id wins',
      [side(HR, null, ['Sales'], { mappingId: 2 }), side(AD, null, ['IT'], { mappingId: 7 })],
      [],
      from(HR, 'Sales'),
      'hr-1',
    ],
    [
      'three contributors: the best one with a value',
      [side(HR, 1), side(AD, 2), side(LMS, 3, ['Training'])],
      [],
      from(LMS, 'Training'),
      'lms-1',
    ],
    [
      'three contributors: priority, not position',
      [side(HR, 3, ['Sales']), side(AD, 1), side(LMS, 2, ['Training'])],
      [],
      from(LMS, 'Training'),
      'lms-1',
    ],
    ['three contributors, none with a value: the value goes', [side(HR, 1), side(AD, 2), side(LMS, 3)], from(HR, 'Sales'), undefined, null],
    [
      'nullIsValue: an empty winner clears the attribute',
      [side(HR, 1, undefined, { nullIsValue: true }), side(AD, 2, ['IT'])],
      from(HR, 'Sales'),
      undefined,
      'hr-1',
    ],
    [
      'nullIsValue: a blank winner clears the attribute',
      [side(HR, 1, [' '], { nullIsValue: true }), side(AD, 2, ['IT'])],
      from(AD, 'IT'),
      undefined,
      'hr-1',
    ],
    [
      'nullIsValue: a better contributor with a value still wins',
      [side(AD, 1, ['IT']), side(HR, 2, undefined, { nullIsValue: true })],
      [],
      from(AD, 'IT'),
      'ad-1',
    ],
    [
      'nullIsValue with a value: the value',
      [side(HR, 1, ['Sales'], { nullIsValue: true }), side(AD, 2, ['IT'])],
      [],
      from(HR, 'Sales'),
      'hr-1',
    ],
    [
      'nullIsValue on an already empty attribute: no change',
      [side(HR, 1, undefined, { nullIsValue: true }), side(AD, 2, ['IT'])],
      [],
      undefined,
      null,
    ],
    [
      'the winner loses its value: the runner-up takes over at once',
      [side(HR, 1), side(AD, 2, ['IT'])],
      from(HR, 'Sales'),
      from(AD, 'IT'),
      'ad-1',
    ],
    [
      'the runner-up holds the same value: only the provenance moves',
      [side(HR, 1), side(AD, 2, ['Sales'])],
      from(HR, 'Sales'),
      from(AD, 'Sales'),
      'ad-1',
    ],
    [
      'the winner gets a value back: it takes over again',
      [side(HR, 1, ['Sales']), side(AD, 2, ['IT'])],
      from(AD, 'IT'),
      from(HR, 'Sales'),
      'hr-1',
    ],
    ['nothing changed: no change, no flow', [side(HR, 1, ['Sales']), side(AD, 2, ['IT'])], from(HR, 'Sales'), from(HR, 'Sales'), null],
    [
      'a value set through the API on a mapped attribute gives way to a contributor',
      [side(HR, 1, ['Sales'])],
      from(null, 'Manual'),
      from(HR, 'Sales'),
      'hr-1',
    ],
    [
      'a value set through the API on a mapped attribute goes when no contributor has one',
      [side(HR, 1)],
      from(null, 'Manual'),
      undefined,
      null,
    ],
  ])('%s', (_name, sides, current, expected, credited) => {
    const result = flow({ current: current.length ? { [DEPARTMENT]: current } : {}, contributors: sides.map(department) });
    const changed = JSON.stringify(current) !== JSON.stringify(expected ?? []);
    expect(summary(result)).toEqual({
      attributes: expected ? { [DEPARTMENT]: expected } : {},
      changed: changed ? [DEPARTMENT] : [],
      flows: changed && credited ? { [credited]: 1 } : {},
      errors: [],
    });
  });

  it('counts flows per contributing object, exactly', () => {
    const hr = joined(HR, { [FIRST_NAME]: ['Ann'], [DEPT]: ['Sales'], [TITLE]: ['Engineer'] }, [
      mapping(1, HR, DISPLAY_NAME, [direct(FIRST_NAME)], 1),
      mapping(2, HR, DEPARTMENT, [direct(DEPT)], 1),
      mapping(3, HR, JOB_TITLE, [direct(TITLE)], 2),
    ]);
    const ad = joined(AD, { [DEPT]: ['IT'], [TITLE]: ['Senior Engineer'], [MAIL]: ['ann@x.com'] }, [
      mapping(4, AD, DEPARTMENT, [direct(DEPT)], 2),
      mapping(5, AD, JOB_TITLE, [direct(TITLE)], 1),
      mapping(6, AD, EMAILS, [direct(MAIL)], 1),
    ]);
    // Display Name is already right: only Department (HR), Job Title and Emails (AD) change.
    const result = flow({ current: { [DISPLAY_NAME]: from(HR, 'Ann'), [JOB_TITLE]: from(HR, 'Engineer') }, contributors: [hr, ad] });
    expect(summary(result)).toEqual({
      attributes: {
        [DISPLAY_NAME]: from(HR, 'Ann'),
        [DEPARTMENT]: from(HR, 'Sales'),
        [JOB_TITLE]: from(AD, 'Senior Engineer'),
        [EMAILS]: from(AD, 'ann@x.com'),
      },
      changed: [DEPARTMENT, EMAILS, JOB_TITLE],
      flows: { 'hr-1': 1, 'ad-1': 2 },
      errors: [],
    });
  });

  it('records the rule of the winning mapping when a system has two rules', () => {
    const hr = joined(HR, { [DEPT]: ['Sales'], [TITLE]: ['Engineer'] }, null);
    const contributor: Contributor = {
      ...hr,
      rules: [
        { ...rule(HR, [{ ...mapping(1, HR, DEPARTMENT, [direct(DEPT)], 2), ruleId: 11 }]), id: 11 },
        { ...rule(HR, [{ ...mapping(2, HR, DEPARTMENT, [direct(TITLE)], 1), ruleId: 12 }]), id: 12 },
      ],
    };
    expect(flow({ current: {}, contributors: [contributor] }).attributes[DEPARTMENT]).toEqual([{ v: 'Engineer', s: HR, r: 12 }]);
  });
});

describe('computeMetaverseAttributes: joins that end or pause', () => {
  const hrDept = (priority = 1) => mapping(100, HR, DEPARTMENT, [direct(DEPT)], priority);
  const adDept = (priority = 2) => mapping(200, AD, DEPARTMENT, [direct(DEPT)], priority);
  const adTitle = mapping(201, AD, JOB_TITLE, [direct(TITLE)], 1);
  const CURRENT: StoredMetaverseAttributes = {
    [DEPARTMENT]: from(HR, 'Sales'),
    [DISPLAY_NAME]: from(HR, 'Ann Lee'),
    [JOB_TITLE]: from(AD, 'Engineer'),
    [DESCRIPTION]: from(null, 'Set by an administrator'),
  };

  it.each<[string, Omit<InboundInput, 'attributes' | 'current'>, StoredMetaverseAttributes, number[], Record<string, number>]>([
    [
      'leaving, values recalled: its values go, others stay',
      { contributors: [joined(AD, { [TITLE]: ['Engineer'] }, [adTitle, adDept()])], leaving: [{ systemId: HR, keepValues: false }] },
      { [JOB_TITLE]: from(AD, 'Engineer'), [DESCRIPTION]: from(null, 'Set by an administrator') },
      [DISPLAY_NAME, DEPARTMENT],
      {},
    ],
    [
      'leaving, values recalled: the next contributor takes over in the same call',
      {
        contributors: [joined(AD, { [TITLE]: ['Engineer'], [DEPT]: ['IT'] }, [adTitle, adDept()])],
        leaving: [{ systemId: HR, keepValues: false }],
      },
      { [DEPARTMENT]: from(AD, 'IT'), [JOB_TITLE]: from(AD, 'Engineer'), [DESCRIPTION]: from(null, 'Set by an administrator') },
      [DISPLAY_NAME, DEPARTMENT],
      { 'ad-1': 1 },
    ],
    [
      'leaving, values kept: they stay, mapped by others or not',
      { contributors: [joined(AD, { [TITLE]: ['Engineer'] }, [adTitle, adDept()])], leaving: [{ systemId: HR, keepValues: true }] },
      CURRENT,
      [],
      {},
    ],
    [
      'leaving, values kept: a contributor with a value still takes over',
      {
        contributors: [joined(AD, { [TITLE]: ['Engineer'], [DEPT]: ['IT'] }, [adTitle, adDept()])],
        leaving: [{ systemId: HR, keepValues: true }],
      },
      { ...CURRENT, [DEPARTMENT]: from(AD, 'IT') },
      [DEPARTMENT],
      { 'ad-1': 1 },
    ],
    [
      'the last one leaving, values recalled: only values set through the API remain',
      {
        contributors: [],
        leaving: [
          { systemId: HR, keepValues: false },
          { systemId: AD, keepValues: false },
        ],
      },
      { [DESCRIPTION]: from(null, 'Set by an administrator') },
      [DISPLAY_NAME, DEPARTMENT, JOB_TITLE],
      {},
    ],
    [
      'two leaving, one keeping: each per its own setting',
      {
        contributors: [],
        leaving: [
          { systemId: HR, keepValues: true },
          { systemId: AD, keepValues: false },
        ],
      },
      { [DEPARTMENT]: from(HR, 'Sales'), [DISPLAY_NAME]: from(HR, 'Ann Lee'), [DESCRIPTION]: from(null, 'Set by an administrator') },
      [JOB_TITLE],
      {},
    ],
    [
      'frozen (out of scope, RemainJoined): its values stay although it flows nothing',
      {
        contributors: [joined(HR, { [DEPT]: ['Legal'] }, null), joined(AD, { [TITLE]: ['Engineer'] }, [adTitle, adDept()])],
        frozenSystemIds: [HR],
      },
      CURRENT,
      [],
      {},
    ],
    [
      'frozen: a new value in the frozen object does not flow',
      { contributors: [joined(HR, { [DEPT]: ['Legal'] }, null), joined(AD, { [TITLE]: ['Engineer'] }, [adTitle])], frozenSystemIds: [HR] },
      CURRENT,
      [],
      {},
    ],
    [
      'joined but in scope of no rule, not frozen: its values go',
      { contributors: [joined(HR, { [DEPT]: ['Sales'] }, null), joined(AD, { [TITLE]: ['Engineer'] }, [adTitle])] },
      { [JOB_TITLE]: from(AD, 'Engineer'), [DESCRIPTION]: from(null, 'Set by an administrator') },
      [DISPLAY_NAME, DEPARTMENT],
      {},
    ],
    [
      'a system that no longer maps an attribute gives it up, and keeps the rest',
      { contributors: [joined(HR, { [DEPT]: ['Sales'] }, [hrDept()]), joined(AD, { [TITLE]: ['Engineer'] }, [adTitle])] },
      { [DEPARTMENT]: from(HR, 'Sales'), [JOB_TITLE]: from(AD, 'Engineer'), [DESCRIPTION]: from(null, 'Set by an administrator') },
      [DISPLAY_NAME],
      {},
    ],
  ])('%s', (_name, input, expected, changed, flows) => {
    expect(summary(flow({ current: CURRENT, ...input }))).toEqual({ attributes: expected, changed, flows, errors: [] });
  });

  it('keeps values set through the API on attributes no rule maps, whatever else happens', () => {
    const current = { [DESCRIPTION]: from(null, 'VIP'), [EMAILS]: from(null, 'a@x.com', 'b@x.com') };
    for (const input of [
      { contributors: [] },
      { contributors: [joined(HR, { [DEPT]: ['Sales'] }, [hrDept()])] },
      { contributors: [], leaving: [{ systemId: HR, keepValues: false }] },
    ]) {
      const result = flow({ current, ...input });
      expect(result.attributes[DESCRIPTION]).toEqual(from(null, 'VIP'));
      expect(result.attributes[EMAILS]).toEqual(from(null, 'a@x.com', 'b@x.com'));
      expect(result.changed.filter((id) => id === DESCRIPTION || id === EMAILS)).toEqual([]);
    }
  });

  it('keeps stored values without a rule id as they are when nothing changes', () => {
    const current = { [DEPARTMENT]: [{ v: 'Sales', s: HR, r: ruleId(HR) }], [DESCRIPTION]: [{ v: 'VIP', s: null }] };
    const result = flow({ current, contributors: [joined(HR, { [DEPT]: ['Sales'] }, [hrDept()])] });
    expect(summary(result)).toEqual({ attributes: current, changed: [], flows: {}, errors: [] });
  });
});

describe('computeMetaverseAttributes: errors', () => {
  const TWO_MAILS = { [MAIL]: ['a@x.com', 'b@x.com'], [DEPT]: ['Sales'] };
  const multiToSingle = {
    csoId: 'hr-1',
    errorType: ExecutionErrorType.MultiValuedToSingleValued,
    message: 'Display Name is single-valued but the source gave 2 values.',
  };
  const expressionError = {
    csoId: 'hr-1',
    errorType: ExecutionErrorType.ExpressionEvaluationError,
    message: 'Display Name: Left: count must be 0 or more, got -1',
  };

  it.each<[string, MappingSource[], unknown]>([
    ['several values into a single-valued attribute', [direct(MAIL)], multiToSingle],
    ['an expression that throws', [expr('Left(cs["department"], -1)')], expressionError],
  ])('%s: the attribute is left alone, the error names the object, other attributes still flow', (_name, sources, error) => {
    const hr = joined(HR, TWO_MAILS, [mapping(1, HR, DISPLAY_NAME, sources, 1), mapping(2, HR, DEPARTMENT, [direct(DEPT)], 1)]);
    const ad = joined(AD, { [FIRST_NAME]: ['From AD'] }, [mapping(3, AD, DISPLAY_NAME, [direct(FIRST_NAME)], 2)]);
    const currents: StoredMetaverseAttributes[] = [
      { [DISPLAY_NAME]: from(HR, 'Ann Lee') },
      { [DISPLAY_NAME]: from(AD, 'Old AD value') },
      {},
    ];
    for (const current of currents) {
      expect(summary(flow({ current, contributors: [hr, ad] }))).toEqual({
        attributes: { ...current, [DEPARTMENT]: from(HR, 'Sales') },
        changed: [DEPARTMENT],
        flows: { 'hr-1': 1 },
        errors: [error],
      });
    }
  });

  it('reports the error of a contributor that would not have won, and lets the winner flow', () => {
    const ad = joined(AD, { [FIRST_NAME]: ['Ann'] }, [mapping(3, AD, DISPLAY_NAME, [direct(FIRST_NAME)], 1)]);
    const hr = joined(HR, TWO_MAILS, [mapping(1, HR, DISPLAY_NAME, [direct(MAIL)], 2)]);
    expect(summary(flow({ current: {}, contributors: [hr, ad] }))).toEqual({
      attributes: { [DISPLAY_NAME]: from(AD, 'Ann') },
      changed: [DISPLAY_NAME],
      flows: { 'ad-1': 1 },
      errors: [multiToSingle],
    });
  });

  it("reports a value that is not of the attribute's type, and leaves the attribute alone", () => {
    const hr = joined(HR, { [EMP_NO]: ['n/a'] }, [mapping(1, HR, EMPLOYEE_NUMBER, [direct(EMP_NO)], 1)]);
    expect(summary(flow({ current: { [EMPLOYEE_NUMBER]: from(HR, 1000) }, contributors: [hr] }))).toEqual({
      attributes: { [EMPLOYEE_NUMBER]: from(HR, 1000) },
      changed: [],
      flows: {},
      errors: [
        { csoId: 'hr-1', errorType: ExecutionErrorType.UnhandledError, message: 'Employee Number: "n/a" is not a valid Integer value.' },
      ],
    });
  });

  it('ignores mappings to attributes the metaverse type does not have', () => {
    const hr = joined(HR, { [DEPT]: ['Sales'] }, [mapping(1, HR, 999, [direct(DEPT)], 1)]);
    expect(summary(flow({ current: {}, contributors: [hr] }))).toEqual({ attributes: {}, changed: [], flows: {}, errors: [] });
  });
});

describe('computeMetaverseAttributes: determinism', () => {
  it('gives the same result for the same joins, whatever their order, and is stable when run again', () => {
    const sides = [
      joined(HR, { [DEPT]: ['Sales'], [FIRST_NAME]: ['Ann'] }, [
        mapping(1, HR, DEPARTMENT, [direct(DEPT)], 2),
        mapping(2, HR, DISPLAY_NAME, [direct(FIRST_NAME)], null),
      ]),
      joined(AD, { [DEPT]: ['IT'], [FIRST_NAME]: ['Ann L.'] }, [
        mapping(3, AD, DEPARTMENT, [direct(DEPT)], 1),
        mapping(4, AD, DISPLAY_NAME, [direct(FIRST_NAME)], null),
      ]),
      joined(LMS, { [DEPT]: ['Training'] }, [mapping(5, LMS, DEPARTMENT, [direct(DEPT)], 3)]),
    ];
    const first = flow({ current: {}, contributors: sides });
    expect(first.attributes).toEqual({ [DEPARTMENT]: from(AD, 'IT'), [DISPLAY_NAME]: from(HR, 'Ann') });
    expect(flow({ current: {}, contributors: [...sides].reverse() }).attributes).toEqual(first.attributes);
    expect(summary(flow({ current: first.attributes, contributors: sides }))).toEqual({
      attributes: first.attributes,
      changed: [],
      flows: {},
      errors: [],
    });
  });
});

describe('computeMetaverseAttributes: values kept by a system that left', () => {
  const attributes = new Map([[2, { id: 2, name: 'Department', type: 'String', plurality: 'Single' as const }]]);
  const other = (rules: never[] = []) => ({ systemId: 20, csoId: 'ad', rules, values: () => [], cs: {} });

  it('keeps them in later runs until another contributor has a value, and recalls them when the system recalls', () => {
    const current = { 2: [{ v: 'Sales', s: 10, r: 1 }] };
    // The run the system leaves with keepValues: the value stays.
    expect(
      computeMetaverseAttributes({ current, attributes, contributors: [other()], leaving: [{ systemId: 10, keepValues: true }] }),
    ).toMatchObject({ attributes: current, changed: [] });
    // A later run, the system no longer joined and not leaving now: still there.
    expect(computeMetaverseAttributes({ current, attributes, contributors: [other()] })).toMatchObject({
      attributes: current,
      changed: [],
    });
    // A system leaving now that recalls its values: gone.
    expect(
      computeMetaverseAttributes({ current, attributes, contributors: [other()], leaving: [{ systemId: 10, keepValues: false }] }),
    ).toMatchObject({ attributes: {}, changed: [2] });
  });
});
