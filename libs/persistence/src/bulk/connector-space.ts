import { hash } from 'node:crypto';
import type { ClientBase } from 'pg';
import { copyRows, CopyValue, escapeCopyText, PreEncoded } from './copy-rows';
import { uuidV7 } from './uuid-v7';

/** One imported object, as the import runner hands it to the connector space. */
export interface ConnectorSpaceObjectInput {
  connectedSystemId: number;
  objectTypeId: number;
  externalId: string;
  secondaryExternalId?: string | null;
  displayName?: string | null;
  /** Values by connected-system attribute id: `{ "12": ["Ada"], "15": ["a@x", "b@x"] }`. */
  attributes: Record<string, unknown[]>;
}

export interface UpsertConnectorSpaceOptions {
  /** Objects written per round of statements (default 1000, a connector page). Memory is bounded by it. */
  batchSize?: number;
  /**
   * Stage every object and merge with INSERT … ON CONFLICT, for callers that do not hold the
   * connected system's synchronisation lock (see upsertConnectorSpaceObjects).
   */
  merge?: boolean;
  /**
   * Called once per written batch with the objects it inserted or updated (ids for items and change
   * tracking). Memory stays bounded by the batch, whatever the number of objects written.
   */
  onChanges?: (changes: ConnectorSpaceChange[]) => void | Promise<void>;
  /**
   * A temporary table with the columns of CONNECTOR_SPACE_PREVIOUS_STATE_DDL that receives, for every
   * object a batch updates, the state it had before (the first write per object in the table wins), in
   * the same statement as the update. Lets the caller undo a write later (the import runner undoes the
   * writes of an external id that turns out to be a duplicate). Not available with `merge`.
   */
  previousStateTable?: string;
}

/** Columns of a previous-state table (UpsertConnectorSpaceOptions.previousStateTable). */
export const CONNECTOR_SPACE_PREVIOUS_STATE_DDL = 'id uuid PRIMARY KEY, secondary_external_id text, display_name text, attributes jsonb, '
  + 'content_hash bytea, status varchar(30), sync_pending boolean, resolved_references jsonb, last_updated timestamptz';

/** Columns of a previous-state table, in a form usable in SQL column lists. */
export const CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS = 'id, secondary_external_id, display_name, attributes, content_hash, status, sync_pending, resolved_references, last_updated';

export interface ConnectorSpaceChange {
  id: string;
  connectedSystemId: number;
  objectTypeId: number;
  externalId: string;
  inserted: boolean;
}

export interface UpsertConnectorSpaceResult {
  /** Objects read from the input. */
  received: number;
  inserted: number;
  updated: number;
  /** Present with the same content hash: not written at all. */
  unchanged: number;
  /**
   * Objects whose external id occurs more than once in one batch: every occurrence is listed and none
   * is written (DOMAIN.md §2.1, no random winner). Repeats across batches are the runner's to detect.
   */
  duplicates: Array<{ connectedSystemId: number; objectTypeId: number; externalId: string }>;
}

export interface ConnectorSpaceObjectRecord {
  id: string;
  connectedSystemId: number;
  objectTypeId: number;
  externalId: string;
  secondaryExternalId: string | null;
  displayName: string | null;
  status: string;
  /** Absent when looked up with `attributes: false`. */
  attributes?: Record<string, unknown[]>;
  contentHash: Buffer | null;
  metaverseObjectId: string | null;
  joinType: string | null;
}

const INTEGER_KEY = /^(?:0|[1-9]\d{0,8})$/;

/**
 * The attribute document as JSON with a stable key order. Keys that are attribute ids (integers)
 * are already serialised in ascending order by JSON.stringify; any other key set is sorted.
 */
export function canonicalAttributesJson(attributes: Record<string, unknown[]>): string {
  const keys = Object.keys(attributes);
  if (keys.every((k) => INTEGER_KEY.test(k))) return JSON.stringify(attributes);
  const sorted: Record<string, unknown[]> = {};
  for (const k of keys.sort()) sorted[k] = attributes[k];
  return JSON.stringify(sorted);
}

/**
 * SHA-256 of what an import writes (secondary external id, display name and the canonical attribute
 * JSON). Equal hash ⇒ the object did not change, so the row is not rewritten. Values of a
 * multi-valued attribute count in the order given: connectors hand them over in a stable order.
 */
export function connectorSpaceContentHash(secondaryExternalId: string | null | undefined, displayName: string | null | undefined, attributesJson: string): Buffer {
  return hash('sha256', `${JSON.stringify([secondaryExternalId ?? null, displayName ?? null])}\n${attributesJson}`, 'buffer');
}

/** Columns of connected_system_object that an import writes, in the order of connectorSpaceCopyRow. */
export const CONNECTOR_SPACE_COPY_COLUMNS: readonly string[] = ['id', 'connected_system_id', 'object_type_id', 'external_id', 'secondary_external_id', 'display_name', 'attributes', 'content_hash'];

/**
 * The COPY row of one imported object: a new time-ordered id (used only if the object is new), the
 * canonical attribute JSON and its content hash.
 */
export function connectorSpaceCopyRow(o: ConnectorSpaceObjectInput): CopyValue[] {
  const content = connectorSpaceContent(o);
  // The attribute JSON is already text: PreEncoded keeps copyRows from serialising it a second time.
  return [uuidV7(), o.connectedSystemId, o.objectTypeId, o.externalId, o.secondaryExternalId ?? null, o.displayName ?? null,
    new PreEncoded(escapeCopyText(content.json)), content.hash];
}

/** The canonical attribute JSON of an object and its content hash. */
export function connectorSpaceContent(o: ConnectorSpaceObjectInput): { json: string; hash: Buffer } {
  const json = canonicalAttributesJson(o.attributes);
  return { json, hash: connectorSpaceContentHash(o.secondaryExternalId, o.displayName, json) };
}

// Position of the id in a connectorSpaceCopyRow.
const ID = 0;

const CHANGES = 'meridian_cso_changes';
const STAGE = 'meridian_cso_stage';

/** What a write of changed values sets besides the values (shared by every form of the update). */
const WRITE_FLAGS = "status = 'Normal', sync_pending = true, resolved_references = NULL, last_updated = now()";

/**
 * Rewrites the changed objects of a batch (staged in CHANGES) by id; an import also confirms the object
 * exists. Every write flags the object for the next delta synchronisation (`sync_pending`) and drops its
 * resolved references, which were resolved from the old values: the import resolves them again (an
 * object left with NULL by an interrupted import is resolved by the next one).
 */
const APPLY_CHANGES = `
  UPDATE connected_system_object c
     SET secondary_external_id = s.secondary_external_id, display_name = s.display_name, attributes = s.attributes,
         content_hash = s.content_hash, ${WRITE_FLAGS}
    FROM ${CHANGES} s
   WHERE c.id = s.id`;

/**
 * APPLY_CHANGES that also keeps the state each object had before (option previousStateTable). The
 * second reference to the table (p) reads the rows as they were when the statement started.
 */
const applyChangesKeepingPrevious = (table: string) => `
  WITH applied AS (
    UPDATE connected_system_object c
       SET secondary_external_id = s.secondary_external_id, display_name = s.display_name, attributes = s.attributes,
           content_hash = s.content_hash, ${WRITE_FLAGS}
      FROM ${CHANGES} s JOIN connected_system_object p ON p.id = s.id
     WHERE c.id = s.id
    RETURNING ${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS.split(', ').map((c) => `p.${c}`).join(', ')})
  INSERT INTO ${table} (${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS}) SELECT ${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS} FROM applied
  ON CONFLICT (id) DO NOTHING`;

/**
 * The merge form (option `merge`): every row of the batch staged, then one INSERT … ON CONFLICT …
 * DO UPDATE … WHERE the content hash differs. Needs no lock, costs a second write of every new row.
 */
const MERGE = `
  INSERT INTO connected_system_object AS c
    (id, connected_system_id, object_type_id, external_id, secondary_external_id, display_name, attributes, content_hash)
  SELECT id, connected_system_id, object_type_id, external_id, secondary_external_id, display_name, attributes, content_hash
    FROM ${STAGE}
  ON CONFLICT (connected_system_id, object_type_id, external_id) WHERE external_id IS NOT NULL
  DO UPDATE SET secondary_external_id = EXCLUDED.secondary_external_id, display_name = EXCLUDED.display_name,
                attributes = EXCLUDED.attributes, content_hash = EXCLUDED.content_hash, ${WRITE_FLAGS}
    WHERE c.content_hash IS DISTINCT FROM EXCLUDED.content_hash OR c.status <> 'Normal'
  RETURNING id, connected_system_id, object_type_id, external_id, (xmax = 0) AS inserted`;

/**
 * Writes imported objects to the connector space, set-based, in batches (default: one connector
 * page of 1000). Per batch:
 *
 * 1. one query looking the batch's external ids up (uq_cso_external_id) for id, content hash and status;
 * 2. new objects: one COPY straight into connected_system_object;
 * 3. changed objects (content hash differs, or the object was not `Normal`): COPY into a session
 *    temporary table and one UPDATE … FROM it;
 * 4. unchanged objects: nothing is written.
 *
 * So a batch is 1-4 statements whatever its size, memory is bounded by the batch, and re-importing
 * unchanged data writes nothing. Runs on the caller's client, inside its transaction if any.
 *
 * Concurrency: the import of a connected system runs under its synchronisation lock, so nobody else
 * inserts the same external ids between step 1 and 2; if someone did, the COPY fails on
 * uq_cso_external_id (SQLSTATE 23505) and that batch writes nothing. Callers without the lock pass
 * `merge: true` (staging + INSERT … ON CONFLICT: every new row is written twice, so it is slower; ADR 0003).
 */
export async function upsertConnectorSpaceObjects(
  client: ClientBase,
  objects: Iterable<ConnectorSpaceObjectInput> | AsyncIterable<ConnectorSpaceObjectInput>,
  options: UpsertConnectorSpaceOptions = {},
): Promise<UpsertConnectorSpaceResult> {
  const batchSize = options.batchSize ?? 1000;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new TypeError('batchSize must be a positive integer.');
  if (options.merge && options.previousStateTable) throw new TypeError('previousStateTable is not available with merge.');
  const result: UpsertConnectorSpaceResult = { received: 0, inserted: 0, updated: 0, unchanged: 0, duplicates: [] };
  const stages = new Set<string>();
  const stage = async (name: string, ddl: string) => {
    if (!stages.has(name)) {
      await client.query(`CREATE TEMP TABLE IF NOT EXISTS ${name} (${ddl})`);
      stages.add(name);
    }
    await client.query(`TRUNCATE ${name}`);
  };
  const changed = (changes: ConnectorSpaceChange[] | null, o: ConnectorSpaceObjectInput, id: string, inserted: boolean) => {
    if (inserted) result.inserted++;
    else result.updated++;
    changes?.push({ id, connectedSystemId: o.connectedSystemId, objectTypeId: o.objectTypeId, externalId: o.externalId, inserted });
  };
  const report = async (changes: ConnectorSpaceChange[] | null) => {
    if (changes && options.onChanges) await options.onChanges(changes);
  };

  const flushMerge = async (batch: ConnectorSpaceObjectInput[]) => {
    const changes = options.onChanges ? [] as ConnectorSpaceChange[] : null;
    await stage(STAGE, STAGE_DDL);
    await copyRows(client, STAGE, CONNECTOR_SPACE_COPY_COLUMNS, batch.map((o) => connectorSpaceCopyRow(o)));
    const { rows } = await client.query(MERGE);
    const applied = new Map<string, { id: string; inserted: boolean }>(rows.map((r) => [`${r.connected_system_id}:${r.object_type_id}:${r.external_id}`, r]));
    for (const o of batch) {
      const hit = applied.get(`${o.connectedSystemId}:${o.objectTypeId}:${o.externalId}`);
      if (hit) changed(changes, o, hit.id, hit.inserted);
      else result.unchanged++;
    }
    await report(changes);
  };

  const flush = async (batch: ConnectorSpaceObjectInput[]) => {
    if (!batch.length) return;
    if (options.merge) return flushMerge(batch);
    const changes = options.onChanges ? [] as ConnectorSpaceChange[] : null;
    // 1. What exists already, per (system, object type) present in the batch (normally one).
    const existing = new Map<string, { id: string; hash: Buffer | null; status: string; content: string | null }>();
    const groups = new Map<string, { system: number; type: number; ids: string[] }>();
    for (const o of batch) {
      const g = `${o.connectedSystemId}:${o.objectTypeId}`;
      let group = groups.get(g);
      if (!group) groups.set(g, group = { system: o.connectedSystemId, type: o.objectTypeId, ids: [] });
      group.ids.push(o.externalId);
    }
    for (const [g, { system, type, ids }] of groups) {
      // Objects an export wrote have no content hash (their values are what was exported): their stored
      // content comes along so an import that reads the same values only records the hash.
      const { rows } = await client.query(connectorSpaceLookupSql(
        `id, external_id, content_hash, status,
         CASE WHEN content_hash IS NULL THEN jsonb_build_array(secondary_external_id, display_name, attributes) END AS stored`), [system, type, ids]);
      for (const r of rows) {
        existing.set(`${g}:${r.external_id}`, { id: r.id, hash: r.content_hash, status: r.status,
          content: r.stored ? connectorSpaceContentHash(r.stored[0], r.stored[1], canonicalAttributesJson(r.stored[2])).toString('hex') : null });
      }
    }
    // 2-4. New, changed or unchanged. Rows of new objects are built while COPY streams them, so
    // hashing and encoding overlap with the database's work.
    const inserts: ConnectorSpaceObjectInput[] = [];
    const updates: CopyValue[][] = [];
    const rehash: Array<[string, Buffer]> = [];
    for (const o of batch) {
      const found = existing.get(`${o.connectedSystemId}:${o.objectTypeId}:${o.externalId}`);
      if (!found) {
        inserts.push(o);
        continue;
      }
      const content = connectorSpaceContent(o);
      if (found.status === 'Normal' && !found.hash && found.content === content.hash.toString('hex')) {
        rehash.push([found.id, content.hash]);
        result.unchanged++;
      } else if (found.status !== 'Normal' || !found.hash || !found.hash.equals(content.hash)) {
        updates.push([found.id, o.secondaryExternalId ?? null, o.displayName ?? null, new PreEncoded(escapeCopyText(content.json)), content.hash]);
        changed(changes, o, found.id, false);
      } else {
        result.unchanged++;
      }
    }
    if (inserts.length) {
      await copyRows(client, 'connected_system_object', CONNECTOR_SPACE_COPY_COLUMNS, (function* () {
        for (const o of inserts) {
          const row = connectorSpaceCopyRow(o);
          changed(changes, o, row[ID] as string, true);
          yield row;
        }
      })());
    }
    if (rehash.length) {
      await client.query(`UPDATE connected_system_object c SET content_hash = h.hash FROM unnest($1::uuid[], $2::bytea[]) AS h(id, hash) WHERE c.id = h.id`,
        [rehash.map((r) => r[0]), rehash.map((r) => r[1])]);
    }
    if (updates.length) {
      await stage(CHANGES, 'id uuid, secondary_external_id text, display_name text, attributes jsonb, content_hash bytea');
      await copyRows(client, CHANGES, ['id', 'secondary_external_id', 'display_name', 'attributes', 'content_hash'], updates);
      await client.query(options.previousStateTable ? applyChangesKeepingPrevious(options.previousStateTable) : APPLY_CHANGES);
    }
    await report(changes);
  };

  // One batch is written while the next one is read from the source: the loop yields to the event
  // loop every few objects, so the previous batch's statements (database work) and the reading of
  // the next batch (connector work) overlap. At most two batches are held.
  let batch: Array<ConnectorSpaceObjectInput | null> = [];
  // Key → position in the batch, or -1 once the key was found twice (DOMAIN.md §2.1: both are rejected).
  let seen = new Map<string, number>();
  const inFlight: { write: Promise<void> | null } = { write: null };
  const startWriting = async () => {
    const next = batch.filter((o): o is ConnectorSpaceObjectInput => o !== null);
    batch = [];
    seen = new Map();
    if (inFlight.write) await inFlight.write;
    inFlight.write = flush(next);
    inFlight.write.catch(() => undefined); // awaited later; until then it must not count as unhandled
  };
  const duplicate = (o: ConnectorSpaceObjectInput) =>
    result.duplicates.push({ connectedSystemId: o.connectedSystemId, objectTypeId: o.objectTypeId, externalId: o.externalId });
  try {
    for await (const o of objects) {
      result.received++;
      if (typeof o.externalId !== 'string' || !o.externalId) throw new TypeError(`Object ${result.received} has no external id.`);
      const key = `${o.connectedSystemId}:${o.objectTypeId}:${o.externalId}`;
      const first = seen.get(key);
      if (first !== undefined) {
        if (first >= 0) {
          duplicate(batch[first]!);
          batch[first] = null;
          seen.set(key, -1);
        }
        duplicate(o);
        continue;
      }
      seen.set(key, batch.length);
      batch.push(o);
      if (batch.length >= batchSize) {
        await startWriting();
      } else if (inFlight.write && batch.length % YIELD_EVERY === 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    await startWriting();
    await inFlight.write;
  } catch (err) {
    // Leave the connection idle before the caller sees the error (a COPY may still be streaming).
    await inFlight.write?.catch(() => undefined);
    throw err;
  }
  return result;
}

/** Objects read between two yields to the event loop while a batch is being written. */
const YIELD_EVERY = 50;

const STAGE_DDL = 'id uuid, connected_system_id int, object_type_id int, external_id text, secondary_external_id text, display_name text, attributes jsonb, content_hash bytea';

/**
 * Objects of one system and object type by external id ($1 system, $2 type, $3 text[] of distinct ids).
 *
 * Written as one point lookup per id (a LATERAL subquery with LIMIT 1, which the planner cannot
 * flatten into a join) rather than `external_id = ANY($3)`: while a system is first loaded its
 * statistics are stale, the planner then estimates a handful of rows for (system, type), scans the
 * index on those two columns and filters on ANY — every row of the system, for every page, which
 * makes an initial import quadratic (measured: 256 ms instead of 16 ms per page at 100,000 objects).
 * The per-id form always probes uq_cso_external_id on all three columns.
 */
export function connectorSpaceLookupSql(columns: string): string {
  return `SELECT c.* FROM unnest($3::text[]) AS k(external_id)
    CROSS JOIN LATERAL (
      SELECT ${columns} FROM connected_system_object
       WHERE connected_system_id = $1 AND object_type_id = $2 AND external_id = k.external_id
       LIMIT 1) c`;
}

export interface FindConnectorSpaceOptions {
  /** Include the attribute document (default true); without it the lookup reads only the narrow columns. */
  attributes?: boolean;
}

/**
 * The connector-space objects of one system and object type with the given external ids, in one
 * query (a point lookup per id on uq_cso_external_id, see connectorSpaceLookupSql). Ids not found are simply absent;
 * the order of the result is not specified.
 */
export async function findConnectorSpaceObjectsByExternalIds(
  client: ClientBase,
  connectedSystemId: number,
  objectTypeId: number,
  externalIds: readonly string[],
  options: FindConnectorSpaceOptions = {},
): Promise<ConnectorSpaceObjectRecord[]> {
  if (!externalIds.length) return [];
  const withAttributes = options.attributes !== false;
  const columns = `id, connected_system_id, object_type_id, external_id, secondary_external_id, display_name, status,
    ${withAttributes ? 'attributes,' : ''} content_hash, metaverse_object_id, join_type`;
  const { rows } = await client.query(connectorSpaceLookupSql(columns), [connectedSystemId, objectTypeId, [...new Set(externalIds)]]);
  return rows.map((r) => ({
    id: r.id,
    connectedSystemId: r.connected_system_id,
    objectTypeId: r.object_type_id,
    externalId: r.external_id,
    secondaryExternalId: r.secondary_external_id,
    displayName: r.display_name,
    status: r.status,
    ...(withAttributes ? { attributes: r.attributes } : {}),
    contentHash: r.content_hash,
    metaverseObjectId: r.metaverse_object_id,
    joinType: r.join_type,
  }));
}
