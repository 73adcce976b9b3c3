import {
  ConnectorSpaceChange,
  ConnectorSpaceObjectInput,
  connectorSpaceLookupSql,
  copyEncoded,
  copyRows,
  CopyValue,
  encodeCopyLine,
  findConnectorSpaceObjectsByExternalIds,
  upsertConnectorSpaceObjects,
} from '@meridian/persistence';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '../src';

describe('bulk writes (libs/persistence/src/bulk) against PostgreSQL', () => {
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase('bulk');
    client = new Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const stillUsable = async () => expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

  describe('copyRows', () => {
    beforeAll(async () => {
      await client.query(`CREATE TABLE copy_target (
        n int PRIMARY KEY, t text, j jsonb, b bytea, d timestamptz, f double precision, flag boolean, big bigint)`);
    });
    beforeEach(async () => {
      await client.query('TRUNCATE copy_target');
    });

    const read = async () => (await client.query(`SELECT n, t, j, b, d, f, flag, big::text FROM copy_target ORDER BY n`)).rows;

    it('round-trips the characters COPY text format has to escape, unicode, NULL and empty text', async () => {
      const texts = [
        'tab\there',
        'line\nbreak',
        'crlf\r\nend',
        'back\\slash',
        '\\N',
        '\\\\N',
        'trailing backslash\\',
        'Zoë 山田 🚀 \u00a0',
        '',
        null,
        '\\x41',
        '"quoted"',
        '\t\n\r\\',
      ];
      const rows: CopyValue[][] = texts.map((t, n) => [n, t, null, null, null, null, null, null]);
      expect(await copyRows(client, 'copy_target', ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'], rows)).toBe(texts.length);
      expect((await read()).map((r) => r.t)).toEqual(texts);
      const {
        rows: [{ nulls }],
      } = await client.query(`SELECT count(*)::int AS nulls FROM copy_target WHERE t IS NULL`);
      expect(nulls).toBe(1);
    });

    it('writes JSON with quotes, backslashes and control characters, bytea, dates, numbers and booleans', async () => {
      const json = { name: 'say "hi"', path: 'C:\\dir\\file', multi: 'a\nb\tc', emoji: '🚀', nested: [{ k: null }, 1.5, true] };
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const when = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 123));
      await copyRows(
        client,
        'copy_target',
        ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'],
        [
          [1, 'x', json, bytes, when, -0.125, true, 9007199254740993n],
          [2, 'y', ['array', 'of', 'text'], Buffer.alloc(0), null, 1e21, false, -1],
        ],
      );
      const [one, two] = await read();
      expect(one).toEqual({ n: 1, t: 'x', j: json, b: bytes, d: when, f: -0.125, flag: true, big: '9007199254740993' });
      expect(two).toEqual({ n: 2, t: 'y', j: ['array', 'of', 'text'], b: Buffer.alloc(0), d: null, f: 1e21, flag: false, big: '-1' });
    });

    it('streams a large async source in bounded chunks', async () => {
      async function* source() {
        for (let n = 0; n < 50_000; n++)
          yield [n, `row ${n}\t${'x'.repeat(n % 50)}`, { n }, null, null, n / 2, n % 2 === 0, n] as CopyValue[];
      }
      expect(await copyRows(client, 'copy_target', ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'], source())).toBe(50_000);
      const {
        rows: [r],
      } = await client.query(`SELECT count(*)::int AS c, sum(n)::bigint::text AS s, min(t) AS t FROM copy_target WHERE (j->>'n')::int = n`);
      expect(r).toEqual({ c: 50_000, s: String((49_999 * 50_000) / 2), t: 'row 0\t' });
    });

    it('writes multi-byte text across chunk boundaries, and a value larger than a chunk, byte for byte', async () => {
      // Rows of 2-, 3- and 4-byte characters fill chunks unevenly, so every kind of character meets a chunk's end;
      // one value of 200,000 characters (600,000 bytes) is larger than any chunk.
      const texts = Array.from({ length: 3_000 }, (_, n) => `${n} ${'é'.repeat(n % 97)}${'山'.repeat(n % 89)}${'🚀'.repeat(n % 83)}`);
      texts[1_500] = '山'.repeat(200_000);
      const rows: CopyValue[][] = texts.map((t, n) => [n, t, { t }, null, null, null, null, null]);
      expect(await copyRows(client, 'copy_target', ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'], rows)).toBe(texts.length);
      const back = await client.query(`SELECT t, j ->> 't' AS jt FROM copy_target ORDER BY n`);
      expect(back.rows.map((r) => r.t)).toEqual(texts);
      expect(back.rows.map((r) => r.jt)).toEqual(texts);
    });

    it('writes nothing and leaves the connection usable when a value cannot be encoded or the source fails', async () => {
      const columns = ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'];
      await expect(
        copyRows(client, 'copy_target', columns, [
          [1, 'ok', null, null, null, null, null, null],
          [2, 'nul\u0000', null, null, null, null, null, null],
        ]),
      ).rejects.toThrow(/NUL/);
      await stillUsable();
      await expect(copyRows(client, 'copy_target', columns, [[1, 'too few']])).rejects.toThrow(/2 values for 8 columns/);
      await stillUsable();
      async function* failing() {
        for (let n = 0; n < 10_000; n++) yield [n, 'x', null, null, null, null, null, null] as CopyValue[];
        throw new Error('connector went away');
      }
      await expect(copyRows(client, 'copy_target', columns, failing())).rejects.toThrow('connector went away');
      await stillUsable();
      // A database-side failure (duplicate key) also rolls the whole COPY back.
      await expect(
        copyRows(client, 'copy_target', columns, [
          [7, 'a', null, null, null, null, null, null],
          [7, 'b', null, null, null, null, null, null],
        ]),
      ).rejects.toThrow(/duplicate key/);
      await stillUsable();
      expect(await read()).toEqual([]);
    });

    it('copyEncoded writes text already in COPY format', async () => {
      const lines = [
        encodeCopyLine([1, 'a\tb', { k: 'v' }, null, null, null, true, 5]),
        encodeCopyLine([2, null, null, Buffer.from([1]), null, 0.5, false, null]),
      ];
      await copyEncoded(client, 'copy_target', ['n', 't', 'j', 'b', 'd', 'f', 'flag', 'big'], lines);
      expect(await read()).toEqual([
        { n: 1, t: 'a\tb', j: { k: 'v' }, b: null, d: null, f: null, flag: true, big: '5' },
        { n: 2, t: null, j: null, b: Buffer.from([1]), d: null, f: 0.5, flag: false, big: null },
      ]);
    });

    it('quotes the table and column names', async () => {
      await client.query(`CREATE TABLE "Odd ""Table""" ("Mixed Case" text)`);
      await copyRows(client, 'Odd "Table"', ['Mixed Case'], [['value']]);
      expect((await client.query(`SELECT * FROM "Odd ""Table"""`)).rows).toEqual([{ 'Mixed Case': 'value' }]);
    });
  });

  describe('connector space', () => {
    let system: number;
    let otherSystem: number;
    let person: number;
    let group: number;
    let otherPerson: number;

    beforeAll(async () => {
      const cs = async (name: string) =>
        (await client.query(`INSERT INTO connected_system (name, connector_type) VALUES ($1, 'File') RETURNING id`, [name])).rows[0].id;
      const type = async (systemId: number, name: string) =>
        (
          await client.query(`INSERT INTO connected_system_object_type (connected_system_id, name) VALUES ($1, $2) RETURNING id`, [
            systemId,
            name,
          ])
        ).rows[0].id;
      system = await cs('HR');
      otherSystem = await cs('Directory');
      person = await type(system, 'person');
      group = await type(system, 'group');
      otherPerson = await type(otherSystem, 'person');
    });

    const person_ = (i: number, overrides: Partial<ConnectorSpaceObjectInput> = {}): ConnectorSpaceObjectInput => ({
      connectedSystemId: system,
      objectTypeId: person,
      externalId: `E${String(i).padStart(5, '0')}`,
      secondaryExternalId: `user${i}@example.org`,
      displayName: `User ${i}`,
      attributes: { 1: [`E${i}`], 2: [`User ${i}`], 3: [i], 4: ['2024-01-01T00:00:00.000Z'], 5: [`a${i}@x`, `b${i}@x`] },
      ...overrides,
    });
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);
    const rows = async (systemId = system, typeId = person) =>
      (
        await client.query(
          `SELECT id, external_id, secondary_external_id, display_name, status, attributes, content_hash, created, last_updated
         FROM connected_system_object WHERE connected_system_id = $1 AND object_type_id = $2 ORDER BY external_id`,
          [systemId, typeId],
        )
      ).rows;

    it('records only the hash of an object an export wrote when the import reads the same values back', async () => {
      await client.query('DELETE FROM connected_system_object');
      await upsertConnectorSpaceObjects(client, [person_(1), person_(2)]);
      // An export leaves the written values and clears the hash.
      await client.query(`UPDATE connected_system_object SET content_hash = NULL, sync_pending = false WHERE connected_system_id = $1`, [
        system,
      ]);
      const changed = person_(2, { attributes: { ...person_(2).attributes, 2: ['Renamed'] } });
      const result = await upsertConnectorSpaceObjects(client, [person_(1), changed]);
      expect(result).toMatchObject({ received: 2, inserted: 0, updated: 1, unchanged: 1 });
      const after = await client.query(
        `SELECT external_id, content_hash IS NOT NULL AS hashed, sync_pending FROM connected_system_object
                                         WHERE connected_system_id = $1 ORDER BY external_id`,
        [system],
      );
      expect(after.rows).toEqual([
        { external_id: 'E00001', hashed: true, sync_pending: false },
        { external_id: 'E00002', hashed: true, sync_pending: true },
      ]);
      expect((await upsertConnectorSpaceObjects(client, [person_(1), changed])).unchanged).toBe(2);
    });

    for (const merge of [false, true]) {
      describe(
        merge ? 'upsertConnectorSpaceObjects with merge (staging + INSERT … ON CONFLICT)' : 'upsertConnectorSpaceObjects (lookup + COPY)',
        () => {
          beforeAll(async () => {
            await client.query('DELETE FROM connected_system_object');
          });

          it('inserts new objects in batches, with time-ordered ids and a content hash', async () => {
            const input = range(0, 2500).map((i) => person_(i));
            const changes: ConnectorSpaceChange[] = [];
            const r = await upsertConnectorSpaceObjects(client, input, {
              batchSize: 1000,
              onChanges: (c) => {
                changes.push(...c);
              },
              merge,
            });
            expect({ ...r, changes: changes.length }).toEqual({
              received: 2500,
              inserted: 2500,
              updated: 0,
              unchanged: 0,
              duplicates: [],
              changes: 2500,
            });
            const stored = await rows();
            expect(stored).toHaveLength(2500);
            const byExternalId = new Map(stored.map((s) => [s.external_id, s]));
            for (const change of changes) {
              expect(change).toMatchObject({ connectedSystemId: system, objectTypeId: person, inserted: true });
              expect(byExternalId.get(change.externalId)!.id).toBe(change.id);
              expect(change.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
            }
            const first = stored[0];
            expect(first).toMatchObject({
              external_id: 'E00000',
              secondary_external_id: 'user0@example.org',
              display_name: 'User 0',
              status: 'Normal',
              last_updated: null,
            });
            expect(first.attributes).toEqual({ 1: ['E0'], 2: ['User 0'], 3: [0], 4: ['2024-01-01T00:00:00.000Z'], 5: ['a0@x', 'b0@x'] });
            expect(first.content_hash).toHaveLength(32);
          });

          it('writes nothing for unchanged objects, whatever the order of their attribute keys', async () => {
            const before = await rows();
            const input = range(0, 2500).map((i) => {
              const o = person_(i);
              // Same values, keys inserted in another order: still unchanged.
              return i % 2 ? { ...o, attributes: Object.fromEntries(Object.entries(o.attributes).reverse()) } : o;
            });
            const r = await upsertConnectorSpaceObjects(client, input, { batchSize: 700, merge });
            expect(r).toMatchObject({ received: 2500, inserted: 0, updated: 0, unchanged: 2500 });
            expect(await rows()).toEqual(before);
          });

          it('updates only objects whose content changed, and inserts the new ones', async () => {
            const before = new Map((await rows()).map((s) => [s.external_id, s]));
            const input = [
              ...range(0, 2500).map((i) => {
                if (i < 10) return person_(i, { attributes: { ...person_(i).attributes, 2: [`Renamed ${i}`] } });
                if (i === 10) return person_(i, { displayName: 'Display changed' });
                if (i === 11) return person_(i, { secondaryExternalId: null });
                if (i === 12) return person_(i, { attributes: { ...person_(i).attributes, 5: [`b${i}@x`, `a${i}@x`] } }); // multi-value order counts
                return person_(i);
              }),
              ...range(5000, 5005).map((i) => person_(i)),
            ];
            const changes: ConnectorSpaceChange[] = [];
            const r = await upsertConnectorSpaceObjects(client, input, {
              batchSize: 1000,
              onChanges: (c) => {
                changes.push(...c);
              },
              merge,
            });
            expect(r).toMatchObject({ received: 2505, inserted: 5, updated: 13, unchanged: 2487 });
            expect(
              changes
                .filter((c) => !c.inserted)
                .map((c) => c.externalId)
                .sort(),
            ).toEqual(range(0, 13).map((i) => `E${String(i).padStart(5, '0')}`));
            const after = new Map((await rows()).map((s) => [s.external_id, s]));
            expect(after.size).toBe(2505);
            for (const [externalId, row] of after) {
              const old = before.get(externalId);
              const i = Number(externalId.slice(1));
              if (!old) {
                expect(i).toBeGreaterThanOrEqual(5000);
                continue;
              }
              expect(row.id).toBe(old.id);
              if (i < 13) {
                expect(row.last_updated).toBeInstanceOf(Date);
                expect(row.content_hash.equals(old.content_hash)).toBe(false);
              } else {
                expect(row).toEqual(old);
              }
            }
            expect(after.get('E00003')!.attributes[2]).toEqual(['Renamed 3']);
            expect(after.get('E00010')!.display_name).toBe('Display changed');
            expect(after.get('E00011')!.secondary_external_id).toBeNull();
          });

          it('brings an object back to Normal when an import sees it again', async () => {
            await client.query(`UPDATE connected_system_object SET status = 'Obsolete' WHERE external_id = 'E00020'`);
            await client.query(
              `UPDATE connected_system_object SET status = 'PendingProvisioning', content_hash = NULL WHERE external_id = 'E00021'`,
            );
            const r = await upsertConnectorSpaceObjects(client, [person_(20), person_(21), person_(22)], { merge });
            expect(r).toMatchObject({ inserted: 0, updated: 2, unchanged: 1 });
            const { rows: status } = await client.query(
              `SELECT external_id, status, content_hash IS NOT NULL AS hashed FROM connected_system_object WHERE external_id IN ('E00020', 'E00021') ORDER BY 1`,
            );
            expect(status).toEqual([
              { external_id: 'E00020', status: 'Normal', hashed: true },
              { external_id: 'E00021', status: 'Normal', hashed: true },
            ]);
          });

          it('rejects every object whose external id occurs twice in a batch (no random winner) and writes the rest', async () => {
            const input = [
              person_(6000),
              person_(6001),
              person_(6000, { displayName: 'Second copy' }),
              person_(6002),
              person_(6000, { displayName: 'Third' }),
              person_(6003),
            ];
            const r = await upsertConnectorSpaceObjects(client, input, { merge, batchSize: 10 });
            expect(r).toMatchObject({ received: 6, inserted: 3, updated: 0, unchanged: 0 });
            expect(r.duplicates).toEqual(Array(3).fill({ connectedSystemId: system, objectTypeId: person, externalId: 'E06000' }));
            const { rows } = await client.query(
              `SELECT external_id FROM connected_system_object WHERE external_id LIKE 'E060%' ORDER BY 1`,
            );
            expect(rows.map((x) => x.external_id)).toEqual(['E06001', 'E06002', 'E06003']);
          });

          it('keeps systems and object types apart: the same external id in each is its own object', async () => {
            const same = 'SHARED-1';
            const input = [
              person_(1, { externalId: same }),
              person_(1, { externalId: same, objectTypeId: group, attributes: { 9: ['a group'] } }),
              person_(1, { externalId: same, connectedSystemId: otherSystem, objectTypeId: otherPerson }),
            ];
            expect(await upsertConnectorSpaceObjects(client, input, { merge })).toMatchObject({ inserted: 3, duplicates: [] });
            expect(await upsertConnectorSpaceObjects(client, input, { merge })).toMatchObject({ unchanged: 3 });
            const {
              rows: [{ count }],
            } = await client.query(`SELECT count(*)::int AS count FROM connected_system_object WHERE external_id = $1`, [same]);
            expect(count).toBe(3);
          });

          it('stores external ids and values with characters COPY must escape, unchanged on the way back', async () => {
            const odd = ['tab\tid', 'new\nline', 'back\\slash', '\\N', 'Zoë 山田 🚀', 'comma,"quote"'];
            const input = odd.map((externalId, k) =>
              person_(7000 + k, { externalId, displayName: externalId, attributes: { 1: [externalId, `${externalId}\r\n`] } }),
            );
            expect(await upsertConnectorSpaceObjects(client, input, { merge })).toMatchObject({ inserted: odd.length });
            const found = await findConnectorSpaceObjectsByExternalIds(client, system, person, odd);
            expect(found.map((f) => f.externalId).sort()).toEqual([...odd].sort());
            for (const f of found) {
              expect(f.displayName).toBe(f.externalId);
              expect(f.attributes).toEqual({ 1: [f.externalId, `${f.externalId}\r\n`] });
            }
            expect(await upsertConnectorSpaceObjects(client, input, { merge })).toMatchObject({ unchanged: odd.length });
          });
        },
      );
    }

    it('reads an async source while writing, and stops cleanly when the source fails', async () => {
      await client.query('DELETE FROM connected_system_object');
      async function* failing() {
        for (let i = 0; i < 2500; i++) {
          if (i === 2200) throw new Error('connector went away');
          yield person_(i);
        }
      }
      await expect(upsertConnectorSpaceObjects(client, failing(), { batchSize: 1000 })).rejects.toThrow('connector went away');
      await stillUsable();
      // Without a transaction around it, the batches written before the failure stay written.
      const {
        rows: [{ count }],
      } = await client.query(`SELECT count(*)::int AS count FROM connected_system_object`);
      expect(count).toBe(2000);
      // Inside the caller's transaction, a rollback takes all of it back.
      await client.query('BEGIN');
      await expect(upsertConnectorSpaceObjects(client, failing(), { batchSize: 700 })).rejects.toThrow('connector went away');
      await client.query('ROLLBACK');
      expect((await client.query(`SELECT count(*)::int AS count FROM connected_system_object`)).rows[0].count).toBe(2000);
    });

    it('refuses an object without an external id', async () => {
      await expect(upsertConnectorSpaceObjects(client, [person_(1, { externalId: '' })])).rejects.toThrow(/no external id/);
      await expect(upsertConnectorSpaceObjects(client, [person_(1)], { batchSize: 0 })).rejects.toThrow(/batchSize/);
      await stillUsable();
    });

    describe('findConnectorSpaceObjectsByExternalIds', () => {
      beforeAll(async () => {
        await client.query('DELETE FROM connected_system_object');
        await upsertConnectorSpaceObjects(
          client,
          range(0, 3000).map((i) => person_(i)),
          { batchSize: 1000 },
        );
        await upsertConnectorSpaceObjects(client, [person_(5, { connectedSystemId: otherSystem, objectTypeId: otherPerson })]);
      });

      it('finds a page of objects by external id in one query, ignoring unknown ids and other systems', async () => {
        const wanted = [...range(1000, 1998).map((i) => `E${String(i).padStart(5, '0')}`), 'missing-1', 'missing-2'];
        const found = await findConnectorSpaceObjectsByExternalIds(client, system, person, wanted);
        expect(found).toHaveLength(998);
        const one = found.find((f) => f.externalId === 'E01500')!;
        expect(one).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          connectedSystemId: system,
          objectTypeId: person,
          externalId: 'E01500',
          secondaryExternalId: 'user1500@example.org',
          displayName: 'User 1500',
          status: 'Normal',
          attributes: person_(1500).attributes,
          contentHash: expect.any(Buffer),
          metaverseObjectId: null,
          joinType: null,
        });
        expect(
          (await findConnectorSpaceObjectsByExternalIds(client, otherSystem, otherPerson, ['E00005', 'E00006'])).map((f) => f.externalId),
        ).toEqual(['E00005']);
        expect(await findConnectorSpaceObjectsByExternalIds(client, system, group, ['E00005'])).toEqual([]);
      });

      it('reads only the narrow columns when asked, returns each object once, and needs no query for no ids', async () => {
        const found = await findConnectorSpaceObjectsByExternalIds(client, system, person, ['E00001', 'E00001', 'E00002'], {
          attributes: false,
        });
        expect(found.map((f) => f.externalId).sort()).toEqual(['E00001', 'E00002']);
        for (const f of found) expect(f).not.toHaveProperty('attributes');
        expect(await findConnectorSpaceObjectsByExternalIds(client, system, person, [])).toEqual([]);
      });

      it('looks each id up on the external-id index, all three columns in the index condition', async () => {
        const { rows: plan } = await client.query(`EXPLAIN (FORMAT JSON) ${connectorSpaceLookupSql('id')}`, [
          system,
          person,
          ['E00001', 'E00002'],
        ]);
        const scans: Array<Record<string, unknown>> = [];
        const walk = (node: Record<string, unknown>) => {
          if (node['Index Name']) scans.push(node);
          for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
        };
        walk(plan[0]['QUERY PLAN'][0].Plan);
        expect(scans.map((n) => n['Index Name'])).toEqual(['uq_cso_external_id']);
        expect(scans[0]['Index Cond']).toMatch(/connected_system_id = .*object_type_id = .*external_id = k\.external_id/);
      });
    });
  });
});
