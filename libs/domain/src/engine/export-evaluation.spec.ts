import { compileExpressionOrThrow } from '../expressions';
import { AttributeDataType } from '../metaverse/metaverse-types';
import {
  RelativeDateDirection,
  RelativeDateUnit,
  ScopingCriterion,
  ScopingGroup,
  ScopingGroupType,
  ScopingOperator,
} from '../sync-rules/scoping-criteria';
import { ConnectorSpaceObjectStatus, ExecutionErrorType, PendingExportChangeType } from './engine.enums';
import { evaluateExport, ExportDecision, ExportEvaluation, ExportTarget } from './export-evaluation';
import type { AttributeChange, EngineAttribute, ExportRuleDef, MappingSource, OutboundMapping } from './sync-model';
import { ValueView } from './value-view';

// Metaverse attributes of User.
const DISPLAY_NAME = 1;
const DEPARTMENT = 2;
const EMAILS = 3;
const EMPLOYEE_NUMBER = 4;
const START_DATE = 5;
const MANAGER = 6;
const MEMBER_OF = 7;
const ENABLED = 8;
const ACCOUNT_NAME = 9;
const END_DATE = 10;
const MV_LIST: EngineAttribute[] = [
  { id: DISPLAY_NAME, name: 'Display Name', type: AttributeDataType.String, plurality: 'Single' },
  { id: DEPARTMENT, name: 'Department', type: AttributeDataType.String, plurality: 'Single' },
  { id: EMAILS, name: 'Emails', type: AttributeDataType.String, plurality: 'Multi' },
  { id: EMPLOYEE_NUMBER, name: 'Employee Number', type: AttributeDataType.Integer, plurality: 'Single' },
  { id: START_DATE, name: 'Employee Start Date', type: AttributeDataType.DateTime, plurality: 'Single' },
  { id: MANAGER, name: 'Manager', type: AttributeDataType.Reference, plurality: 'Single' },
  { id: MEMBER_OF, name: 'Member Of', type: AttributeDataType.Reference, plurality: 'Multi' },
  { id: ENABLED, name: 'Account Enabled', type: AttributeDataType.Boolean, plurality: 'Single' },
  { id: ACCOUNT_NAME, name: 'Account Name', type: AttributeDataType.String, plurality: 'Single' },
  { id: END_DATE, name: 'Employee End Date', type: AttributeDataType.DateTime, plurality: 'Single' },
];
const MV_SCHEMA = new Map(MV_LIST.map((a) => [a.id, a]));
const MV_TYPES = new Map(MV_LIST.map((a) => [a.id, a.type]));

// Attributes of the target object type.
const T_DISPLAY = 201;
const T_DEPT = 202;
const T_PROXY = 203;
const T_EMP_NO = 204;
const T_EMP_ID = 205;
const T_MANAGER = 206;
const T_MEMBER_OF = 207;
const T_ENABLED = 208;
const T_PASSWORD = 209;
const T_SAM = 210;
const T_START = 211;
const T_DESCRIPTION = 212;
const TARGET_ATTRIBUTES = new Map<number, EngineAttribute>(
  (
    [
      [T_DISPLAY, 'displayName', AttributeDataType.String, 'Single'],
      [T_DEPT, 'department', AttributeDataType.String, 'Single'],
      [T_PROXY, 'proxyAddresses', AttributeDataType.String, 'Multi'],
      [T_EMP_NO, 'employeeNumber', AttributeDataType.Integer, 'Single'],
      [T_EMP_ID, 'employeeID', AttributeDataType.String, 'Single'],
      [T_MANAGER, 'manager', AttributeDataType.Reference, 'Single'],
      [T_MEMBER_OF, 'memberOf', AttributeDataType.Reference, 'Multi'],
      [T_ENABLED, 'enabled', AttributeDataType.Boolean, 'Single'],
      [T_PASSWORD, 'initialPassword', AttributeDataType.String, 'Single'],
      [T_SAM, 'sAMAccountName', AttributeDataType.String, 'Single'],
      [T_START, 'startDate', AttributeDataType.DateTime, 'Single'],
      [T_DESCRIPTION, 'description', AttributeDataType.String, 'Single'],
    ] as const
  ).map(([id, name, type, plurality]) => [id, { id, name, type, plurality }]),
);

const MGR = '0190a1b2-0000-7000-8000-000000000001';
const MGR2 = '0190a1b2-0000-7000-8000-000000000002';
const GROUP_A = '0190a1b2-0000-7000-8000-00000000000a';
const GROUP_B = '0190a1b2-0000-7000-8000-00000000000b';
const GROUP_C = '0190a1b2-0000-7000-8000-00000000000c';
const NOW = new Date('2025-06-15T12:00:00.000Z');
const AD = 2;

const direct = (attributeId: number): MappingSource => ({ attributeId, expression: null });
const expr = (text: string): MappingSource => ({ attributeId: null, expression: compileExpressionOrThrow(text) });
const out = (id: number, target: number, sources: MappingSource[], initialExportOnly = false): OutboundMapping => ({
  id,
  targetAttributeId: target,
  initialExportOnly,
  sources,
});

const MAPPINGS: OutboundMapping[] = [
  out(1, T_DISPLAY, [direct(DISPLAY_NAME)]),
  out(2, T_DEPT, [direct(DEPARTMENT)]),
  out(3, T_PROXY, [direct(EMAILS)]),
  out(4, T_EMP_NO, [direct(EMPLOYEE_NUMBER)]),
  out(5, T_EMP_ID, [direct(EMPLOYEE_NUMBER)]),
  out(6, T_MANAGER, [direct(MANAGER)]),
  out(7, T_MEMBER_OF, [direct(MEMBER_OF)]),
  out(8, T_ENABLED, [direct(ENABLED)]),
  out(9, T_PASSWORD, [expr('"Welcome-" + ToString(mv["Employee Number"])')], true),
  out(10, T_SAM, [expr('Lower(mv["Account Name"])')]),
  out(11, T_START, [direct(START_DATE)]),
];

function exportRule(overrides: Partial<ExportRuleDef> = {}): ExportRuleDef {
  return {
    id: 50,
    name: 'AD users',
    systemId: AD,
    csObjectTypeId: 20,
    mvObjectTypeId: 1,
    provision: true,
    scoping: [],
    deprovisionAction: 'Delete',
    mappings: MAPPINGS,
    ...overrides,
  };
}

type Values = Record<number, unknown[]>;

/** A fully populated metaverse object. */
const MVO: Values = {
  [DISPLAY_NAME]: ['Ann Lee'],
  [DEPARTMENT]: ['Sales'],
  [EMAILS]: ['SMTP:ann@x.com', 'smtp:a.lee@x.com'],
  [EMPLOYEE_NUMBER]: [1001],
  [START_DATE]: ['2024-03-01T00:00:00.000Z'],
  [MANAGER]: [MGR],
  [MEMBER_OF]: [GROUP_A, GROUP_B],
  [ENABLED]: [true],
  [ACCOUNT_NAME]: ['ALee'],
};

/** What the joined target object holds when it matches MVO exactly. */
const IN_SYNC: Values = {
  [T_DISPLAY]: ['Ann Lee'],
  [T_DEPT]: ['Sales'],
  [T_PROXY]: ['SMTP:ann@x.com', 'smtp:a.lee@x.com'],
  [T_EMP_NO]: [1001],
  [T_EMP_ID]: ['1001'],
  [T_MANAGER]: [MGR],
  [T_MEMBER_OF]: [GROUP_A, GROUP_B],
  [T_ENABLED]: [true],
  [T_SAM]: ['alee'],
  [T_START]: ['2024-03-01T00:00:00.000Z'],
};

/** The Create a provisioning of MVO stages. */
const CREATE: AttributeChange[] = [
  { a: T_DISPLAY, op: 'Replace', v: ['Ann Lee'] },
  { a: T_DEPT, op: 'Replace', v: ['Sales'] },
  { a: T_PROXY, op: 'Replace', v: ['SMTP:ann@x.com', 'smtp:a.lee@x.com'] },
  { a: T_EMP_NO, op: 'Replace', v: [1001] },
  { a: T_EMP_ID, op: 'Replace', v: ['1001'] },
  { a: T_MANAGER, op: 'Replace', v: [], mv: [MGR] },
  { a: T_MEMBER_OF, op: 'Replace', v: [], mv: [GROUP_A, GROUP_B] },
  { a: T_ENABLED, op: 'Replace', v: [true] },
  { a: T_PASSWORD, op: 'Replace', v: ['Welcome-1001'] },
  { a: T_SAM, op: 'Replace', v: ['alee'] },
  { a: T_START, op: 'Replace', v: ['2024-03-01T00:00:00.000Z'] },
];

interface TargetSpec {
  values?: Values;
  status?: ConnectorSpaceObjectStatus;
  pending?: { changeType: PendingExportChangeType; changes: AttributeChange[] } | null;
}

function target(spec: TargetSpec = {}): ExportTarget {
  const values = spec.values ?? IN_SYNC;
  return {
    csoId: 'ad-1',
    status: spec.status ?? ConnectorSpaceObjectStatus.Normal,
    values: (id) => values[id],
    pending: spec.pending ?? null,
  };
}

/** A target provisioned by an earlier run whose Create is not exported yet. */
const creating = (changes: AttributeChange[] = CREATE): TargetSpec => ({
  values: {},
  status: ConnectorSpaceObjectStatus.PendingProvisioning,
  pending: { changeType: PendingExportChangeType.Create, changes },
});
const updating = (changes: AttributeChange[]): TargetSpec => ({ pending: { changeType: PendingExportChangeType.Update, changes } });
const deleting: TargetSpec = { pending: { changeType: PendingExportChangeType.Delete, changes: [] } };

/** `scopingTypes` null: the attribute types are not given. */
function evaluate(
  mv: Values,
  tgt: ExportTarget | null,
  rule = exportRule(),
  scopingTypes: ReadonlyMap<number, string> | null = MV_TYPES,
): ExportEvaluation {
  const stored = Object.fromEntries(Object.entries(mv).map(([k, list]) => [k, list.map((v) => ({ v, s: 1 }))]));
  const view = ValueView.ofMetaverseObject(stored, MV_SCHEMA);
  const targetValues = tgt ? Object.fromEntries([...TARGET_ATTRIBUTES.keys()].map((id) => [id, [...(tgt.values(id) ?? [])]])) : null;
  return evaluateExport({
    rule,
    values: (id) => mv[id] ?? [],
    scoping: view.scoping,
    scopingTypes: scopingTypes ?? undefined,
    context: { mv: view.expression, cs: targetValues ? ValueView.ofConnectorObject(targetValues, TARGET_ATTRIBUTES).expression : null },
    targetAttributes: TARGET_ATTRIBUTES,
    target: tgt,
    now: NOW,
  });
}

const without = (values: Values, ...ids: number[]): Values =>
  Object.fromEntries(Object.entries(values).filter(([k]) => !ids.includes(Number(k))));
const NONE: ExportDecision = { action: 'None' };
const update = (changes: AttributeChange[], added = changes.length): ExportDecision => ({ action: 'Update', changes, added });

describe('evaluateExport: provisioning', () => {
  it('provisions with every mapped attribute (references as metaverse ids, initial-only ones included)', () => {
    expect(evaluate(MVO, null)).toEqual({ decision: { action: 'Provision', changes: CREATE }, errors: [] });
  });

  it('leaves empty attributes out of a Create', () => {
    const mv = without(MVO, DEPARTMENT, MANAGER, MEMBER_OF, EMAILS);
    expect(evaluate({ ...mv, [DISPLAY_NAME]: ['   '] }, null)).toEqual({
      decision: { action: 'Provision', changes: CREATE.filter((c) => ![T_DISPLAY, T_DEPT, T_MANAGER, T_MEMBER_OF, T_PROXY].includes(c.a)) },
      errors: [],
    });
  });

  it('does not provision when the rule does not', () => {
    expect(evaluate(MVO, null, exportRule({ provision: false }))).toEqual({ decision: NONE, errors: [] });
  });

  it('reports a mapping that fails and provisions the rest', () => {
    const rule = exportRule({ mappings: [...MAPPINGS, out(12, T_DESCRIPTION, [expr('Left(mv["Display Name"], -1)')])] });
    expect(evaluate(MVO, null, rule)).toEqual({
      decision: { action: 'Provision', changes: CREATE },
      errors: [{ errorType: ExecutionErrorType.ExpressionEvaluationError, message: 'description: Left: count must be 0 or more, got -1' }],
    });
  });

  it('ignores mappings to attributes the target type does not have', () => {
    const rule = exportRule({ mappings: [out(1, 999, [direct(DISPLAY_NAME)]), out(2, T_DEPT, [direct(DEPARTMENT)])] });
    expect(evaluate(MVO, null, rule).decision).toEqual({ action: 'Provision', changes: [{ a: T_DEPT, op: 'Replace', v: ['Sales'] }] });
  });
});

describe('evaluateExport: updates of a joined object', () => {
  it.each<[string, Values, Values, ExportDecision]>([
    // [case, metaverse values, target values, decision]
    ['everything as the target holds it: nothing', MVO, IN_SYNC, NONE],
    ['one attribute differs: only it', { ...MVO, [DEPARTMENT]: ['Legal'] }, IN_SYNC, update([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }])],
    [
      'a change of case is a change',
      { ...MVO, [DISPLAY_NAME]: ['Ann LEE'] },
      IN_SYNC,
      update([{ a: T_DISPLAY, op: 'Replace', v: ['Ann LEE'] }]),
    ],
    ['multi-valued, same values in another order: nothing', { ...MVO, [EMAILS]: ['smtp:a.lee@x.com', 'SMTP:ann@x.com'] }, IN_SYNC, NONE],
    [
      'multi-valued, one value more: the whole list',
      { ...MVO, [EMAILS]: [...MVO[EMAILS], 'smtp:al@x.com'] },
      IN_SYNC,
      update([{ a: T_PROXY, op: 'Replace', v: ['SMTP:ann@x.com', 'smtp:a.lee@x.com', 'smtp:al@x.com'] }]),
    ],
    ['numbers against numeric text, both ways: nothing', MVO, { ...IN_SYNC, [T_EMP_NO]: ['1001'], [T_EMP_ID]: [1001] }, NONE],
    [
      'a number that changed: both targets',
      { ...MVO, [EMPLOYEE_NUMBER]: [1002] },
      IN_SYNC,
      update([
        { a: T_EMP_NO, op: 'Replace', v: [1002] },
        { a: T_EMP_ID, op: 'Replace', v: ['1002'] },
      ]),
    ],
    ['a boolean that changed', { ...MVO, [ENABLED]: [false] }, IN_SYNC, update([{ a: T_ENABLED, op: 'Replace', v: [false] }])],
    ['a computed value, unchanged: nothing', MVO, IN_SYNC, NONE],
    [
      'a computed value the target holds differently',
      MVO,
      { ...IN_SYNC, [T_SAM]: ['ALee'] },
      update([{ a: T_SAM, op: 'Replace', v: ['alee'] }]),
    ],
    ['a value the target lacks', MVO, without(IN_SYNC, T_START), update([{ a: T_START, op: 'Replace', v: ['2024-03-01T00:00:00.000Z'] }])],
    ['a cleared value: RemoveAll', without(MVO, DEPARTMENT), IN_SYNC, update([{ a: T_DEPT, op: 'RemoveAll', v: [] }])],
    ['a cleared multi-valued value: RemoveAll', without(MVO, EMAILS), IN_SYNC, update([{ a: T_PROXY, op: 'RemoveAll', v: [] }])],
    ['empty on both sides: nothing', without(MVO, DEPARTMENT), without(IN_SYNC, T_DEPT), NONE],
    [
      'initial-only mappings never flow on update',
      { ...MVO, [EMPLOYEE_NUMBER]: [1001] },
      { ...IN_SYNC, [T_PASSWORD]: ['something else'] },
      NONE,
    ],
    [
      'a reference that changed: the new metaverse id',
      { ...MVO, [MANAGER]: [MGR2] },
      IN_SYNC,
      update([{ a: T_MANAGER, op: 'Replace', v: [], mv: [MGR2] }]),
    ],
    ['a cleared reference: RemoveAll', without(MVO, MANAGER), IN_SYNC, update([{ a: T_MANAGER, op: 'RemoveAll', v: [] }])],
    ['references in another order: nothing', { ...MVO, [MEMBER_OF]: [GROUP_B, GROUP_A] }, IN_SYNC, NONE],
    [
      'a reference added: the full list',
      { ...MVO, [MEMBER_OF]: [GROUP_A, GROUP_B, GROUP_C] },
      IN_SYNC,
      update([{ a: T_MEMBER_OF, op: 'Replace', v: [], mv: [GROUP_A, GROUP_B, GROUP_C] }]),
    ],
    [
      'a reference whose target is not joined in the system yet is still a change',
      MVO,
      { ...IN_SYNC, [T_MEMBER_OF]: [GROUP_A] },
      update([{ a: T_MEMBER_OF, op: 'Replace', v: [], mv: [GROUP_A, GROUP_B] }]),
    ],
    [
      'several differences: in mapping order, counted',
      { ...MVO, [DEPARTMENT]: ['Legal'], [DISPLAY_NAME]: ['Ann B. Lee'] },
      { ...IN_SYNC, [T_ENABLED]: [false] },
      update([
        { a: T_DISPLAY, op: 'Replace', v: ['Ann B. Lee'] },
        { a: T_DEPT, op: 'Replace', v: ['Legal'] },
        { a: T_ENABLED, op: 'Replace', v: [true] },
      ]),
    ],
  ])('%s', (_name, mv, held, decision) => {
    expect(evaluate(mv, target({ values: held }))).toEqual({ decision, errors: [] });
  });

  it('does not loop on write-back: a value the system contributed and still holds produces nothing', () => {
    // The rule targets the system the values came from; what it holds is what the metaverse holds.
    const writeBack = exportRule({
      systemId: 1,
      mappings: [out(1, T_DEPT, [direct(DEPARTMENT)]), out(2, T_DISPLAY, [direct(DISPLAY_NAME)])],
    });
    const held: Values = { [T_DEPT]: ['Sales'], [T_DISPLAY]: ['Ann Lee'] };
    expect(evaluate(MVO, target({ values: held }), writeBack)).toEqual({ decision: NONE, errors: [] });
    // Once the value the system sent has been imported back, evaluating again still finds nothing.
    const after = evaluate({ ...MVO, [DEPARTMENT]: ['Legal'] }, target({ values: held }), writeBack);
    expect(after.decision).toEqual(update([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }]));
    expect(evaluate({ ...MVO, [DEPARTMENT]: ['Legal'] }, target({ values: { ...held, [T_DEPT]: ['Legal'] } }), writeBack).decision).toEqual(
      NONE,
    );
  });

  it('reports a mapping that fails and leaves that attribute alone', () => {
    const rule = exportRule({ mappings: [out(1, T_DEPT, [direct(DEPARTMENT)]), out(2, T_DISPLAY, [direct(EMAILS)])] });
    expect(evaluate({ ...MVO, [DEPARTMENT]: ['Legal'] }, target(), rule)).toEqual({
      decision: update([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }]),
      errors: [
        { errorType: ExecutionErrorType.MultiValuedToSingleValued, message: 'displayName is single-valued but the source gave 2 values.' },
      ],
    });
  });

  it('reads the target object through cs[…] in expressions', () => {
    const rule = exportRule({
      mappings: [out(1, T_DESCRIPTION, [expr('IIF(IsNullOrEmpty(cs["description"]), "Managed by Meridian", cs["description"])')])],
    });
    expect(evaluate(MVO, target({ values: IN_SYNC }), rule).decision).toEqual(
      update([{ a: T_DESCRIPTION, op: 'Replace', v: ['Managed by Meridian'] }]),
    );
    expect(evaluate(MVO, target({ values: { [T_DESCRIPTION]: ['Kept'] } }), rule).decision).toEqual(NONE);
  });
});

describe('evaluateExport: merging into an unexported pending export', () => {
  it.each<[string, Values, TargetSpec, ExportDecision]>([
    [
      'an Update that already plans the value: nothing more',
      { ...MVO, [DEPARTMENT]: ['Legal'] },
      updating([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }]),
      NONE,
    ],
    [
      'an Update planning another value: replaced in place',
      { ...MVO, [DEPARTMENT]: ['Legal'] },
      updating([
        { a: T_DISPLAY, op: 'Replace', v: ['Ann Lee'] },
        { a: T_DEPT, op: 'Replace', v: ['Finance'] },
      ]),
      update(
        [
          { a: T_DISPLAY, op: 'Replace', v: ['Ann Lee'] },
          { a: T_DEPT, op: 'Replace', v: ['Legal'] },
        ],
        1,
      ),
    ],
    [
      'an Update of attributes the rule does not map: kept, the new change added',
      { ...MVO, [DEPARTMENT]: ['Legal'] },
      updating([{ a: T_DESCRIPTION, op: 'Replace', v: ['Note'] }]),
      update(
        [
          { a: T_DESCRIPTION, op: 'Replace', v: ['Note'] },
          { a: T_DEPT, op: 'Replace', v: ['Legal'] },
        ],
        1,
      ),
    ],
    [
      'an Update planning a value the metaverse went back on: the planned value is what counts',
      MVO,
      updating([{ a: T_DEPT, op: 'Replace', v: ['Finance'] }]),
      update([{ a: T_DEPT, op: 'Replace', v: ['Sales'] }]),
    ],
    [
      'an Update planning RemoveAll, the metaverse still empty: nothing',
      without(MVO, DEPARTMENT),
      updating([{ a: T_DEPT, op: 'RemoveAll', v: [] }]),
      NONE,
    ],
    [
      'an Update planning RemoveAll, the metaverse has a value again',
      MVO,
      updating([{ a: T_DEPT, op: 'RemoveAll', v: [] }]),
      update([{ a: T_DEPT, op: 'Replace', v: ['Sales'] }]),
    ],
    [
      'an Update planning references: compared by metaverse id',
      MVO,
      updating([{ a: T_MEMBER_OF, op: 'Replace', v: [], mv: [GROUP_B, GROUP_A] }]),
      NONE,
    ],
    ['a Create, nothing changed: nothing', MVO, creating(), NONE],
    [
      'a Create, a value changed: replaced in the Create',
      { ...MVO, [DEPARTMENT]: ['Legal'] },
      creating(),
      update(
        CREATE.map((c) => (c.a === T_DEPT ? { a: T_DEPT, op: 'Replace', v: ['Legal'] } : c)),
        1,
      ),
    ],
    [
      'a Create, initial-only values still follow the metaverse',
      { ...MVO, [EMPLOYEE_NUMBER]: [1002] },
      creating(),
      update(
        CREATE.map(
          (c) =>
            (
              ({
                [T_EMP_NO]: { a: T_EMP_NO, op: 'Replace', v: [1002] },
                [T_EMP_ID]: { a: T_EMP_ID, op: 'Replace', v: ['1002'] },
                [T_PASSWORD]: { a: T_PASSWORD, op: 'Replace', v: ['Welcome-1002'] },
              }) as Record<number, AttributeChange>
            )[c.a] ?? c,
        ),
        3,
      ),
    ],
    [
      'a Create, a value cleared: the attribute leaves the Create',
      without(MVO, DEPARTMENT),
      creating(),
      update(
        CREATE.filter((c) => c.a !== T_DEPT),
        1,
      ),
    ],
    [
      'a Create, a reference cleared: the attribute leaves the Create',
      without(MVO, MEMBER_OF),
      creating(),
      update(
        CREATE.filter((c) => c.a !== T_MEMBER_OF),
        1,
      ),
    ],
    [
      'a Create, a new value: added to the Create',
      { ...MVO, [END_DATE]: ['2026-01-01T00:00:00.000Z'], [DEPARTMENT]: ['Sales'] },
      creating(CREATE.filter((c) => c.a !== T_DEPT)),
      update([...CREATE.filter((c) => c.a !== T_DEPT), { a: T_DEPT, op: 'Replace', v: ['Sales'] }], 1),
    ],
    ['a Delete: updates are suppressed', { ...MVO, [DEPARTMENT]: ['Legal'] }, deleting, NONE],
  ])('%s', (_name, mv, spec, decision) => {
    expect(evaluate(mv, target(spec))).toEqual({ decision, errors: [] });
  });

  it('sends initial-only values to an object whose Create was exported but not yet confirmed only through that Create', () => {
    // The Create is exported (no unexported pending export): the object now counts as existing.
    const exported = target({ status: ConnectorSpaceObjectStatus.PendingProvisioning, values: IN_SYNC, pending: null });
    expect(evaluate({ ...MVO, [EMPLOYEE_NUMBER]: [1002] }, exported).decision).toEqual(
      update([
        { a: T_EMP_NO, op: 'Replace', v: [1002] },
        { a: T_EMP_ID, op: 'Replace', v: ['1002'] },
      ]),
    );
  });
});

describe('evaluateExport: scope', () => {
  const criterion = (
    attributeId: number,
    operator: ScopingOperator,
    value: ScopingCriterion['value'],
    caseSensitive = false,
  ): ScopingCriterion => ({ attributeId, operator, value, caseSensitive });
  const all = (...criteria: ScopingCriterion[]): ScopingGroup => ({ type: ScopingGroupType.All, criteria, groups: [] });
  const any = (...criteria: ScopingCriterion[]): ScopingGroup => ({ type: ScopingGroupType.Any, criteria, groups: [] });
  const SALES_ONLY = [all(criterion(DEPARTMENT, ScopingOperator.Equals, 'sales'))];
  const OUT: Values = { ...MVO, [DEPARTMENT]: ['Legal'] };

  it.each<[string, Partial<ExportRuleDef>, TargetSpec | null, ExportDecision]>([
    ['out of scope, no target: nothing', {}, null, NONE],
    ['out of scope, joined, Disconnect', { deprovisionAction: 'Disconnect' }, {}, { action: 'Disconnect' }],
    ['out of scope, joined, Delete', {}, {}, { action: 'Delete' }],
    [
      'out of scope, joined with a pending Update, Delete: the Delete replaces it',
      {},
      updating([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }]),
      { action: 'Delete' },
    ],
    [
      'out of scope, joined with a pending Update, Disconnect',
      { deprovisionAction: 'Disconnect' },
      updating([{ a: T_DEPT, op: 'Replace', v: ['Legal'] }]),
      { action: 'Disconnect' },
    ],
    ['out of scope with an unexported Create, Delete: both cancel', {}, creating(), { action: 'CancelCreate' }],
    [
      'out of scope with an unexported Create, Disconnect: the Create is cancelled too',
      { deprovisionAction: 'Disconnect' },
      creating(),
      { action: 'CancelCreate' },
    ],
    ['out of scope with a pending Delete: nothing more', {}, deleting, NONE],
    [
      'out of scope, the Create exported but unconfirmed, Delete: a Delete',
      {},
      { status: ConnectorSpaceObjectStatus.PendingProvisioning },
      { action: 'Delete' },
    ],
  ])('%s', (_name, overrides, spec, decision) => {
    expect(evaluate(OUT, spec ? target(spec) : null, exportRule({ scoping: SALES_ONLY, ...overrides }))).toEqual({ decision, errors: [] });
  });

  it('evaluates nothing else once out of scope (no errors from failing mappings)', () => {
    const rule = exportRule({ scoping: SALES_ONLY, mappings: [out(1, T_DESCRIPTION, [expr('Left("x", -1)')])] });
    expect(evaluate(OUT, target(), rule)).toEqual({ decision: { action: 'Delete' }, errors: [] });
  });

  it.each<[string, ScopingGroup[], Values, boolean]>([
    ['no criteria: everything', [], {}, true],
    ['text, ignoring case', SALES_ONLY, MVO, true],
    ['text, case-sensitive', [all(criterion(DEPARTMENT, ScopingOperator.Equals, 'sales', true))], MVO, false],
    [
      'a multi-valued attribute: any of its values',
      [all(criterion(EMAILS, ScopingOperator.EndsWith, '@X.COM'))],
      { [EMAILS]: ['a@y.com', 'b@x.com'] },
      true,
    ],
    ['an Integer compared as a number', [all(criterion(EMPLOYEE_NUMBER, ScopingOperator.GreaterThan, 999))], MVO, true],
    [
      'an Integer compared as a number, not as text',
      [all(criterion(EMPLOYEE_NUMBER, ScopingOperator.GreaterThan, 999))],
      { [EMPLOYEE_NUMBER]: [1000] },
      true,
    ],
    ['a DateTime against an absolute date', [all(criterion(START_DATE, ScopingOperator.LessThan, '2025-01-01T00:00:00.000Z'))], MVO, true],
    [
      'a DateTime against a relative date (end date more than 30 days ago)',
      [
        all(
          criterion(END_DATE, ScopingOperator.LessThan, {
            relative: { amount: 30, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago },
          }),
        ),
      ],
      { ...MVO, [END_DATE]: ['2025-05-01T00:00:00.000Z'] },
      true,
    ],
    [
      'a DateTime against a relative date, not yet',
      [
        all(
          criterion(END_DATE, ScopingOperator.LessThan, {
            relative: { amount: 30, unit: RelativeDateUnit.Days, direction: RelativeDateDirection.Ago },
          }),
        ),
      ],
      { ...MVO, [END_DATE]: ['2025-06-01T00:00:00.000Z'] },
      false,
    ],
    ['a Boolean', [all(criterion(ENABLED, ScopingOperator.Equals, true))], { ...MVO, [ENABLED]: [false] }, false],
    [
      'absent value: comparisons fail, negations hold',
      [all(criterion(DEPARTMENT, ScopingOperator.NotEquals, 'Sales'))],
      without(MVO, DEPARTMENT),
      true,
    ],
    ['presence', [all(criterion(MANAGER, ScopingOperator.IsPresent, null))], without(MVO, MANAGER), false],
    [
      'Any: one criterion is enough',
      [any(criterion(DEPARTMENT, ScopingOperator.Equals, 'Legal'), criterion(ENABLED, ScopingOperator.Equals, true))],
      MVO,
      true,
    ],
    [
      'All: every criterion',
      [all(criterion(DEPARTMENT, ScopingOperator.Equals, 'Sales'), criterion(ENABLED, ScopingOperator.Equals, false))],
      MVO,
      false,
    ],
    [
      'top-level groups OR together',
      [all(criterion(DEPARTMENT, ScopingOperator.Equals, 'Legal')), all(criterion(ENABLED, ScopingOperator.Equals, true))],
      MVO,
      true,
    ],
    [
      'nested groups',
      [
        {
          type: ScopingGroupType.All,
          criteria: [criterion(ENABLED, ScopingOperator.Equals, true)],
          groups: [any(criterion(DEPARTMENT, ScopingOperator.Equals, 'Legal'), criterion(DEPARTMENT, ScopingOperator.StartsWith, 'Sal'))],
        },
      ],
      MVO,
      true,
    ],
  ])('scoping on metaverse attributes: %s → in scope %s', (_name, scoping, mv, inScope) => {
    const { decision } = evaluate(mv, null, exportRule({ scoping, mappings: [out(1, T_DEPT, [expr('"x"')])] }));
    expect(decision).toEqual(inScope ? { action: 'Provision', changes: [{ a: T_DEPT, op: 'Replace', v: ['x'] }] } : NONE);
  });

  it('compares DateTime criteria as dates only when it is given the attribute types', () => {
    const scoping = [all(criterion(START_DATE, ScopingOperator.LessThan, '2025-01-01T00:00:00.000Z'))];
    const rule = exportRule({ scoping, mappings: [out(1, T_DEPT, [expr('"x"')])] });
    expect(evaluate(MVO, null, rule, MV_TYPES).decision.action).toBe('Provision');
    // Without the types the criterion's value decides, and a text value only supports text operators.
    expect(evaluate(MVO, null, rule, null).decision.action).toBe('None');
  });
});
