import { AttributePlurality, ConnectorSpaceObjectStatus } from '@meridian/domain';
import type { ConnectedSystemEntity, ExportPageRow, StoredAttributeChange } from '@meridian/persistence';
import { prepareExport, referencedMetaverseObjects, referenceIdentifiers, ResolvedReference } from './export-changes';
import { SchemaAttribute, SchemaObjectType, SystemSchema } from './system-schema';

const attr = (id: number, name: string, extra: Partial<SchemaAttribute> = {}): SchemaAttribute => ({
  id,
  objectTypeId: 1,
  name,
  type: 'String',
  plurality: AttributePlurality.Single,
  isExternalId: false,
  isSecondaryExternalId: false,
  ...extra,
});
const attributes = [
  attr(10, 'employeeId', { isExternalId: true }),
  attr(11, 'displayName'),
  attr(12, 'mail', { plurality: AttributePlurality.Multi }),
  attr(13, 'manager', { type: 'Reference' }),
  attr(14, 'member', { type: 'Reference', plurality: AttributePlurality.Multi }),
  attr(15, 'dn', { isSecondaryExternalId: true }),
];
const person: SchemaObjectType = {
  id: 1,
  name: 'person',
  removeContributedAttributesOnObsoletion: false,
  externalId: attributes[0],
  secondaryExternalId: attributes[5],
  attributes,
  byName: new Map(attributes.map((a) => [a.name.toLowerCase(), a])),
};
const schema = new SystemSchema({ id: 7, name: 'Directory' } as ConnectedSystemEntity, [person]);

function row(changeType: string, changes: StoredAttributeChange[], extra: Partial<ExportPageRow> = {}): ExportPageRow {
  return {
    id: 'pe-1',
    csoId: 'cso-1',
    changeType,
    attributeChanges: changes,
    fingerprint: 'f',
    errorCount: 0,
    objectTypeId: 1,
    externalId: 'E1',
    secondaryExternalId: null,
    status: ConnectorSpaceObjectStatus.Normal,
    displayName: 'Ada',
    metaverseObjectId: 'mv-self',
    empty: false,
    current: {},
    currentReferences: {},
    ...extra,
  };
}

const refs = new Map<string, ResolvedReference>([
  ['mv-boss', { csoId: 'cso-boss', identifier: 'CN=Boss' }],
  ['mv-new', { csoId: 'cso-new', identifier: null }],
  ['mv-b', { csoId: 'cso-b', identifier: 'CN=B' }],
]);

describe('prepareExport', () => {
  it('names attributes, keeps values and works out what the object holds, for a Create', () => {
    const p = prepareExport(
      row(
        'Create',
        [
          { a: 10, op: 'Replace', v: ['E1'] },
          { a: 11, op: 'Replace', v: ['Ada'] },
          { a: 15, op: 'Replace', v: ['CN=Ada'] },
        ],
        { externalId: null, status: ConnectorSpaceObjectStatus.PendingProvisioning },
      ),
      schema,
      refs,
    );
    expect(p.change).toEqual({
      id: 'pe-1',
      objectType: 'person',
      changeType: 'Create',
      externalId: null,
      attributes: [
        { name: 'employeeId', operation: 'Replace', values: ['E1'] },
        { name: 'displayName', operation: 'Replace', values: ['Ada'] },
        { name: 'dn', operation: 'Replace', values: ['CN=Ada'] },
      ],
    });
    expect(p).toMatchObject({
      externalIdValue: 'E1',
      secondaryExternalId: 'CN=Ada',
      local: null,
      deferred: [],
      attributesSet: { 10: ['E1'], 11: ['Ada'], 15: ['CN=Ada'] },
    });
  });

  it.each([
    ['Replace', ['a@x', 'b@x'], ['c@x'], ['c@x']],
    ['Add', ['a@x'], ['b@x', 'a@x'], ['a@x', 'b@x']],
    ['Remove', ['a@x', 'b@x'], ['a@x'], ['b@x']],
    ['RemoveAll', ['a@x'], [], null],
  ] as const)('applies %s to the stored values of a multi-valued attribute', (op, current, values, expected) => {
    const p = prepareExport(row('Update', [{ a: 12, op, v: [...values] }], { current: { 12: [...current] } }), schema, refs);
    expect(p.change?.attributes).toEqual([{ name: 'mail', operation: op, values: [...values] }]);
    if (expected) expect(p.attributesSet).toEqual({ 12: expected });
    else expect(p.attributesUnset).toEqual(['12']);
  });

  it('resolves references to the identifiers of their targets and records the targets', () => {
    const p = prepareExport(row('Update', [{ a: 13, op: 'Replace', v: [], mv: ['mv-boss'] }]), schema, refs);
    expect(p.change?.attributes).toEqual([{ name: 'manager', operation: 'Replace', values: ['CN=Boss'] }]);
    expect(p.sent).toEqual([{ a: 13, op: 'Replace', v: ['CN=Boss'], mv: ['mv-boss'] }]);
    expect(p).toMatchObject({ attributesSet: { 13: ['CN=Boss'] }, referencesSet: { 13: ['cso-boss'] }, deferred: [], deferredValues: 0 });
  });

  it('defers a reference whose target has no identifier: the rest is written, the reference waits', () => {
    const p = prepareExport(
      row(
        'Create',
        [
          { a: 10, op: 'Replace', v: ['E1'] },
          { a: 13, op: 'Replace', v: [], mv: ['mv-new'] },
        ],
        { externalId: null },
      ),
      schema,
      refs,
    );
    expect(p.change?.attributes).toEqual([{ name: 'employeeId', operation: 'Replace', values: ['E1'] }]);
    expect(p.deferred).toEqual([{ a: 13, op: 'Replace', v: [], mv: ['mv-new'] }]);
    expect(p.deferredValues).toBe(1);
  });

  it('writes the resolvable part of a multi-valued reference and defers the whole set (Replace) or the rest (Add)', () => {
    const replace = prepareExport(row('Update', [{ a: 14, op: 'Replace', v: [], mv: ['mv-b', 'mv-new', 'mv-unknown'] }]), schema, refs);
    expect(replace.change?.attributes).toEqual([{ name: 'member', operation: 'Replace', values: ['CN=B'] }]);
    expect(replace.deferred).toEqual([{ a: 14, op: 'Replace', v: [], mv: ['mv-b', 'mv-new', 'mv-unknown'] }]);
    const add = prepareExport(
      row('Update', [{ a: 14, op: 'Add', v: [], mv: ['mv-b', 'mv-new'] }], {
        current: { 14: ['CN=A'] },
        currentReferences: { 14: ['cso-a'] },
      }),
      schema,
      refs,
    );
    expect(add.change?.attributes).toEqual([{ name: 'member', operation: 'Add', values: ['CN=B'] }]);
    expect(add.deferred).toEqual([{ a: 14, op: 'Add', v: [], mv: ['mv-new'] }]);
    expect(add).toMatchObject({ attributesSet: { 14: ['CN=A', 'CN=B'] }, referencesSet: { 14: ['cso-a', 'cso-b'] } });
  });

  it('sends nothing for an Update whose every change is deferred (it stays pending as it is)', () => {
    const p = prepareExport(row('Update', [{ a: 13, op: 'Replace', v: [], mv: ['mv-new'] }]), schema, refs);
    expect(p.change).toBeNull();
    expect(p.local).toBeNull();
    expect(p.deferred).toHaveLength(1);
  });

  it('drops the removal of a reference the system cannot hold', () => {
    const p = prepareExport(row('Update', [{ a: 14, op: 'Remove', v: [], mv: ['mv-new'] }]), schema, refs);
    expect(p).toMatchObject({ change: null, local: { success: true }, deferred: [] });
  });

  it.each([
    [
      'an attribute that is not selected',
      row('Update', [{ a: 99, op: 'Replace', v: ['x'] }]),
      /Attribute 99 .* not a selected attribute of "person"/,
    ],
    [
      'an object type that is not selected',
      row('Update', [], { objectTypeId: 2 }),
      /object type .* not selected in the schema of "Directory"/,
    ],
    ['an unknown operation', row('Update', [{ a: 11, op: 'Set' as never, v: ['x'] }]), /"Set" is not an attribute operation/],
  ])('fails %s without the connector', (_name, input, message) => {
    const p = prepareExport(input, schema, refs);
    expect(p.change).toBeNull();
    expect(p.local).toEqual({ success: false, error: expect.stringMatching(message) });
  });

  it('deletes by external ID, and deletes a never-created object without the connector', () => {
    expect(prepareExport(row('Delete', []), schema, refs).change).toEqual({
      id: 'pe-1',
      objectType: 'person',
      changeType: 'Delete',
      externalId: 'E1',
      attributes: [],
    });
    expect(
      prepareExport(row('Delete', [], { externalId: null, status: ConnectorSpaceObjectStatus.PendingProvisioning }), schema, refs),
    ).toMatchObject({ change: null, local: { success: true } });
  });
});

describe('reference identifiers', () => {
  it('collects each referenced metaverse object once', () => {
    expect(
      referencedMetaverseObjects([
        row('Update', [{ a: 14, op: 'Add', v: [], mv: ['a', 'b'] }]),
        row('Update', [{ a: 13, op: 'Replace', v: [], mv: ['a'] }]),
      ]),
    ).toEqual(['a', 'b']);
  });

  it('uses the secondary external ID when the type has one, and nothing for objects still to be provisioned', () => {
    const ids = referenceIdentifiers(
      [
        { metaverseObjectId: 'm1', csoId: 'c1', objectTypeId: 1, status: 'Normal', externalId: 'E1', secondaryExternalId: 'CN=One' },
        {
          metaverseObjectId: 'm2',
          csoId: 'c2',
          objectTypeId: 1,
          status: 'PendingProvisioning',
          externalId: null,
          secondaryExternalId: null,
        },
        { metaverseObjectId: 'm3', csoId: 'c3', objectTypeId: 1, status: 'Normal', externalId: 'E3', secondaryExternalId: null },
        { metaverseObjectId: 'm4', csoId: 'c4', objectTypeId: 2, status: 'Normal', externalId: 'E4', secondaryExternalId: 'x' },
      ],
      schema,
    );
    expect(Object.fromEntries(ids)).toEqual({
      m1: { csoId: 'c1', identifier: 'CN=One' },
      m2: { csoId: 'c2', identifier: null },
      m3: { csoId: 'c3', identifier: null },
      m4: { csoId: 'c4', identifier: 'E4' },
    });
  });
});
