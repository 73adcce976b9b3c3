import { diffSchema, DiscoveredSchemaAttribute, StoredSchemaAttribute, StoredSchemaObjectType } from './schema-diff';

const found = (name: string, extra: Partial<DiscoveredSchemaAttribute> = {}): DiscoveredSchemaAttribute => ({
  name,
  type: 'String',
  plurality: 'Single',
  writability: 'ReadWrite',
  ...extra,
});

let nextId = 100;
const stored = (name: string, extra: Partial<StoredSchemaAttribute> = {}): StoredSchemaAttribute => ({
  id: nextId++,
  name,
  type: 'String',
  plurality: 'Single',
  writability: 'ReadWrite',
  description: null,
  className: null,
  presentInSchema: true,
  selected: false,
  isExternalId: false,
  isSecondaryExternalId: false,
  ...extra,
});
const type = (
  id: number,
  name: string,
  attributes: StoredSchemaAttribute[],
  extra: Partial<StoredSchemaObjectType> = {},
): StoredSchemaObjectType => ({ id, name, selected: false, presentInSchema: true, attributes, ...extra });

describe('diffSchema', () => {
  it('adds every type and attribute of a first import, unselected, with the first suggested external IDs', () => {
    const diff = diffSchema(
      [],
      [
        {
          name: 'person',
          attributes: [
            found('employeeId', { suggestedExternalId: true, type: 'Integer' }),
            found('altId', { suggestedExternalId: true }),
            found('dn', { suggestedSecondaryExternalId: true }),
            found('mail', { description: 'Email', className: 'x' }),
          ],
        },
      ],
    );
    expect(diff.objectTypesToAdd).toEqual([
      {
        name: 'person',
        attributes: [
          {
            name: 'employeeId',
            type: 'Integer',
            plurality: 'Single',
            writability: 'ReadWrite',
            description: null,
            className: null,
            selected: true,
            isExternalId: true,
            isSecondaryExternalId: false,
          },
          {
            name: 'altId',
            type: 'String',
            plurality: 'Single',
            writability: 'ReadWrite',
            description: null,
            className: null,
            selected: false,
            isExternalId: false,
            isSecondaryExternalId: false,
          },
          {
            name: 'dn',
            type: 'String',
            plurality: 'Single',
            writability: 'ReadWrite',
            description: null,
            className: null,
            selected: true,
            isExternalId: false,
            isSecondaryExternalId: true,
          },
          {
            name: 'mail',
            type: 'String',
            plurality: 'Single',
            writability: 'ReadWrite',
            description: 'Email',
            className: 'x',
            selected: false,
            isExternalId: false,
            isSecondaryExternalId: false,
          },
        ],
      },
    ]);
    expect(diff.attributesToAdd).toEqual([]);
    expect(diff.objectTypesRemoved).toEqual([]);
    expect(diff.affectsSelection).toBe(false);
  });

  it('does not make one attribute both external ID and secondary external ID', () => {
    const diff = diffSchema(
      [],
      [
        {
          name: 'p',
          attributes: [
            found('id', { suggestedExternalId: true, suggestedSecondaryExternalId: true }),
            found('dn', { suggestedSecondaryExternalId: true }),
          ],
        },
      ],
    );
    expect(diff.objectTypesToAdd[0].attributes.map((a) => [a.name, a.isExternalId, a.isSecondaryExternalId])).toEqual([
      ['id', true, false],
      ['dn', false, true],
    ]);
  });

  it('keeps selections of existing types and attributes, matching names case-insensitively', () => {
    const existing = [
      type(
        1,
        'Person',
        [stored('employeeId', { id: 10, selected: true, isExternalId: true }), stored('mail', { id: 11, selected: true })],
        { selected: true },
      ),
    ];
    const diff = diffSchema(existing, [
      { name: 'person', attributes: [found('EmployeeId', { suggestedExternalId: true }), found('mail')] },
    ]);
    expect(diff.objectTypesToAdd).toEqual([]);
    expect(diff.attributesToAdd).toEqual([]);
    // Only the connector-owned spelling changes; nothing about selection.
    expect(diff.objectTypeUpdates).toEqual([{ id: 1, changes: { name: 'person' } }]);
    expect(diff.attributeUpdates).toEqual([{ id: 10, objectType: 'person', attribute: 'EmployeeId', changes: { name: 'EmployeeId' } }]);
    expect(diff.attributesChanged).toEqual([]);
    expect(diff.affectsSelection).toBe(false);
  });

  it('adds new attributes to existing types unselected, applying a suggestion only when the type has no external ID', () => {
    const withId = type(1, 'person', [stored('employeeId', { isExternalId: true, selected: true })]);
    const withoutId = type(2, 'group', [stored('name')]);
    const diff = diffSchema(
      [withId, withoutId],
      [
        { name: 'person', attributes: [found('employeeId'), found('uuid', { suggestedExternalId: true }), found('phone')] },
        { name: 'group', attributes: [found('name'), found('gid', { suggestedExternalId: true })] },
      ],
    );
    expect(diff.attributesToAdd.map((a) => [a.objectTypeId, a.attribute.name, a.attribute.selected, a.attribute.isExternalId])).toEqual([
      [1, 'uuid', false, false],
      [1, 'phone', false, false],
      [2, 'gid', true, true],
    ]);
  });

  it.each([
    ['type', { type: 'Integer' }, ['type']],
    ['plurality', { plurality: 'Multi' }, ['plurality']],
    ['writability', { writability: 'ReadOnly' }, ['writability']],
    ['description', { description: 'New' }, ['description']],
    ['several', { type: 'DateTime', className: 'c' }, ['type', 'className']],
  ])('refreshes the connector-owned %s of an attribute', (_label, change, fields) => {
    const existing = [type(1, 'person', [stored('x', { id: 7 })])];
    const diff = diffSchema(existing, [{ name: 'person', attributes: [found('x', change as Partial<DiscoveredSchemaAttribute>)] }]);
    expect(diff.attributeUpdates).toEqual([{ id: 7, objectType: 'person', attribute: 'x', changes: change }]);
    expect(diff.attributesChanged).toEqual([{ objectType: 'person', attribute: 'x', fields }]);
  });

  it('flags attributes and types that disappeared, keeps them, and reports them once', () => {
    const existing = [
      type(
        1,
        'person',
        [
          stored('employeeId', { id: 20, isExternalId: true, selected: true }),
          stored('mail', { id: 21, selected: true }),
          stored('gone', { id: 22, presentInSchema: false }),
        ],
        { selected: true },
      ),
      type(2, 'group', [stored('name', { id: 23 })]),
      type(3, 'old', [], { presentInSchema: false }),
    ];
    const diff = diffSchema(existing, [{ name: 'person', attributes: [found('employeeId')] }]);
    expect(diff.attributeUpdates).toEqual([{ id: 21, objectType: 'person', attribute: 'mail', changes: { presentInSchema: false } }]);
    expect(diff.attributesRemoved).toEqual([{ objectType: 'person', attribute: 'mail' }]);
    expect(diff.objectTypeUpdates).toEqual([{ id: 2, changes: { presentInSchema: false } }]);
    expect(diff.objectTypesRemoved).toEqual(['group']);
    // A selected attribute of a selected type went away: the next synchronisation must be full.
    expect(diff.affectsSelection).toBe(true);
  });

  it('restores types and attributes that come back', () => {
    const existing = [
      type(1, 'person', [stored('mail', { id: 30, presentInSchema: false, selected: true })], { presentInSchema: false, selected: true }),
    ];
    const diff = diffSchema(existing, [{ name: 'person', attributes: [found('mail')] }]);
    expect(diff.objectTypeUpdates).toEqual([{ id: 1, changes: { presentInSchema: true } }]);
    expect(diff.objectTypesRestored).toEqual(['person']);
    expect(diff.attributeUpdates).toEqual([{ id: 30, objectType: 'person', attribute: 'mail', changes: { presentInSchema: true } }]);
    expect(diff.attributesRestored).toEqual([{ objectType: 'person', attribute: 'mail' }]);
    expect(diff.attributesChanged).toEqual([]);
    expect(diff.affectsSelection).toBe(true);
  });

  it('ignores duplicate names from the connector with a warning, and warns about an empty schema', () => {
    const diff = diffSchema(
      [],
      [
        { name: 'p', attributes: [found('a'), found('A', { type: 'Integer' })] },
        { name: 'P', attributes: [] },
      ],
    );
    expect(diff.objectTypesToAdd).toHaveLength(1);
    expect(diff.objectTypesToAdd[0].attributes.map((a) => [a.name, a.type])).toEqual([['a', 'String']]);
    expect(diff.warnings).toHaveLength(2);
    expect(diffSchema([], []).warnings).toEqual([expect.stringMatching(/no object types/)]);
  });

  it('changes nothing when the schema is the same', () => {
    const existing = [type(1, 'person', [stored('a', { selected: true }), stored('b')], { selected: true })];
    const diff = diffSchema(existing, [{ name: 'person', attributes: [found('a'), found('b')] }]);
    expect(diff).toEqual({
      objectTypesToAdd: [],
      attributesToAdd: [],
      objectTypeUpdates: [],
      attributeUpdates: [],
      objectTypesRemoved: [],
      attributesRemoved: [],
      objectTypesRestored: [],
      attributesRestored: [],
      attributesChanged: [],
      warnings: [],
      affectsSelection: false,
    });
  });
});
