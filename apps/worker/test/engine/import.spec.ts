import { RunContext, SettingsService, SYSTEM_INITIATOR } from '@meridian/application';
import {
  ActivityStatus,
  CsoChangeType,
  ExecutionErrorType,
  InitiatedByType,
  ObjectChangeType,
  RunType,
  SettingKeys,
  UnresolvedReferenceHandling,
} from '@meridian/domain';
import { ImportedObject } from '@meridian/connectors';
import { canonicalAttributesJson, ChangeRecordStore, connectorSpaceContentHash, ImportStore } from '@meridian/persistence';
import { HR_CSV_COLUMNS, HrRecord, hrRecord } from '@meridian/testing';
import { EngineFixture, ScriptedConnector, SystemSetup } from './engine-fixture';

/** Import runs against a real database, through the run-profile executor (DOMAIN.md §2.1, §2.5). */
describe('import (worker)', () => {
  let f: EngineFixture;

  beforeAll(async () => {
    f = await EngineFixture.start('engine-import');
  });

  afterAll(async () => {
    await f?.stop();
  });

  const field = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const line = (r: HrRecord) => HR_CSV_COLUMNS.map((c) => field(r[c])).join(',');
  /** The HR file of rows 1..n, each row passed through `edit` (return null to drop it), plus extra lines. */
  const hr = (n: number, edit: (r: HrRecord, i: number) => HrRecord | null = (r) => r, extra: string[] = []) =>
    [
      HR_CSV_COLUMNS.join(','),
      ...Array.from({ length: n }, (_, k) => edit(hrRecord(k + 1), k + 1))
        .filter((r): r is HrRecord => r !== null)
        .map(line),
      ...extra,
    ].join('\n') + '\n';
  const byType = (items: Array<Record<string, any>>) => {
    const out: Record<string, number> = {};
    for (const i of items) {
      const k = i.error_type ?? i.object_change_type;
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };

  /** An HR system over `file` with a full-import profile of `pageSize`. */
  async function hrSystem(
    file: string,
    rows: number | string,
    options: { pageSize?: number; handling?: UnresolvedReferenceHandling } = {},
  ) {
    if (typeof rows === 'number') await f.writeHr(file, rows);
    else f.writeFile(file, rows);
    const setup = await f.fileSystem({ filePath: file, unresolvedReferenceHandling: options.handling });
    const full = await f.runProfile(setup.systemId, RunType.FullImport, { pageSize: options.pageSize ?? 10 });
    return { ...setup, full };
  }

  describe('full import of a File system', () => {
    let hrs: SystemSetup & { full: number };
    const file = 'hr/people.csv';

    it('adds every object, with items and counters, values keyed by attribute id and references resolved', async () => {
      hrs = await hrSystem(file, 25);
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 25,
        total_updated: 0,
        total_deleted: 0,
        total_errors: 0,
        objects_processed: 25,
        message: `Full import of "${a.target_context}": 25 objects read, 25 added, 0 updated, 0 deleted, 0 errors.`,
      });
      const items = await f.items(a.id);
      expect(items).toHaveLength(25);
      expect(
        items.every((i) => i.object_change_type === ObjectChangeType.Add && i.outcome_summary === 'Added:1' && i.error_type === null),
      ).toBe(true);
      expect(items[0]).toMatchObject({
        external_id_value: 'EMP000001',
        connected_system_object_type: 'person',
        display_name: hrRecord(1).displayName,
      });

      const objects = await f.objects(hrs.systemId);
      expect(objects.size).toBe(25);
      const seven = objects.get('EMP000007')!;
      expect(seven).toMatchObject({ status: 'Normal', sync_pending: true, display_name: hrRecord(7).displayName });
      expect(seven.attributes[hrs.attributes.employeeId]).toEqual(['EMP000007']);
      expect(seven.attributes[hrs.attributes.title]).toEqual([hrRecord(7).title]);
      expect(items.find((i) => i.external_id_value === 'EMP000007')!.connected_system_object_id).toBe(seven.id);
      // manager → a Reference attribute, resolved to the manager's object.
      const type = await f.query(`SELECT type FROM connected_system_attribute WHERE id = $1`, [hrs.attributes.manager]);
      expect(type[0].type).toBe('Reference');
      expect(seven.resolved_references).toEqual({ [hrs.attributes.manager]: [objects.get(hrRecord(7).manager)!.id] });
      expect(objects.get('EMP000001')!.resolved_references).toEqual({});
    });

    it('writes nothing when nothing changed', async () => {
      await f.pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id = $1`, [hrs.systemId]);
      const before = await f.query(`SELECT id, xmin::text FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`, [
        hrs.systemId,
      ]);
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 0,
        total_updated: 0,
        total_deleted: 0,
        total_errors: 0,
        objects_processed: 25,
      });
      expect(await f.items(a.id)).toHaveLength(0);
      expect(
        await f.query(`SELECT id, xmin::text FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`, [hrs.systemId]),
      ).toEqual(before);
    });

    it('updates a changed object only, and flags it for synchronisation', async () => {
      f.writeFile(
        file,
        hr(25, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)),
      );
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 1, total_deleted: 0 });
      const items = await f.items(a.id);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        external_id_value: 'EMP000005',
        object_change_type: ObjectChangeType.Update,
        outcome_summary: 'Updated:1',
      });
      const pending = await f.query(
        `SELECT external_id, attributes FROM connected_system_object WHERE connected_system_id = $1 AND sync_pending`,
        [hrs.systemId],
      );
      expect(pending.map((p) => p.external_id)).toEqual(['EMP000005']);
      expect(pending[0].attributes[hrs.attributes.title]).toEqual(['Chief Tester']);
    });

    it('marks an object gone from the source obsolete', async () => {
      f.writeFile(
        file,
        hr(24, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)),
      );
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 0,
        total_updated: 0,
        total_deleted: 1,
        objects_processed: 24,
      });
      expect(await f.items(a.id)).toMatchObject([
        { external_id_value: 'EMP000025', object_change_type: ObjectChangeType.Delete, outcome_summary: 'Deleted:1' },
      ]);
      const gone = (await f.objects(hrs.systemId)).get('EMP000025')!;
      expect(gone).toMatchObject({ status: 'Obsolete', sync_pending: true });
      // It comes back when the source has it again.
      f.writeFile(
        file,
        hr(25, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)),
      );
      const back = await f.run(hrs.systemId, hrs.full);
      expect(back).toMatchObject({ total_added: 0, total_updated: 1, total_deleted: 0 });
      expect((await f.objects(hrs.systemId)).get('EMP000025')).toMatchObject({ status: 'Normal', id: gone.id });
    });

    it('obsoletes nothing when the source returns no objects, and says so', async () => {
      f.writeFile(file, `${HR_CSV_COLUMNS.join(',')}\n`);
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({
        status: ActivityStatus.CompleteWithWarning,
        total_added: 0,
        total_updated: 0,
        total_deleted: 0,
        objects_processed: 0,
      });
      expect(a.warning_message).toMatch(/returned no objects, so nothing was marked obsolete/);
      const statuses = await f.query(
        `SELECT status, count(*)::int AS n FROM connected_system_object WHERE connected_system_id = $1 GROUP BY status`,
        [hrs.systemId],
      );
      expect(statuses).toEqual([{ status: 'Normal', n: 25 }]);
    });
  });

  describe('unchanged records (connector fingerprints)', () => {
    let hrs: SystemSetup & { full: number };
    const file = 'hr/fingerprints.csv';
    const ROWS = 30;
    /** Rows from this one on get a new title (pages 4 to 6 of 5 rows: the first pages are unchanged). */
    const RETITLED = 16;
    const rowVersions = async () =>
      f.query(
        `SELECT external_id, xmin::text AS version FROM connected_system_object WHERE connected_system_id = $1 ORDER BY external_id`,
        [hrs.systemId],
      );
    const changeRecords = async (activityId: string) =>
      f.query(`SELECT change_type FROM connected_system_object_change WHERE activity_id = $1`, [activityId]);

    it('recognises unchanged rows before converting them, and still converts every value of the rows that changed', async () => {
      hrs = await hrSystem(file, hr(ROWS), { pageSize: 5 });
      await f.run(hrs.systemId, hrs.full);
      const first = await f.objects(hrs.systemId);
      // Unchanged: nothing written (the runner then reads the next pages without converting them).
      const before = await rowVersions();
      const unchanged = await f.run(hrs.systemId, hrs.full);
      expect(unchanged).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_errors: 0 });
      expect(await rowVersions()).toEqual(before);
      // The last pages changed, in a value that does not identify the objects (read after unchanged pages, so
      // converted only once they turned out changed): all of them updated with all their values.
      f.writeFile(
        file,
        hr(ROWS, (r, i) => (i >= RETITLED ? { ...r, title: `Title ${i}` } : r)),
      );
      const changed = await f.run(hrs.systemId, hrs.full);
      expect(changed).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 0,
        total_updated: ROWS - RETITLED + 1,
        total_errors: 0,
      });
      const after = await f.objects(hrs.systemId);
      for (const [externalId, object] of after) {
        const i = Number(externalId.slice(3));
        expect(object.attributes).toEqual({
          ...first.get(externalId)!.attributes,
          ...(i >= RETITLED ? { [hrs.attributes.title]: [`Title ${i}`] } : {}),
        });
        expect(object.display_name).toBe(first.get(externalId)!.display_name);
      }
    });

    it("a change to a column that is not imported records the row's new fingerprint without an update", async () => {
      const withPronouns = [...(await f.objects(hrs.systemId)).values()].filter((o) => hrs.attributes.pronouns in o.attributes).length;
      expect(withPronouns).toBeGreaterThan(0);
      expect(withPronouns).toBeLessThan(ROWS);
      await f.query(`UPDATE connected_system_attribute SET selected = false WHERE id = $1`, [hrs.attributes.pronouns]);
      // The selection changed: every row is converted and compared again, and those that had the attribute lose it.
      const reselected = await f.run(hrs.systemId, hrs.full);
      expect(reselected).toMatchObject({ status: ActivityStatus.Complete, total_updated: withPronouns });
      expect([...(await f.objects(hrs.systemId)).values()].every((o) => !(hrs.attributes.pronouns in o.attributes))).toBe(true);
      f.writeFile(
        file,
        hr(ROWS, (r, i) => ({ ...r, title: i >= RETITLED ? `Title ${i}` : r.title, pronouns: 'they/them' })),
      );
      const hashes = await f.query(
        `SELECT encode(content_hash, 'hex') AS h FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`,
        [hrs.systemId],
      );
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_errors: 0 });
      expect(await f.items(a.id)).toEqual([]);
      expect(await changeRecords(a.id)).toEqual([]);
      const rehashed = await f.query(
        `SELECT encode(content_hash, 'hex') AS h FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`,
        [hrs.systemId],
      );
      const touched = Array.from({ length: ROWS }, (_, k) => hrRecord(k + 1)).filter((r) => r.pronouns !== 'they/them').length;
      expect(touched).toBeGreaterThan(0);
      expect(rehashed.filter((r, i) => r.h !== hashes[i].h)).toHaveLength(touched);
      // Recorded: the next import of the same file writes nothing at all.
      const before = await rowVersions();
      expect(await f.run(hrs.systemId, hrs.full)).toMatchObject({ total_updated: 0 });
      expect(await rowVersions()).toEqual(before);
    });

    it("converts and compares every row again when the header or the system's settings change what the same rows mean", async () => {
      // The same rows under a header naming two columns the other way round: the values move.
      const content = hr(ROWS, (r, i) => ({ ...r, title: i >= RETITLED ? `Title ${i}` : r.title, pronouns: 'they/them' }));
      const [header, ...rows] = content.split('\n');
      f.writeFile(file, [header.replace('firstName,lastName', 'lastName,firstName'), ...rows].join('\n'));
      const swapped = await f.run(hrs.systemId, hrs.full);
      expect(swapped).toMatchObject({ status: ActivityStatus.Complete, total_updated: ROWS });
      const seven = (await f.objects(hrs.systemId)).get('EMP000007')!;
      expect(seven.attributes[hrs.attributes.firstName]).toEqual([hrRecord(7).lastName]);
      // A setting that changes how the same bytes read: Latin-1 instead of UTF-8.
      f.writeFile(file, content.replace(/Title 17\b/, 'Títle 17'));
      expect(await f.run(hrs.systemId, hrs.full)).toMatchObject({ total_updated: ROWS });
      expect((await f.objects(hrs.systemId)).get('EMP000017')!.attributes[hrs.attributes.title]).toEqual(['Títle 17']);
      await f.query(`UPDATE connected_system SET settings = settings || '{"encoding": "latin1"}' WHERE id = $1`, [hrs.systemId]);
      const latin = await f.run(hrs.systemId, hrs.full);
      // Every row that is not plain ASCII reads differently now (the others are recognised as unchanged).
      const nonAscii = content.split('\n').filter((l) => [...l].some((c) => c.charCodeAt(0) > 0x7f)).length + 1;
      expect(nonAscii).toBeLessThan(ROWS);
      expect(latin).toMatchObject({ status: ActivityStatus.Complete, total_updated: nonAscii });
      expect((await f.objects(hrs.systemId)).get('EMP000017')!.attributes[hrs.attributes.title]).toEqual([
        Buffer.from('Títle 17').toString('latin1'),
      ]);
      // A multi-valued title, then a multi-value delimiter that splits it: the same rows, other values.
      await f.query(`UPDATE connected_system_attribute SET plurality = 'Multi' WHERE id = $1`, [hrs.attributes.title]);
      expect(await f.run(hrs.systemId, hrs.full)).toMatchObject({ status: ActivityStatus.Complete, total_updated: 0 });
      await f.query(`UPDATE connected_system SET settings = settings || '{"multiValueDelimiter": " "}' WHERE id = $1`, [hrs.systemId]);
      const split = await f.run(hrs.systemId, hrs.full);
      const titles = Array.from({ length: ROWS }, (_, k) => (k + 1 >= RETITLED ? `Title ${k + 1}` : hrRecord(k + 1).title));
      expect(split).toMatchObject({ status: ActivityStatus.Complete, total_updated: titles.filter((t) => t.includes(' ')).length });
      expect((await f.objects(hrs.systemId)).get('EMP000018')!.attributes[hrs.attributes.title]).toEqual(['Title', '18']);
    });

    it('recognises objects stored with the hash of their values (before fingerprints, or written by an export) without an update', async () => {
      await f.query(`UPDATE connected_system SET settings = settings - 'encoding' WHERE id = $1`, [hrs.systemId]);
      await f.run(hrs.systemId, hrs.full);
      const stored = await f.objects(hrs.systemId);
      for (const o of stored.values()) {
        const valuesHash = connectorSpaceContentHash(o.secondary_external_id, o.display_name, canonicalAttributesJson(o.attributes));
        await f.query(`UPDATE connected_system_object SET content_hash = $2 WHERE id = $1`, [o.id, valuesHash]);
      }
      await f.query(
        `UPDATE connected_system_object SET content_hash = NULL WHERE connected_system_id = $1 AND external_id <= 'EMP000005'`,
        [hrs.systemId],
      );
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_errors: 0 });
      expect(await changeRecords(a.id)).toEqual([]);
      const after = await f.objects(hrs.systemId);
      for (const [externalId, o] of after) {
        expect(o.attributes).toEqual(stored.get(externalId)!.attributes);
        expect(o.content_hash).toEqual(stored.get(externalId)!.content_hash);
      }
      const before = await rowVersions();
      expect(await f.run(hrs.systemId, hrs.full)).toMatchObject({ total_updated: 0 });
      expect(await rowVersions()).toEqual(before);
    });

    /** A scripted connector of users with an id and an age, its system (age selected) and a full import profile. */
    const userAgeSystem = async (type: string) => {
      const connector = new ScriptedConnector(type, {
        objectTypes: [
          {
            name: 'user',
            attributes: [
              { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
              { name: 'age', type: 'Integer', plurality: 'Single', writability: 'ReadWrite' },
            ],
          },
        ],
      });
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type, attributes: ['age'] });
      return { connector, s, full: await f.runProfile(s.systemId, RunType.FullImport) };
    };

    it('converts an object with value errors on every import, so that its errors are reported every time', async () => {
      const { connector, s, full } = await userAgeSystem('ScriptedFingerprints');
      connector.script = () => ({
        pages: [
          {
            objects: <ImportedObject[]>[
              { objectType: 'user', change: 'Upsert', attributes: { id: 'u1', age: '41' }, fingerprint: 'u1,41' },
              { objectType: 'user', change: 'Upsert', attributes: { id: 'u2', age: 'abc' }, fingerprint: 'u2,abc' },
            ],
          },
        ],
      });
      for (const run of [1, 2, 3]) {
        const a = await f.run(s.systemId, full);
        expect(a).toMatchObject({
          status: ActivityStatus.CompleteWithError,
          total_added: run === 1 ? 2 : 0,
          total_updated: 0,
          total_errors: 1,
        });
        expect((await f.items(a.id)).filter((i) => i.error_type).map((i) => [i.external_id_value, i.error_type])).toEqual([
          ['u2', ExecutionErrorType.ImportAttributeValueError],
        ]);
      }
      expect((await f.objects(s.systemId)).get('u1')!.attributes).toEqual({ [s.attributes.id]: ['u1'], [s.attributes.age]: [41] });
    });
    it('recognises unchanged values when a connector stops giving fingerprints, and when it gives them again', async () => {
      const { connector, s, full } = await userAgeSystem('ScriptedFingerprintsDropped');
      const page = (fingerprints: boolean) => ({
        pages: [
          {
            objects: <ImportedObject[]>['u1', 'u2'].map((id, i) => ({
              objectType: 'user',
              change: 'Upsert',
              attributes: { id, age: String(40 + i) },
              ...(fingerprints ? { fingerprint: `${id},${40 + i}` } : {}),
            })),
          },
        ],
      });
      const hashes = async () => [...(await f.objects(s.systemId)).values()].map((o) => (o.content_hash as Buffer).toString('hex'));
      const valuesHashes = async () =>
        [...(await f.objects(s.systemId)).values()].map((o) =>
          connectorSpaceContentHash(o.secondary_external_id, o.display_name, canonicalAttributesJson(o.attributes)).toString('hex'),
        );
      connector.script = () => page(true);
      expect(await f.run(s.systemId, full)).toMatchObject({ status: ActivityStatus.Complete, total_added: 2 });
      const fingerprinted = await hashes();
      expect(fingerprinted).not.toEqual(await valuesHashes());
      // Without fingerprints: the same values, so no update and no item; the objects take the hash of their values.
      connector.script = () => page(false);
      let a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0 });
      expect(await f.items(a.id)).toEqual([]);
      expect(await hashes()).toEqual(await valuesHashes());
      // Fingerprints again: still nothing to update, and the fingerprint hashes are back.
      connector.script = () => page(true);
      a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0 });
      expect(await f.items(a.id)).toEqual([]);
      expect(await hashes()).toEqual(fingerprinted);
    });
    it('reads the next page only once the current page is claimed, so the database does not wait for a connector that makes pages at once', async () => {
      const connector = new ScriptedConnector('ScriptedReadAhead', {
        objectTypes: [
          {
            name: 'user',
            attributes: [{ name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true }],
          },
        ],
      });
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type });
      const full = await f.runProfile(s.systemId, RunType.FullImport);
      const order: string[] = [];
      connector.script = () => ({
        pages: [1, 2, 3].map((n) => ({
          // Made without awaiting anything: the connector's page comes in one synchronous stretch.
          before: () => void order.push(`make ${n}`),
          objects: <ImportedObject[]>[{ objectType: 'user', change: 'Upsert', attributes: { id: `u${n}` } }],
        })),
      });
      const original = ImportStore.prototype.claim;
      const claim = jest.spyOn(ImportStore.prototype, 'claim').mockImplementation(function (this: ImportStore, keys) {
        order.push(`claim ${keys.map((k) => k.externalId).join(',')}`);
        return original.call(this, keys);
      });
      try {
        expect(await f.run(s.systemId, full)).toMatchObject({ status: ActivityStatus.Complete, total_added: 3 });
      } finally {
        claim.mockRestore();
      }
      expect(order).toEqual(['make 1', 'claim u1', 'make 2', 'claim u2', 'make 3', 'claim u3']);
    });
    it('searches for objects gone from the source only when the import did not meet every object the connector space held', async () => {
      const met = await hrSystem('hr/met.csv', hr(10), { pageSize: 4 });
      await f.run(met.systemId, met.full);
      const search = jest.spyOn(ImportStore.prototype, 'obsoleteUnseen');
      try {
        expect(await f.run(met.systemId, met.full)).toMatchObject({ status: ActivityStatus.Complete, total_deleted: 0 });
        expect(search).not.toHaveBeenCalled();
        // As many objects read as held, but one of them new: the one not met is searched for and obsoleted.
        f.writeFile(
          'hr/met.csv',
          hr(11, (r, i) => (i === 4 ? null : r)),
        );
        expect(await f.run(met.systemId, met.full)).toMatchObject({ status: ActivityStatus.Complete, total_added: 1, total_deleted: 1 });
        expect(search).toHaveBeenCalled();
        expect((await f.objects(met.systemId)).get('EMP000004')).toMatchObject({ status: 'Obsolete' });
        // The same external ID twice, on two pages: rejected, its object kept as it was; met once, so nothing is gone.
        search.mockClear();
        f.writeFile(
          'hr/met.csv',
          hr(11, (r, i) => (i === 4 ? null : r), [line(hrRecord(5))]),
        );
        const twice = await f.run(met.systemId, met.full);
        expect(twice).toMatchObject({ total_added: 0, total_deleted: 0, total_errors: 2 });
        expect(search).not.toHaveBeenCalled();
        expect([...(await f.objects(met.systemId)).values()].filter((o) => o.status === 'Normal')).toHaveLength(10);
      } finally {
        search.mockRestore();
      }
    });
  });

  describe('rejected objects', () => {
    it('rejects both occurrences of a duplicate external ID, within a page and across pages, and undoes the earlier write', async () => {
      const s = await hrSystem('dup/people.csv', 12, { handling: UnresolvedReferenceHandling.Ignore });
      const edited = (i: number, title: string) => line({ ...hrRecord(i), title });
      const rows = Array.from({ length: 12 }, (_, k) => line(hrRecord(k + 1)));
      // Page 1 (10 lines): rows 1-4, row 3 again, rows 5-9. Page 2: rows 10-12, row 2 again.
      f.writeFile(
        'dup/people.csv',
        [HR_CSV_COLUMNS.join(','), ...rows.slice(0, 4), edited(3, 'Twin'), ...rows.slice(4), edited(2, 'Twin')].join('\n'),
      );
      const a = await f.run(s.systemId, s.full);
      expect(a).toMatchObject({
        status: ActivityStatus.CompleteWithError,
        total_added: 10,
        total_updated: 0,
        total_errors: 4,
        objects_processed: 14,
      });
      const items = await f.items(a.id);
      expect(byType(items)).toEqual({ [ObjectChangeType.Add]: 10, [ExecutionErrorType.DuplicateObject]: 4 });
      const duplicates = items.filter((i) => i.error_type === ExecutionErrorType.DuplicateObject);
      expect(duplicates.map((i) => i.external_id_value).sort()).toEqual(['EMP000002', 'EMP000002', 'EMP000003', 'EMP000003']);
      expect(duplicates[0].error_message).toMatch(/occurs more than once in this import/);
      const objects = await f.objects(s.systemId);
      expect(objects.size).toBe(10);
      expect(objects.has('EMP000002') || objects.has('EMP000003')).toBe(false);

      // An object that exists: its update on page 1 is undone when its twin shows up on page 2 (twice), and it is not obsoleted.
      await f.pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id = $1`, [s.systemId]);
      const before = (await f.objects(s.systemId)).get('EMP000005')!;
      f.writeFile(
        'dup/people.csv',
        [
          HR_CSV_COLUMNS.join(','),
          ...rows.slice(0, 4),
          edited(5, 'Changed'),
          ...rows.slice(5),
          edited(5, 'Twin'),
          edited(5, 'Triplet'),
        ].join('\n'),
      );
      const again = await f.run(s.systemId, s.full);
      expect(again).toMatchObject({
        status: ActivityStatus.CompleteWithError,
        total_added: 2,
        total_updated: 0,
        total_deleted: 0,
        total_errors: 3,
      });
      const againItems = await f.items(again.id);
      expect(byType(againItems)).toEqual({ [ObjectChangeType.Add]: 2, [ExecutionErrorType.DuplicateObject]: 3 });
      expect(
        againItems.filter((i) => i.external_id_value === 'EMP000005').every((i) => i.error_type === ExecutionErrorType.DuplicateObject),
      ).toBe(true);
      const after = (await f.objects(s.systemId)).get('EMP000005')!;
      expect(after).toEqual(before);
    });

    it('rejects an object without an external ID value', async () => {
      const s = await hrSystem('missing/people.csv', 6);
      f.writeFile(
        'missing/people.csv',
        hr(6, (r, i) => (i === 4 ? { ...r, employeeId: '' } : r)),
      );
      const a = await f.run(s.systemId, s.full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 5, total_errors: 1 });
      const errors = (await f.items(a.id)).filter((i) => i.error_type);
      expect(errors).toMatchObject([
        {
          error_type: ExecutionErrorType.MissingExternalIdAttributeValue,
          connected_system_object_type: 'person',
          display_name: hrRecord(4).displayName,
        },
      ]);
      expect(errors[0].error_message).toMatch(/external ID attribute "employeeId" has no value.*line 5/);
    });

    it('rejects objects of a type that is not selected (File connector with an object type column)', async () => {
      f.writeFile('kinds/all.csv', 'kind,id,name\nperson,P1,Ann\nprinter,X1,Laser\nperson,P2,Bob\n');
      const s = await f.fileSystem({ filePath: 'kinds/all.csv', settings: { objectTypeColumn: 'kind' }, objectTypes: ['person'] });
      const full = await f.runProfile(s.systemId, RunType.FullImport);
      const a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 2, total_errors: 1, objects_processed: 3 });
      const errors = (await f.items(a.id)).filter((i) => i.error_type);
      expect(errors).toMatchObject([{ error_type: ExecutionErrorType.CouldNotMatchObjectType }]);
      expect(errors[0].error_message).toMatch(/"printer" is not among the selected object types.*line 3/);
    });

    it('keeps an object whose value does not parse, without that value (File connector)', async () => {
      const s = await hrSystem('bad/people.csv', 5);
      f.writeFile(
        'bad/people.csv',
        hr(5, (r, i) => (i === 2 ? { ...r, employeeEndDate: 'soon' } : r)),
      );
      const a = await f.run(s.systemId, s.full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 5, total_errors: 1 });
      expect((await f.items(a.id)).filter((i) => i.error_type)).toMatchObject([
        { error_type: ExecutionErrorType.ImportAttributeValueError, external_id_value: 'EMP000002' },
      ]);
      expect((await f.objects(s.systemId)).get('EMP000002')!.attributes[s.attributes.employeeEndDate]).toBeUndefined();
    });
  });

  describe('values from any connector', () => {
    const connector = new ScriptedConnector('ScriptedValues', {
      objectTypes: [
        {
          name: 'user',
          attributes: [
            { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
            { name: 'displayName', type: 'String', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'age', type: 'Integer', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'score', type: 'Decimal', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'admin', type: 'Boolean', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'joined', type: 'DateTime', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'guid', type: 'Guid', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'photo', type: 'Binary', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'tags', type: 'String', plurality: 'Multi', writability: 'ReadWrite' },
            { name: 'boss', type: 'Reference', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'secret', type: 'String', plurality: 'Single', writability: 'ReadWrite' },
          ],
        },
      ],
    });

    it('stores each value in the form of its type, reports the ones that do not parse, and keeps the object', async () => {
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({
        connectorType: connector.type,
        attributes: ['displayName', 'age', 'score', 'admin', 'joined', 'guid', 'photo', 'tags', 'boss'],
      });
      const full = await f.runProfile(s.systemId, RunType.FullImport);
      connector.script = () => ({
        pages: [
          {
            objects: <ImportedObject[]>[
              {
                objectType: 'USER',
                change: 'Upsert',
                source: 'u1',
                attributes: {
                  ID: 'u1',
                  displayName: 'Ann',
                  age: '42',
                  score: '3.5',
                  admin: 'yes',
                  joined: '2024-03-01T10:00:00+02:00',
                  guid: '{0F8FAD5B-D9CB-469F-A165-70867728950E}',
                  photo: 'AAEC',
                  tags: ['b', 'a'],
                  boss: 'u2',
                  secret: 'not selected',
                },
              },
              {
                objectType: 'user',
                change: 'Upsert',
                source: 'u2',
                attributes: { id: 'u2', displayName: ['Bob', 'Robert'], age: 'abc', joined: '2024-02-30', admin: true },
              },
              { objectType: 'printer', change: 'Upsert', source: 'p1', attributes: { id: 'p1' } },
              { objectType: 'user', change: 'Upsert', source: 'u3', attributes: { displayName: 'Nobody' } },
            ],
            errors: [{ source: 'row 9', message: 'Broken row.', errorType: 'MalformedRow', externalId: 'u9' }],
          },
        ],
      });
      const a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 2, total_errors: 4, objects_processed: 5 });
      const items = await f.items(a.id);
      expect(byType(items)).toEqual({
        [ObjectChangeType.Add]: 1,
        [ExecutionErrorType.ImportAttributeValueError]: 1,
        [ExecutionErrorType.CouldNotMatchObjectType]: 1,
        [ExecutionErrorType.MissingExternalIdAttributeValue]: 1,
        MalformedRow: 1,
      });
      const bad = items.find((i) => i.error_type === ExecutionErrorType.ImportAttributeValueError)!;
      // The object is added; the item carries both the change and the value errors.
      expect(bad).toMatchObject({ external_id_value: 'u2', object_change_type: ObjectChangeType.Add, outcome_summary: 'Added:1' });
      expect(bad.error_message).toMatch(/"displayName" is single-valued but 2 values were given/);
      expect(bad.error_message).toMatch(/Value "abc" of attribute "age" is not a valid Integer/);
      expect(bad.error_message).toMatch(/Value "2024-02-30" of attribute "joined" is not a valid DateTime/);
      expect(items.find((i) => i.error_type === 'MalformedRow')).toMatchObject({
        external_id_value: 'u9',
        error_message: 'Broken row. (row 9)',
      });

      const objects = await f.objects(s.systemId);
      const id = (name: string) => String(s.attributes[name]);
      expect(objects.get('u1')!.attributes).toEqual({
        [id('id')]: ['u1'],
        [id('displayName')]: ['Ann'],
        [id('age')]: [42],
        [id('score')]: [3.5],
        [id('admin')]: [true],
        [id('joined')]: ['2024-03-01T08:00:00.000Z'],
        [id('guid')]: ['0f8fad5b-d9cb-469f-a165-70867728950e'],
        [id('photo')]: ['AAEC'],
        [id('tags')]: ['b', 'a'],
        [id('boss')]: ['u2'],
      });
      expect(objects.get('u1')!.display_name).toBe('Ann');
      expect(objects.get('u2')!.attributes).toEqual({ [id('id')]: ['u2'], [id('admin')]: [true] });
      expect(objects.get('u1')!.resolved_references).toEqual({ [id('boss')]: [objects.get('u2')!.id] });
    });
  });

  describe('references', () => {
    it('resolves references after the import and handles unresolved ones per the system setting', async () => {
      const unresolved = (r: HrRecord, i: number) => (i === 7 ? { ...r, manager: 'EMP999999' } : r);
      const outcomes: Record<string, unknown> = {};
      for (const handling of [UnresolvedReferenceHandling.Warn, UnresolvedReferenceHandling.Error, UnresolvedReferenceHandling.Ignore]) {
        // The schema is discovered on a clean file (manager becomes a Reference); the import reads the one with the dangling manager.
        const s = await hrSystem(`refs-${handling}/people.csv`, 12, { handling });
        f.writeFile(`refs-${handling}/people.csv`, hr(12, unresolved));
        const a = await f.run(s.systemId, s.full);
        const items = (await f.items(a.id)).filter((i) => i.object_change_type !== ObjectChangeType.Add);
        outcomes[handling] = {
          status: a.status,
          errors: a.total_errors,
          warned: !!a.warning_message,
          items: items.map((i) => [i.external_id_value, i.error_type, i.outcome_summary]),
        };
        const seven = (await f.objects(s.systemId)).get('EMP000007')!;
        expect(seven.resolved_references).toEqual({ [s.attributes.manager]: [null] });
        if (handling === UnresolvedReferenceHandling.Warn) {
          expect(a.warning_message).toMatch(/1 object\(s\) .* have reference values that match no object/);
          expect(items[0].error_message).toMatch(/manager = "EMP999999" match no object of this system/);
          // The missing manager arrives: the unchanged object's reference resolves, and it is flagged for synchronisation.
          await f.pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id = $1`, [s.systemId]);
          f.writeFile(
            `refs-${handling}/people.csv`,
            hr(12, unresolved, [line({ ...hrRecord(999999), employeeId: 'EMP999999', manager: '' })]),
          );
          const fixed = await f.run(s.systemId, s.full);
          expect(fixed).toMatchObject({ status: ActivityStatus.Complete, total_added: 1, total_updated: 0 });
          const objects = await f.objects(s.systemId);
          expect(objects.get('EMP000007')).toMatchObject({
            sync_pending: true,
            resolved_references: { [s.attributes.manager]: [objects.get('EMP999999')!.id] },
          });

          // A manager who leaves: the references to him are resolved again (to nothing) and flagged.
          await f.pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id = $1`, [s.systemId]);
          f.writeFile(
            `refs-${handling}/people.csv`,
            hr(12, (r, i) => (i === 2 ? null : unresolved(r, i)), [line({ ...hrRecord(999999), employeeId: 'EMP999999', manager: '' })]),
          );
          const left = await f.run(s.systemId, s.full);
          expect(left).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_deleted: 1 });
          const now = await f.objects(s.systemId);
          for (const report of ['EMP000010', 'EMP000011', 'EMP000012']) {
            expect(now.get(report)).toMatchObject({ sync_pending: true, resolved_references: { [s.attributes.manager]: [null] } });
          }
          expect(now.get('EMP000003')).toMatchObject({ sync_pending: false });
        }
      }
      expect(outcomes).toEqual({
        Warn: {
          status: ActivityStatus.CompleteWithWarning,
          errors: 0,
          warned: true,
          items: [['EMP000007', null, 'UnresolvedReference:1']],
        },
        Error: {
          status: ActivityStatus.CompleteWithError,
          errors: 1,
          warned: false,
          items: [['EMP000007', ExecutionErrorType.UnresolvedReference, null]],
        },
        Ignore: { status: ActivityStatus.Complete, errors: 0, warned: false, items: [] },
      });
    });

    it('resolves references as objects are written when they name objects already met, and after the import otherwise', async () => {
      const resolvedAfter = jest.spyOn(ImportStore.prototype, 'resolveReferences');
      const rewritten = async () => {
        const batches = await Promise.all(resolvedAfter.mock.results.map((r) => r.value as Promise<{ changed: number }>));
        resolvedAfter.mockClear();
        return batches.reduce((n, b) => n + b.changed, 0);
      };
      /**
       * A full import of the 25 people of a new system (the generated file, or `rows` instead), which must
       * add them all; answers every object's resolved manager.
       */
      const importAll = async (dir: string, rows?: string) => {
        const s = await hrSystem(`${dir}/people.csv`, 25, { handling: UnresolvedReferenceHandling.Ignore });
        if (rows) f.writeFile(`${dir}/people.csv`, rows);
        resolvedAfter.mockClear();
        expect(await f.run(s.systemId, s.full)).toMatchObject({ status: ActivityStatus.Complete, total_added: 25 });
        return managers(s.systemId, s.attributes.manager);
      };
      /** Every object's resolved manager, by external IDs (null: unresolved). */
      const managers = async (systemId: number, attribute: number) => {
        const objects = await f.objects(systemId);
        const byId = new Map([...objects.values()].map((o) => [o.id, o.external_id]));
        return Object.fromEntries(
          [...objects.values()].map((o) => [
            o.external_id,
            (o.resolved_references[String(attribute)] ?? []).map((id: string | null) => (id ? (byId.get(id) ?? `missing ${id}`) : null)),
          ]),
        );
      };
      const expected = Object.fromEntries(
        Array.from({ length: 25 }, (_, k) => {
          const r = hrRecord(k + 1);
          return [r.employeeId, r.manager ? [r.manager] : []];
        }),
      );
      try {
        // Managers come before their reports (pages of 10): every reference resolves as its object is written,
        // in its page or from an earlier one, and nothing is written a second time.
        expect(await importAll('refs-write')).toEqual(expected);
        expect(await rewritten()).toBe(0);

        // Reports before their managers: those references are resolved after the import, to the same objects.
        expect(
          await importAll(
            'refs-late',
            [HR_CSV_COLUMNS.join(','), ...Array.from({ length: 25 }, (_, k) => line(hrRecord(25 - k)))].join('\n'),
          ),
        ).toEqual(expected);
        expect(await rewritten()).toBeGreaterThan(0);

        // A manager met on page 1 and again on page 3 is rejected as a duplicate and removed: the references
        // written to him on pages 1 and 2 are resolved again after the import (to nothing), none left dangling.
        const dup = await hrSystem('refs-dup/people.csv', 25, { handling: UnresolvedReferenceHandling.Ignore });
        f.writeFile(
          'refs-dup/people.csv',
          hr(25, (r) => r, [line({ ...hrRecord(2), title: 'Twin' })]),
        );
        const a = await f.run(dup.systemId, dup.full);
        expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 24, total_errors: 2 });
        const withoutTwo = Object.fromEntries(
          Object.entries(expected)
            .filter(([id]) => id !== 'EMP000002')
            .map(([id, m]) => [id, m[0] === 'EMP000002' ? [null] : m]),
        );
        expect(await managers(dup.systemId, dup.attributes.manager)).toEqual(withoutTwo);
      } finally {
        resolvedAfter.mockRestore();
      }
    });

    it('resolves by secondary external ID, case-insensitively', async () => {
      f.writeFile(
        'dn/people.csv',
        'id,mail,boss\nA1,ann@example.org,\nA2,bob@example.org,ANN@Example.ORG\nA3,cy@example.org,nobody@example.org\n',
      );
      const s = await f.fileSystem({ filePath: 'dn/people.csv', unresolvedReferenceHandling: UnresolvedReferenceHandling.Ignore });
      await f.updateAttribute(s.systemId, s.types.person, s.attributes.mail, { isSecondaryExternalId: true });
      await f.pg.query(`UPDATE connected_system_attribute SET type = 'Reference' WHERE id = $1`, [s.attributes.boss]);
      const full = await f.runProfile(s.systemId, RunType.FullImport);
      const a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 3 });
      const objects = await f.objects(s.systemId);
      expect(objects.get('A2')).toMatchObject({
        secondary_external_id: 'bob@example.org',
        resolved_references: { [s.attributes.boss]: [objects.get('A1')!.id] },
      });
      expect(objects.get('A3')!.resolved_references).toEqual({ [s.attributes.boss]: [null] });
    });
  });

  describe('delta import', () => {
    const connector = new ScriptedConnector('ScriptedDelta', {
      objectTypes: [
        {
          name: 'user',
          attributes: [
            { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
            { name: 'name', type: 'String', plurality: 'Single', writability: 'ReadWrite' },
          ],
        },
      ],
    });
    const user = (id: string, name: string, change: 'Upsert' | 'Delete' = 'Upsert') => ({
      objectType: 'user',
      change,
      attributes: { id, name },
    });
    const watermark = async (systemId: number) =>
      (await f.query(`SELECT delta_watermark FROM connected_system WHERE id = $1`, [systemId]))[0].delta_watermark;

    it('runs as a full import without a watermark, then imports changes only, and saves the watermark only when it completes', async () => {
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type });
      const delta = await f.runProfile(s.systemId, RunType.DeltaImport);

      connector.script = () => ({ pages: [{ objects: [user('u1', 'Ann'), user('u2', 'Bob'), user('u3', 'Cy')] }], watermark: 'w1' });
      const first = await f.run(s.systemId, delta);
      expect(connector.requests.at(-1)).toMatchObject({ mode: 'Full', watermark: null });
      expect(first).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_added: 3 });
      expect(first.warning_message).toMatch(/no delta watermark yet .* ran as a full import/);
      expect(first.message).toMatch(/^Delta import \(run as a full import\) of/);
      expect(await watermark(s.systemId)).toBe('w1');

      // Only the changes: u1 deleted, u2 renamed; u3 is not mentioned and stays as it is.
      connector.script = () => ({ pages: [{ objects: [user('u1', 'Ann', 'Delete'), user('u2', 'Robert')] }], watermark: 'w2' });
      const second = await f.run(s.systemId, delta);
      expect(connector.requests.at(-1)).toMatchObject({ mode: 'Delta', watermark: 'w1' });
      expect(second).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 0,
        total_updated: 1,
        total_deleted: 1,
        total_errors: 0,
      });
      expect(byType(await f.items(second.id))).toEqual({ [ObjectChangeType.Delete]: 1, [ObjectChangeType.Update]: 1 });
      const objects = await f.objects(s.systemId);
      expect([...objects.values()].map((o) => [o.external_id, o.status])).toEqual([
        ['u1', 'Obsolete'],
        ['u2', 'Normal'],
        ['u3', 'Normal'],
      ]);
      expect(await watermark(s.systemId)).toBe('w2');

      // A delta import that fails half-way keeps the old watermark (what it committed stays, and is idempotent).
      connector.script = () => ({
        pages: [
          { objects: [user('u4', 'Dee')] },
          {
            before: () => {
              throw new Error('directory went away');
            },
          },
        ],
        watermark: 'w3',
      });
      const failed = await f.run(s.systemId, delta);
      expect(failed).toMatchObject({ status: ActivityStatus.FailedWithError, total_added: 1 });
      expect(failed.error_message).toMatch(/connector failed while importing .*directory went away/);
      expect(await watermark(s.systemId)).toBe('w2');
    });

    it('runs as a full import, with a warning, when the connector cannot import changes only', async () => {
      const s = await hrSystem('delta/people.csv', 8);
      const delta = await f.runProfile(s.systemId, RunType.DeltaImport, { pageSize: 5, direct: true });
      const a = await f.run(s.systemId, delta);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_added: 8 });
      expect(a.warning_message).toMatch(/cannot import changes only, so this delta import ran as a full import/);
      // Ran as a full import: deletion detection included.
      f.writeFile('delta/people.csv', hr(7));
      expect(await f.run(s.systemId, delta)).toMatchObject({ total_deleted: 1 });
    });
  });

  describe('confirming import', () => {
    it('removes confirmed exports, keeps the unconfirmed changes for another export, and fails them after the maximum attempts', async () => {
      expect(Number(await f.worker.get(SettingsService).effective(SettingKeys.ExportMaxRetries))).toBe(5);
      const s = await hrSystem('confirm/people.csv', 12);
      await f.run(s.systemId, s.full);
      const objects = await f.objects(s.systemId);
      const id = (n: number) => objects.get(hrRecord(n).employeeId)!.id;
      const title = s.attributes.title;
      const noPronouns = [6, 7, 8, 9, 10, 11, 12].find((i) => hrRecord(i).pronouns === '')!;
      expect(noPronouns).toBeDefined();
      const pe = async (n: number, changes: unknown[], extra: { attempts?: number; status?: string } = {}) =>
        (
          await f.query(
            `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes, confirmation_attempts)
         VALUES ($1, $2, 'Update', $3, $4, $5) RETURNING id`,
            [s.systemId, id(n), extra.status ?? 'Exported', JSON.stringify(changes), extra.attempts ?? 0],
          )
        )[0].id;
      const confirmed = await pe(1, [
        { a: title, op: 'Replace', v: [`  ${hrRecord(1).title} `] },
        { a: s.attributes.email, op: 'Remove', v: ['someone@else.example'] },
        { a: s.attributes.firstName, op: 'Add', v: [hrRecord(1).firstName] },
      ]);
      const partly = await pe(2, [
        { a: title, op: 'Replace', v: ['Not yet'] },
        { a: s.attributes.firstName, op: 'Replace', v: [hrRecord(2).firstName] },
      ]);
      const failing = await pe(3, [{ a: title, op: 'Replace', v: ['Never'] }], { attempts: 4 });
      const removal = await pe(4, [{ a: title, op: 'Remove', v: [hrRecord(4).title] }]);
      const open = await pe(5, [{ a: title, op: 'Replace', v: ['Newer'] }], { status: 'Pending' });
      const merged = await pe(5, [
        { a: title, op: 'Replace', v: ['Older'] },
        { a: s.attributes.lastName, op: 'Replace', v: ['Other'] },
      ]);
      const cleared = await pe(noPronouns, [{ a: s.attributes.pronouns, op: 'RemoveAll', v: [] }]);

      const a = await f.run(s.systemId, s.full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithError, total_added: 0, total_updated: 0, total_errors: 1 });
      expect(a.message).toMatch(/ 2 export\(s\) confirmed\.$/);
      // Confirming changes no value: no change record.
      expect(await f.query(`SELECT id FROM connected_system_object_change WHERE activity_id = $1`, [a.id])).toEqual([]);
      const rows = new Map(
        (await f.query(`SELECT * FROM pending_export WHERE connected_system_id = $1`, [s.systemId])).map((r) => [r.id, r]),
      );
      expect(rows.has(confirmed)).toBe(false);
      expect(rows.has(cleared)).toBe(false);
      expect(rows.get(partly)).toMatchObject({
        status: 'Pending',
        confirmation_attempts: 1,
        attribute_changes: [{ a: title, op: 'Replace', v: ['Not yet'] }],
      });
      expect(rows.get(failing)).toMatchObject({
        status: 'Failed',
        confirmation_attempts: 5,
        attribute_changes: [{ a: title, op: 'Replace', v: ['Never'] }],
      });
      expect(rows.get(removal)).toMatchObject({ status: 'Pending', confirmation_attempts: 1 });
      // The object already had an unexported change: the unconfirmed one merges into it (the newer value of the same attribute wins).
      expect(rows.has(merged)).toBe(false);
      expect(rows.get(open)).toMatchObject({
        status: 'Pending',
        attribute_changes: [
          { a: title, op: 'Replace', v: ['Newer'] },
          { a: s.attributes.lastName, op: 'Replace', v: ['Other'] },
        ],
      });

      const items = await f.items(a.id);
      expect(
        items
          .filter((i) => i.outcome_summary === 'ExportConfirmed:1')
          .map((i) => i.external_id_value)
          .sort(),
      ).toEqual(['EMP000001', hrRecord(noPronouns).employeeId].sort());
      expect(items.filter((i) => i.error_type)).toMatchObject([
        { error_type: ExecutionErrorType.ExportNotConfirmed, external_id_value: 'EMP000003' },
      ]);
      expect(items.find((i) => i.external_id_value === 'EMP000002')!.error_message).toMatch(
        /does not show the exported value\(s\) of "title".*attempt 1 of 5/,
      );
    });

    it('compares multi-valued attributes as sets, and references by the object they resolve to', async () => {
      const connector = new ScriptedConnector('ScriptedConfirm', {
        objectTypes: [
          {
            name: 'group',
            attributes: [
              { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
              { name: 'mail', type: 'String', plurality: 'Multi', writability: 'ReadWrite' },
              { name: 'member', type: 'Reference', plurality: 'Multi', writability: 'ReadWrite' },
            ],
          },
        ],
      });
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type });
      const full = await f.runProfile(s.systemId, RunType.FullImport);
      connector.script = () => ({
        pages: [
          {
            objects: <ImportedObject[]>[
              { objectType: 'group', change: 'Upsert', attributes: { id: 'g1', mail: ['a@x', 'b@x'], member: ['g2', 'G3'] } },
              { objectType: 'group', change: 'Upsert', attributes: { id: 'g2' } },
              { objectType: 'group', change: 'Upsert', attributes: { id: 'G3' } },
            ],
          },
        ],
      });
      await f.run(s.systemId, full);
      const objects = await f.objects(s.systemId);
      const [pe] = await f.query(
        `INSERT INTO pending_export (connected_system_id, connected_system_object_id, change_type, status, attribute_changes) VALUES ($1, $2, 'Update', 'Exported', $3) RETURNING id`,
        [
          s.systemId,
          objects.get('g1')!.id,
          JSON.stringify([
            { a: s.attributes.mail, op: 'Replace', v: ['b@x', 'a@x '] },
            { a: s.attributes.member, op: 'Replace', v: [objects.get('G3')!.id, 'G2'] },
          ]),
        ],
      );
      const a = await f.run(s.systemId, full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete });
      expect(await f.query(`SELECT id FROM pending_export WHERE id = $1`, [pe.id])).toEqual([]);
    });
  });

  describe('cancellation and restart', () => {
    const connector = new ScriptedConnector('ScriptedCancel', {
      objectTypes: [
        {
          name: 'user',
          attributes: [{ name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true }],
        },
      ],
    });
    const users = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, k) => ({
        objectType: 'user',
        change: 'Upsert' as const,
        attributes: { id: `u${from + k}` },
      }));

    it('stops at a page boundary, keeps what it committed, ends Cancelled, and the next run completes exactly', async () => {
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type });
      const full = await f.runProfile(s.systemId, RunType.FullImport, { pageSize: 5 });
      const activityId = await f.queueRun(s.systemId, full);
      // The cancellation is requested while the second page is written (the third is read ahead meanwhile);
      // the run sees it at the end of the second page, once the request is committed.
      let requested!: () => void;
      const cancelRequested = new Promise<void>((resolve) => {
        requested = resolve;
      });
      connector.script = () => ({
        pages: [
          { objects: users(1, 5) },
          { objects: users(6, 10) },
          {
            objects: users(11, 15),
            before: async () => {
              await f.pg.query(`UPDATE activity SET cancel_requested = true WHERE id = $1`, [activityId]);
              requested();
            },
          },
        ],
        watermark: 'never-saved',
      });
      const pageDone = RunContext.prototype.pageDone;
      let pagesDone = 0;
      const spy = jest.spyOn(RunContext.prototype, 'pageDone').mockImplementation(async function (
        this: RunContext,
        objects: number,
        force?: boolean,
      ) {
        if (++pagesDone === 2) await cancelRequested;
        return pageDone.call(this, objects, force);
      });
      const a = await f.execute(activityId);
      spy.mockRestore();
      expect(a).toMatchObject({ status: ActivityStatus.Cancelled, total_added: 10, objects_processed: 10 });
      expect(await f.items(a.id)).toHaveLength(10);
      expect((await f.objects(s.systemId)).size).toBe(10);
      expect((await f.query(`SELECT delta_watermark FROM connected_system WHERE id = $1`, [s.systemId]))[0].delta_watermark).toBeNull();

      connector.script = () => ({ pages: [{ objects: users(1, 5) }, { objects: users(6, 10) }, { objects: users(11, 15) }] });
      const next = await f.run(s.systemId, full);
      expect(next).toMatchObject({
        status: ActivityStatus.Complete,
        total_added: 5,
        total_updated: 0,
        total_deleted: 0,
        objects_processed: 15,
      });
      expect((await f.objects(s.systemId)).size).toBe(15);
      // The cancelled activity stays Cancelled.
      expect((await f.activity(activityId)).status).toBe(ActivityStatus.Cancelled);

      // Cancelled before it started: nothing runs.
      const early = await f.queueRun(s.systemId, full);
      await f.pg.query(`UPDATE activity SET cancel_requested = true WHERE id = $1`, [early]);
      const before = connector.requests.length;
      expect(await f.execute(early)).toMatchObject({ status: ActivityStatus.Cancelled });
      expect(connector.requests.length).toBe(before);
    });
  });

  describe('change records', () => {
    /** The change records of a system (or of one run), by external ID then change type. */
    const records = (systemId: number, activityId?: string) =>
      f.query(
        `SELECT * FROM connected_system_object_change WHERE connected_system_id = $1 ${activityId ? 'AND activity_id = $2' : ''}
          ORDER BY external_id, change_type`,
        activityId ? [systemId, activityId] : [systemId],
      );
    /** Every stored value of an object, from none: the attribute changes of an `Added` record. */
    const fromNothing = (attributes: Record<string, unknown[]>) =>
      Object.keys(attributes)
        .map(Number)
        .sort((x, y) => x - y)
        .map((a) => ({ a, o: [], n: attributes[a] }));
    const setTracking = (enabled: boolean) => f.worker.get(SettingsService).set(SettingKeys.CsoChangeTracking, enabled, SYSTEM_INITIATOR);
    const admin = { id: '6f1c1a52-0b7e-4d52-9a3e-2f1d6c8b9e01', name: 'Ada Admin' };
    /** A record's id is a UUID v7 whose 48 leading bits are the milliseconds of its change time (time-ordered keys). */
    const idOfChangeTime = (r: Record<string, any>) =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(r.id) &&
      parseInt(r.id.replace(/-/g, '').slice(0, 12), 16) === (r.change_time as Date).getTime();

    describe('of a full import', () => {
      let s: SystemSetup & { full: number };
      const file = 'history/people.csv';
      const mover = (r: HrRecord, i: number) => (i === 2 ? { ...r, title: 'Chief Tester' } : r);

      it('joiner: one Added record per object, with every stored value and the origin of the run', async () => {
        s = await hrSystem(file, 5, { handling: UnresolvedReferenceHandling.Ignore });
        // Started by a user: the records carry the activity's initiator.
        const activityId = await f.queueRun(s.systemId, s.full);
        await f.pg.query(`UPDATE activity SET initiated_by_type = $2, initiated_by_id = $3, initiated_by_name = $4 WHERE id = $1`, [
          activityId,
          InitiatedByType.User,
          admin.id,
          admin.name,
        ]);
        const a = await f.execute(activityId);
        expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 5 });
        const objects = await f.objects(s.systemId);
        const recorded = await records(s.systemId);
        expect(recorded).toEqual(
          [1, 2, 3, 4, 5].map((i) => {
            const o = objects.get(hrRecord(i).employeeId)!;
            return {
              id: expect.any(String),
              change_time: expect.any(Date),
              connected_system_id: s.systemId,
              connected_system_object_id: o.id,
              object_type_id: s.types.person,
              external_id: hrRecord(i).employeeId,
              display_name: hrRecord(i).displayName,
              change_type: CsoChangeType.Added,
              attribute_changes: fromNothing(o.attributes),
              activity_id: a.id,
              run_profile_id: s.full,
              initiated_by_type: InitiatedByType.User,
              initiated_by_id: admin.id,
              initiated_by_name: admin.name,
              object_type_name: null,
              connected_system_name: null,
            };
          }),
        );
        expect(recorded[1].attribute_changes).toContainEqual({ a: s.attributes.title, o: [], n: [hrRecord(2).title] });
        expect(recorded[1].attribute_changes).toContainEqual({ a: s.attributes.employeeId, o: [], n: ['EMP000002'] });
        expect(recorded.every(idOfChangeTime)).toBe(true);
      });

      it('re-import of unchanged data: no record, not even for the content hash of an object an export wrote', async () => {
        // As an export leaves it: the values it wrote, no content hash; the import only records the hash.
        await f.pg.query(
          `UPDATE connected_system_object SET content_hash = NULL WHERE connected_system_id = $1 AND external_id = 'EMP000003'`,
          [s.systemId],
        );
        const a = await f.run(s.systemId, s.full);
        expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_deleted: 0 });
        expect((await f.objects(s.systemId)).get('EMP000003')!.content_hash).not.toBeNull();
        expect(await records(s.systemId, a.id)).toEqual([]);
        expect(await records(s.systemId)).toHaveLength(5);
      });

      it('mover: one Updated record holding exactly the changed attribute, old and new values', async () => {
        f.writeFile(file, hr(5, mover));
        const a = await f.run(s.systemId, s.full);
        expect(a).toMatchObject({ status: ActivityStatus.Complete, total_updated: 1 });
        const recorded = await records(s.systemId, a.id);
        // Written in SQL by the update itself, with an id made in SQL.
        expect(recorded.every(idOfChangeTime)).toBe(true);
        expect(recorded).toMatchObject([
          {
            connected_system_object_id: (await f.objects(s.systemId)).get('EMP000002')!.id,
            object_type_id: s.types.person,
            external_id: 'EMP000002',
            display_name: hrRecord(2).displayName,
            change_type: CsoChangeType.Updated,
            attribute_changes: [{ a: s.attributes.title, o: [hrRecord(2).title], n: ['Chief Tester'] }],
            activity_id: a.id,
            run_profile_id: s.full,
            initiated_by_type: InitiatedByType.System,
            initiated_by_id: null,
            initiated_by_name: SYSTEM_INITIATOR.name,
          },
        ]);
      });

      it('leaver: Obsoleted, without attribute changes; coming back: Updated, with no value changed', async () => {
        f.writeFile(file, hr(4, mover));
        const gone = await f.run(s.systemId, s.full);
        expect(gone).toMatchObject({ status: ActivityStatus.Complete, total_deleted: 1 });
        const leaver = (await f.objects(s.systemId)).get('EMP000005')!;
        expect(await records(s.systemId, gone.id)).toMatchObject([
          {
            connected_system_object_id: leaver.id,
            external_id: 'EMP000005',
            display_name: hrRecord(5).displayName,
            change_type: CsoChangeType.Obsoleted,
            attribute_changes: null,
            activity_id: gone.id,
          },
        ]);

        f.writeFile(file, hr(5, mover));
        const back = await f.run(s.systemId, s.full);
        expect(back).toMatchObject({ total_added: 0, total_updated: 1, total_deleted: 0 });
        expect(await records(s.systemId, back.id)).toMatchObject([
          { connected_system_object_id: leaver.id, change_type: CsoChangeType.Updated, attribute_changes: [], activity_id: back.id },
        ]);
      });
    });

    it('delta delete: Obsoleted; a delta change: Updated', async () => {
      const connector = new ScriptedConnector('ScriptedHistory', {
        objectTypes: [
          {
            name: 'user',
            attributes: [
              { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
              { name: 'name', type: 'String', plurality: 'Single', writability: 'ReadWrite' },
            ],
          },
        ],
      });
      const user = (id: string, name: string, change: 'Upsert' | 'Delete' = 'Upsert') => ({
        objectType: 'user',
        change,
        attributes: { id, name },
      });
      f.useScriptedConnector(connector);
      const s = await f.connectedSystem({ connectorType: connector.type });
      const delta = await f.runProfile(s.systemId, RunType.DeltaImport);
      connector.script = () => ({ pages: [{ objects: [user('u1', 'Ann'), user('u2', 'Bob')] }], watermark: 'w1' });
      const first = await f.run(s.systemId, delta);
      expect((await records(s.systemId, first.id)).map((r) => [r.external_id, r.change_type])).toEqual([
        ['u1', CsoChangeType.Added],
        ['u2', CsoChangeType.Added],
      ]);

      connector.script = () => ({ pages: [{ objects: [user('u1', 'Ann', 'Delete'), user('u2', 'Robert')] }], watermark: 'w2' });
      const second = await f.run(s.systemId, delta);
      expect(second).toMatchObject({ status: ActivityStatus.Complete, total_updated: 1, total_deleted: 1 });
      const objects = await f.objects(s.systemId);
      expect(await records(s.systemId, second.id)).toMatchObject([
        {
          connected_system_object_id: objects.get('u1')!.id,
          external_id: 'u1',
          display_name: 'Ann',
          change_type: CsoChangeType.Obsoleted,
          attribute_changes: null,
          run_profile_id: delta,
        },
        {
          connected_system_object_id: objects.get('u2')!.id,
          external_id: 'u2',
          display_name: 'Robert',
          change_type: CsoChangeType.Updated,
          attribute_changes: [{ a: s.attributes.name, o: ['Bob'], n: ['Robert'] }],
          run_profile_id: delta,
        },
      ]);
    });

    it('duplicates: neither occurrence leaves a record, within a page or across pages, new or updated', async () => {
      const s = await hrSystem('history-dup/people.csv', 12, { handling: UnresolvedReferenceHandling.Ignore });
      const edited = (i: number, title: string) => line({ ...hrRecord(i), title });
      const rows = Array.from({ length: 12 }, (_, k) => line(hrRecord(k + 1)));
      // Page 1 (10 lines): rows 1-4, row 3 again, rows 5-9. Page 2: rows 10-12, row 2 again (row 2 was added by page 1).
      f.writeFile(
        'history-dup/people.csv',
        [HR_CSV_COLUMNS.join(','), ...rows.slice(0, 4), edited(3, 'Twin'), ...rows.slice(4), edited(2, 'Twin')].join('\n'),
      );
      const a = await f.run(s.systemId, s.full);
      expect(a).toMatchObject({ total_added: 10, total_errors: 4 });
      const recorded = await records(s.systemId, a.id);
      expect(recorded.map((r) => r.external_id)).toEqual([1, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => hrRecord(i).employeeId));
      expect(recorded.every((r) => r.change_type === CsoChangeType.Added)).toBe(true);

      // Row 5 updated by page 1, then met twice on page 2: its update is undone, and so is its record.
      f.writeFile(
        'history-dup/people.csv',
        [
          HR_CSV_COLUMNS.join(','),
          ...rows.slice(0, 4),
          edited(5, 'Changed'),
          ...rows.slice(5),
          edited(5, 'Twin'),
          edited(5, 'Triplet'),
        ].join('\n'),
      );
      const again = await f.run(s.systemId, s.full);
      expect(again).toMatchObject({ total_added: 2, total_updated: 0, total_errors: 3 });
      expect((await records(s.systemId, again.id)).map((r) => [r.external_id, r.change_type])).toEqual([
        ['EMP000002', CsoChangeType.Added],
        ['EMP000003', CsoChangeType.Added],
      ]);
    });

    it('a page whose records cannot be written keeps neither its objects nor its records', async () => {
      const s = await hrSystem('history-crash/people.csv', 15, { handling: UnresolvedReferenceHandling.Ignore });
      const insert = ChangeRecordStore.prototype.insertCsoChanges;
      let calls = 0;
      // The second page's records are written, then the database connection "fails" before the page commits.
      const spy = jest.spyOn(ChangeRecordStore.prototype, 'insertCsoChanges').mockImplementation(async function (
        this: ChangeRecordStore,
        ...args: Parameters<ChangeRecordStore['insertCsoChanges']>
      ) {
        await insert.apply(this, args);
        if (++calls === 2) throw new Error('connection lost');
      });
      try {
        const a = await f.run(s.systemId, s.full);
        expect(a).toMatchObject({ status: ActivityStatus.FailedWithError, total_added: 10 });
      } finally {
        spy.mockRestore();
      }
      const objects = await f.objects(s.systemId);
      expect(objects.size).toBe(10);
      expect((await records(s.systemId)).map((r) => r.connected_system_object_id).sort()).toEqual(
        [...objects.values()].map((o) => o.id).sort(),
      );
    });

    it('tracking off: no record at all, and the same counters and items', async () => {
      const scenario = async () => {
        const file = `history-off-${f.name('f').replace(' ', '-')}/people.csv`;
        const s = await hrSystem(file, 5, { handling: UnresolvedReferenceHandling.Ignore });
        const runs = [await f.run(s.systemId, s.full)];
        f.writeFile(
          file,
          hr(4, (r, i) => (i === 2 ? { ...r, title: 'Chief Tester' } : r)),
        );
        runs.push(await f.run(s.systemId, s.full));
        const counters = runs.map((r) => ({
          status: r.status,
          added: r.total_added,
          updated: r.total_updated,
          deleted: r.total_deleted,
          errors: r.total_errors,
          processed: r.objects_processed,
        }));
        const items = await Promise.all(
          runs.map(async (r) => (await f.items(r.id)).map((i) => [i.external_id_value, i.object_change_type])),
        );
        return { counters, items, records: await records(s.systemId) };
      };
      const on = await scenario();
      expect(on.records).toHaveLength(5 + 2);
      await setTracking(false);
      try {
        const off = await scenario();
        expect(off.records).toEqual([]);
        expect(off.counters).toEqual(on.counters);
        expect(off.counters).toEqual([
          { status: ActivityStatus.Complete, added: 5, updated: 0, deleted: 0, errors: 0, processed: 5 },
          { status: ActivityStatus.Complete, added: 0, updated: 1, deleted: 1, errors: 0, processed: 4 },
        ]);
        expect(off.items).toEqual(on.items);
      } finally {
        await f.worker.get(SettingsService).revert(SettingKeys.CsoChangeTracking, SYSTEM_INITIATOR);
      }
    });
  });

  describe('cost per page', () => {
    const connector = new ScriptedConnector('ScriptedCost', {
      objectTypes: [
        {
          name: 'user',
          attributes: [
            { name: 'id', type: 'String', plurality: 'Single', writability: 'ReadWrite', suggestedExternalId: true },
            { name: 'name', type: 'String', plurality: 'Single', writability: 'ReadWrite' },
            { name: 'boss', type: 'Reference', plurality: 'Single', writability: 'ReadWrite' },
          ],
        },
      ],
    });

    /** Statements each page costs (between two page boundaries), for pages 2.. of a run. */
    async function statementsPerPage(systemId: number, profileId: number): Promise<number[]> {
      const marks: Array<{ at: 'enter' | 'leave'; statements: number }> = [];
      const pageDone = RunContext.prototype.pageDone;
      const spy = jest.spyOn(RunContext.prototype, 'pageDone').mockImplementation(async function (
        this: RunContext,
        objects: number,
        force?: boolean,
      ) {
        marks.push({ at: 'enter', statements: this.session.statements });
        try {
          return await pageDone.call(this, objects, force);
        } finally {
          marks.push({ at: 'leave', statements: this.session.statements });
        }
      });
      try {
        const a = await f.run(systemId, profileId);
        expect(a.status).toBe(ActivityStatus.Complete);
      } finally {
        spy.mockRestore();
      }
      const costs: number[] = [];
      // Only the reading pages (the first three boundaries); later boundaries belong to the following phases.
      for (let k = 1; k < 3; k++) costs.push(marks[2 * k].statements - marks[2 * k - 1].statements);
      return costs;
    }

    it('costs the same number of statements for a page of 10 objects as for a page of 1000, with change records or without', async () => {
      f.useScriptedConnector(connector);
      const costs: Record<string, number[]> = {};
      const settings = f.worker.get(SettingsService);
      try {
        for (const tracking of [true, false]) {
          await settings.set(SettingKeys.CsoChangeTracking, tracking, SYSTEM_INITIATOR);
          const mode = tracking ? 'recorded' : 'unrecorded';
          for (const size of [10, 1000]) {
            const s = await f.connectedSystem({ connectorType: connector.type });
            const full = await f.runProfile(s.systemId, RunType.FullImport, { pageSize: size });
            const page = (p: number, name: string) => ({
              objects: Array.from({ length: size }, (_, k) => ({
                objectType: 'user',
                change: 'Upsert' as const,
                attributes: { id: `u${p}-${k}`, name, boss: `u0-${k}` },
              })),
            });
            connector.script = () => ({ pages: [page(0, 'a'), page(1, 'a'), page(2, 'a')] });
            costs[`new ${size} ${mode}`] = await statementsPerPage(s.systemId, full);
            connector.script = () => ({ pages: [page(0, 'b'), page(1, 'b'), page(2, 'b')] });
            costs[`changed ${size} ${mode}`] = await statementsPerPage(s.systemId, full);
            costs[`unchanged ${size} ${mode}`] = await statementsPerPage(s.systemId, full);
            const records = await f.query(
              `SELECT change_type, count(*)::int AS n FROM connected_system_object_change WHERE connected_system_id = $1 GROUP BY change_type ORDER BY 1`,
              [s.systemId],
            );
            expect(records).toEqual(
              tracking
                ? [
                    { change_type: CsoChangeType.Added, n: 3 * size },
                    { change_type: CsoChangeType.Updated, n: 3 * size },
                  ]
                : [],
            );
          }
        }
      } finally {
        await settings.revert(SettingKeys.CsoChangeTracking, SYSTEM_INITIATOR);
      }
      for (const mode of ['recorded', 'unrecorded']) {
        expect(costs[`new 1000 ${mode}`]).toEqual(costs[`new 10 ${mode}`]);
        expect(costs[`changed 1000 ${mode}`]).toEqual(costs[`changed 10 ${mode}`]);
        expect(costs[`unchanged 1000 ${mode}`]).toEqual(costs[`unchanged 10 ${mode}`]);
      }
      // Change records of new objects are one COPY more per page; with the objects' COPY that makes two
      // writes, so the page becomes a transaction (BEGIN, COMMIT): three statements more, whatever the size.
      // Updated records are written by the UPDATE itself (a CTE), so a page of changes costs the same.
      expect(costs['new 10 recorded']).toEqual(costs['new 10 unrecorded'].map((n) => n + 3));
      expect(costs['changed 10 recorded']).toEqual(costs['changed 10 unrecorded']);
      expect(costs['unchanged 10 recorded']).toEqual(costs['unchanged 10 unrecorded']);
      // A handful of statements, not one per object.
      expect(Math.max(...Object.values(costs).flat())).toBeLessThan(12);
    });
  });
});
