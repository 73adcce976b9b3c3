import { CsoChangeType } from '@meridian/domain';
import type { ConnectorSpaceObjectInput } from '@meridian/persistence';
import { addedAttributeChanges, addedRecords } from './cso-changes';

describe('connector space object change records of an import', () => {
  it('records every attribute with values of a new object, from none, in attribute id order', () => {
    expect(addedAttributeChanges({ 12: ['b'], 3: ['a', 'c'], 100: [true], 7: [] })).toEqual([
      { a: 3, o: [], n: ['a', 'c'] },
      { a: 12, o: [], n: ['b'] },
      { a: 100, o: [], n: [true] },
    ]);
    expect(addedAttributeChanges({})).toEqual([]);
  });

  it('leaves out the attributes it is told to, and orders keys that do not enumerate in numeric order', () => {
    expect(addedAttributeChanges({ 3: ['a'], 5: ['b'], 9: ['c'] }, new Set(['5']))).toEqual([
      { a: 3, o: [], n: ['a'] },
      { a: 9, o: [], n: ['c'] },
    ]);
    // "-1" is not an array index: it enumerates after the integer keys, and the result is still ordered.
    expect(addedAttributeChanges({ 5: ['b'], '-1': ['a'] }).map((c) => c.a)).toEqual([-1, 5]);
    // The values are copies: the record does not change with the document it was made from.
    const values = { 4: ['x'] };
    const [change] = addedAttributeChanges(values);
    values[4].push('y');
    expect(change.n).toEqual(['x']);
  });

  it('makes one Added record per inserted object, with the id the writer gave it', () => {
    const inserts: ConnectorSpaceObjectInput[] = [
      { connectedSystemId: 1, objectTypeId: 2, externalId: 'u1', displayName: 'Ann', attributes: { 5: ['u1'] } },
      { connectedSystemId: 1, objectTypeId: 2, externalId: 'u2', attributes: { 5: ['u2'], 6: [42] } },
    ];
    const changes = [
      { id: 'id-2', connectedSystemId: 1, objectTypeId: 2, externalId: 'u2', inserted: true },
      { id: 'id-9', connectedSystemId: 1, objectTypeId: 2, externalId: 'u9', inserted: false },
      { id: 'id-1', connectedSystemId: 1, objectTypeId: 2, externalId: 'u1', inserted: true },
    ];
    expect(addedRecords(inserts, changes)).toEqual([
      {
        connectedSystemId: 1,
        connectedSystemObjectId: 'id-1',
        objectTypeId: 2,
        externalId: 'u1',
        displayName: 'Ann',
        changeType: CsoChangeType.Added,
        attributeChanges: [{ a: 5, o: [], n: ['u1'] }],
      },
      {
        connectedSystemId: 1,
        connectedSystemObjectId: 'id-2',
        objectTypeId: 2,
        externalId: 'u2',
        displayName: null,
        changeType: CsoChangeType.Added,
        attributeChanges: [
          { a: 5, o: [], n: ['u2'] },
          { a: 6, o: [], n: [42] },
        ],
      },
    ]);
  });
});
