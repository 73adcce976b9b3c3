import { RunContext } from '@meridian/application';
import { ActivityStatus, ExecutionErrorType, ObjectChangeType, RunType, SettingKeys } from '@meridian/domain';
import { HR_CSV_COLUMNS, hrCsvText, HrRecord, hrRecord } from '@meridian/testing';
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
  const hr = (n: number, edit: (r: HrRecord, i: number) => HrRecord | null = (r) => r, extra: string[] = []) => [
    HR_CSV_COLUMNS.join(','),
    ...Array.from({ length: n }, (_, k) => edit(hrRecord(k + 1), k + 1)).filter((r): r is HrRecord => r !== null).map(line),
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
  async function hrSystem(file: string, rows: number | string, options: { pageSize?: number; handling?: 'Error' | 'Warn' | 'Ignore' } = {}) {
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
        status: ActivityStatus.Complete, total_added: 25, total_updated: 0, total_deleted: 0, total_errors: 0, objects_processed: 25,
        message: `Full import of "${a.target_context}": 25 objects read, 25 added, 0 updated, 0 deleted, 0 errors.`,
      });
      const items = await f.items(a.id);
      expect(items).toHaveLength(25);
      expect(items.every((i) => i.object_change_type === ObjectChangeType.Add && i.outcome_summary === 'Added:1' && i.error_type === null)).toBe(true);
      expect(items[0]).toMatchObject({ external_id_value: 'EMP000001', connected_system_object_type: 'person', display_name: hrRecord(1).displayName });

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
      expect(objects.get('EMP000001')!.resolved_references).toBeNull();
    });

    it('writes nothing when nothing changed', async () => {
      await f.pg.query(`UPDATE connected_system_object SET sync_pending = false WHERE connected_system_id = $1`, [hrs.systemId]);
      const before = await f.query(`SELECT id, xmin::text FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`, [hrs.systemId]);
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_deleted: 0, total_errors: 0, objects_processed: 25 });
      expect(await f.items(a.id)).toHaveLength(0);
      expect(await f.query(`SELECT id, xmin::text FROM connected_system_object WHERE connected_system_id = $1 ORDER BY id`, [hrs.systemId])).toEqual(before);
    });

    it('updates a changed object only, and flags it for synchronisation', async () => {
      f.writeFile(file, hr(25, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)));
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 1, total_deleted: 0 });
      const items = await f.items(a.id);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ external_id_value: 'EMP000005', object_change_type: ObjectChangeType.Update, outcome_summary: 'Updated:1' });
      const pending = await f.query(`SELECT external_id, attributes FROM connected_system_object WHERE connected_system_id = $1 AND sync_pending`, [hrs.systemId]);
      expect(pending.map((p) => p.external_id)).toEqual(['EMP000005']);
      expect(pending[0].attributes[hrs.attributes.title]).toEqual(['Chief Tester']);
    });

    it('marks an object gone from the source obsolete', async () => {
      f.writeFile(file, hr(24, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)));
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.Complete, total_added: 0, total_updated: 0, total_deleted: 1, objects_processed: 24 });
      expect(await f.items(a.id)).toMatchObject([{ external_id_value: 'EMP000025', object_change_type: ObjectChangeType.Delete, outcome_summary: 'Deleted:1' }]);
      const gone = (await f.objects(hrs.systemId)).get('EMP000025')!;
      expect(gone).toMatchObject({ status: 'Obsolete', sync_pending: true });
      // It comes back when the source has it again.
      f.writeFile(file, hr(25, (r, i) => (i === 5 ? { ...r, title: 'Chief Tester' } : r)));
      const back = await f.run(hrs.systemId, hrs.full);
      expect(back).toMatchObject({ total_added: 0, total_updated: 1, total_deleted: 0 });
      expect((await f.objects(hrs.systemId)).get('EMP000025')).toMatchObject({ status: 'Normal', id: gone.id });
    });

    it('obsoletes nothing when the source returns no objects, and says so', async () => {
      f.writeFile(file, `${HR_CSV_COLUMNS.join(',')}\n`);
      const a = await f.run(hrs.systemId, hrs.full);
      expect(a).toMatchObject({ status: ActivityStatus.CompleteWithWarning, total_added: 0, total_updated: 0, total_deleted: 0, objects_processed: 0 });
      expect(a.warning_message).toMatch(/returned no objects, so nothing was marked obsolete/);
      const statuses = await f.query(`SELECT status, count(*)::int AS n FROM connected_system_object WHERE connected_system_id = $1 GROUP BY status`, [hrs.systemId]);
      expect(statuses).toEqual([{ status: 'Normal', n: 25 }]);
    });
  });
});
