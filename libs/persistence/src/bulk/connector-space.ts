import { hash } from 'node:crypto';
import type { ClientBase } from 'pg';
import { CsoChangeType } from '@meridian/domain';
import { copyRows, CopyValue, escapeCopyJson, PreEncoded } from './copy-rows';
import { uuidV7 } from './uuid-v7';
import type { ChangeOrigin } from '../engine/change-record.store';
import { changeOriginParams, insertCsoChangesSql, sqlLiteral } from '../engine/change-record.sql';

/** One imported object, as the import runner hands it to the connector space. */
export interface ConnectorSpaceObjectInput {
  connectedSystemId: number;
  objectTypeId: number;
  externalId: string;
  secondaryExternalId?: string | null;
  displayName?: string | null;
  /** Values by connected-system attribute id: `{ "12": ["Ada"], "15": ["a@x", "b@x"] }`. */
  attributes: Record<string, unknown[]>;
  /**
   * The object's canonical attribute JSON and content hash (connectorSpaceContent), when the caller has
   * already worked them out (the import runner does while the previous page is being written); worked
   * out here otherwise. Must describe the fields above.
   */
  content?: ConnectorSpaceContent;
  /** The id of a new object, when the caller needs it before the write (otherwise a new UUID v7 at write time). */
  id?: string;
  /**
   * A new object's resolved references (`{ "<attributeId>": [csoId, …] }`), when the caller resolved
   * them all before the write; undefined leaves them to be resolved after the import (NULL).
   */
  resolvedReferences?: Record<string, string[]>;
}

/** The canonical attribute JSON of an object and its content hash. */
export interface ConnectorSpaceContent {
  json: string;
  /** The content hash (connectorSpaceContentHash) in hex. */
  hash: string;
  /**
   * The hash of the source record the values were read from (hex; the import's hash of a connector
   * fingerprint), when there is one: stored as the object's content hash instead of `hash`, so that the
   * next import can recognise the unchanged record before converting its values.
   */
  fingerprint?: string;
}

/** The content hash an object is stored with: its source record's fingerprint hash, else the hash of its values. */
const storedHash = (content: ConnectorSpaceContent): string => content.fingerprint ?? content.hash;

/** What the connector space holds for an external id, as the writer compares it with an imported object. */
export interface ExistingConnectorSpaceObject {
  id: string;
  /** Stored content hash in hex, null when there is none. */
  hash: string | null;
  status: string;
  /**
   * Hex content hash of the stored values, when the lookup read them (objects without a content hash,
   * written by an export; objects whose hash is not the fingerprint hash read for them); otherwise null.
   */
  content: string | null;
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
export const CONNECTOR_SPACE_PREVIOUS_STATE_DDL =
  'id uuid PRIMARY KEY, secondary_external_id text, display_name text, attributes jsonb, ' +
  'content_hash bytea, status varchar(30), sync_pending boolean, resolved_references jsonb, last_updated timestamptz';

/** Columns of a previous-state table, in a form usable in SQL column lists. */
export const CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS =
  'id, secondary_external_id, display_name, attributes, content_hash, status, sync_pending, resolved_references, last_updated';

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

/** `0` or a whole number of at most nine digits without a leading zero (an array index, which JSON.stringify orders first, ascending). */
function isIntegerKey(key: string): boolean {
  const n = key.length;
  if (n === 0 || n > 9) return false;
  const first = key.charCodeAt(0);
  if (first === 48) return n === 1;
  if (first < 49 || first > 57) return false;
  for (let i = 1; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * The attribute document as JSON with a stable key order. Keys that are attribute ids (integers)
 * are already serialised in ascending order by JSON.stringify; any other key set is sorted.
 */
export function canonicalAttributesJson(attributes: Record<string, unknown[]>): string {
  const keys = Object.keys(attributes);
  if (keys.every(isIntegerKey)) return JSON.stringify(attributes);
  const sorted: Record<string, unknown[]> = {};
  for (const k of keys.sort()) sorted[k] = attributes[k];
  return JSON.stringify(sorted);
}

/**
 * SHA-256 of what an import writes (secondary external id, display name and the canonical attribute
 * JSON). Equal hash ⇒ the object did not change, so the row is not rewritten. Values of a
 * multi-valued attribute count in the order given: connectors hand them over in a stable order.
 */
export function connectorSpaceContentHash(
  secondaryExternalId: string | null | undefined,
  displayName: string | null | undefined,
  attributesJson: string,
): Buffer {
  return Buffer.from(contentHashHex(secondaryExternalId, displayName, attributesJson), 'hex');
}

/** connectorSpaceContentHash in hex (cheaper to make and to compare than a Buffer). */
function contentHashHex(
  secondaryExternalId: string | null | undefined,
  displayName: string | null | undefined,
  attributesJson: string,
): string {
  return hash('sha256', `${JSON.stringify([secondaryExternalId ?? null, displayName ?? null])}\n${attributesJson}`, 'hex');
}

/** A hex content hash as a bytea field of COPY's text format. */
const byteaField = (hex: string) => new PreEncoded(`\\\\x${hex}`);

/** Columns of connected_system_object that an import writes, in the order of connectorSpaceCopyRow. */
export const CONNECTOR_SPACE_COPY_COLUMNS: readonly string[] = [
  'id',
  'connected_system_id',
  'object_type_id',
  'external_id',
  'secondary_external_id',
  'display_name',
  'attributes',
  'content_hash',
];

/**
 * The COPY row of one imported object: a new time-ordered id (used only if the object is new), the
 * canonical attribute JSON and its content hash.
 */
export function connectorSpaceCopyRow(o: ConnectorSpaceObjectInput): CopyValue[] {
  const content = connectorSpaceContent(o);
  // The attribute JSON is already text: PreEncoded keeps copyRows from serialising it a second time.
  return [
    o.id ?? uuidV7(),
    o.connectedSystemId,
    o.objectTypeId,
    o.externalId,
    o.secondaryExternalId ?? null,
    o.displayName ?? null,
    new PreEncoded(escapeCopyJson(content.json)),
    byteaField(storedHash(content)),
  ];
}

/**
 * The canonical attribute JSON of an object and its content hash (as given with the object, or worked out
 * now). The hash of the values is worked out when first asked for: an object stored under its fingerprint
 * hash needs it only when an object with another hash is found under its key.
 */
export function connectorSpaceContent(o: ConnectorSpaceObjectInput): ConnectorSpaceContent {
  if (o.content) return o.content;
  return new LazyContent(canonicalAttributesJson(o.attributes), o.secondaryExternalId ?? null, o.displayName ?? null);
}

class LazyContent implements ConnectorSpaceContent {
  fingerprint?: string;
  private valuesHash: string | null = null;

  constructor(
    readonly json: string,
    private readonly secondaryExternalId: string | null,
    private readonly displayName: string | null,
  ) {}

  get hash(): string {
    return (this.valuesHash ??= contentHashHex(this.secondaryExternalId, this.displayName, this.json));
  }
}

/**
 * Columns a lookup of existing objects selects for existingConnectorSpaceObject (table alias optional).
 * Objects an export wrote have no content hash (their values are what was exported): their stored
 * content comes along, so an import that reads the same values only records the hash. So does the
 * content of an object whose stored hash is not the fingerprint hash the import read for it
 * (`fingerprint`: an SQL expression giving that hash in hex, NULL when there is none), so that a record
 * read under a new fingerprint (new settings, a change to fields not imported, a hash stored before
 * fingerprints) is recognised by its values and not rewritten.
 */
export const connectorSpaceExistingColumns = (alias = '', fingerprint?: string): string => {
  const a = alias ? `${alias}.` : '';
  const other = fingerprint ? ` OR ${a}content_hash <> decode(${fingerprint}, 'hex')` : '';
  return `${a}id, encode(${a}content_hash, 'hex') AS content_hash, ${a}status,
    CASE WHEN ${a}content_hash IS NULL${other} THEN jsonb_build_array(${a}secondary_external_id, ${a}display_name, ${a}attributes) END AS stored`;
};

/** An existing object from a row selected with connectorSpaceExistingColumns. */
export function existingConnectorSpaceObject(row: {
  id: string;
  content_hash: string | null;
  status: string;
  stored: [string | null, string | null, Record<string, unknown[]>] | null;
}): ExistingConnectorSpaceObject {
  return {
    id: row.id,
    hash: row.content_hash,
    status: row.status,
    content: row.stored ? contentHashHex(row.stored[0], row.stored[1], canonicalAttributesJson(row.stored[2])) : null,
  };
}

// Position of the id in a connectorSpaceCopyRow.
const ID = 0;

const STAGE = 'meridian_cso_stage';

/** What a write of changed values sets besides the values (shared by every form of the update). */
const WRITE_FLAGS = "status = 'Normal', sync_pending = true, resolved_references = NULL, last_updated = now()";

/**
 * The changed objects of a batch, as the one parameter ($1) of APPLY_CHANGES: a JSON array of
 * { id, secondary_external_id, display_name, attributes, content_hash (hex) }. One statement, whatever
 * the number of objects, with no staging table to create, empty and fill.
 */
const CHANGED = `jsonb_to_recordset($1::jsonb) AS s(id uuid, secondary_external_id text, display_name text, attributes jsonb, content_hash text)`;

/**
 * Rewrites the changed objects of a batch (CHANGED) by id; an import also confirms the object
 * exists. Every write flags the object for the next delta synchronisation (`sync_pending`) and drops its
 * resolved references, which were resolved from the old values: the import resolves them again (an
 * object left with NULL by an interrupted import is resolved by the next one).
 */
const APPLY_CHANGES = `
  UPDATE connected_system_object c
     SET secondary_external_id = s.secondary_external_id, display_name = s.display_name, attributes = s.attributes,
         content_hash = decode(s.content_hash, 'hex'), ${WRITE_FLAGS}
    FROM ${CHANGED}
   WHERE c.id = s.id`;

/**
 * APPLY_CHANGES that also keeps the state each object had before (`previousTable`, option
 * previousStateTable) and/or records an `Updated` change per object (`recorded`: the five origin
 * parameters follow the batch, $2…$6), in the same statement: the second reference to the table (p)
 * reads the rows as they were when the statement started, so the previous state and the attribute delta
 * (meridian_attribute_delta) come from the update itself.
 */
const applyChangesKeeping = (previousTable: string | undefined, recorded: boolean): string => {
  const steps = [
    `applied AS (
    UPDATE connected_system_object c
       SET secondary_external_id = s.secondary_external_id, display_name = s.display_name, attributes = s.attributes,
           content_hash = decode(s.content_hash, 'hex'), ${WRITE_FLAGS}
      FROM ${CHANGED} JOIN connected_system_object p ON p.id = s.id
     WHERE c.id = s.id
    RETURNING ${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(
        ', ',
      )}, c.connected_system_id, c.object_type_id, c.external_id, c.display_name AS new_display_name, c.attributes AS new_attributes)`,
  ];
  const writes: string[] = [];
  if (previousTable) {
    writes.push(`INSERT INTO ${previousTable} (${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS}) SELECT ${CONNECTOR_SPACE_PREVIOUS_STATE_COLUMNS} FROM applied
  ON CONFLICT (id) DO NOTHING`);
  }
  if (recorded) {
    writes.push(
      insertCsoChangesSql(
        'applied',
        {
          connectedSystemId: 'connected_system_id',
          objectId: 'id',
          objectTypeId: 'object_type_id',
          externalId: 'external_id',
          displayName: 'new_display_name',
          changeType: sqlLiteral(CsoChangeType.Updated),
          attributeChanges: 'meridian_attribute_delta(attributes, new_attributes)',
        },
        2,
      ),
    );
  }
  // Every write but the last is a CTE of its own (data-modifying CTEs run whether or not they are read).
  const main = writes.pop()!;
  return `WITH ${[...steps, ...writes.map((w, i) => `w${i} AS (${w})`)].join(',\n  ')}\n  ${main}`;
};

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
 * 3. changed objects (content hash differs, or the object was not `Normal`): one UPDATE … FROM the
 *    batch's changed rows, sent as one JSON parameter;
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
    const changes = options.onChanges ? ([] as ConnectorSpaceChange[]) : null;
    await stage(STAGE, STAGE_DDL);
    await copyRows(
      client,
      STAGE,
      CONNECTOR_SPACE_COPY_COLUMNS,
      batch.map((o) => connectorSpaceCopyRow(o)),
    );
    const { rows } = await client.query(MERGE);
    const applied = new Map<string, { id: string; inserted: boolean }>(
      rows.map((r) => [`${r.connected_system_id}:${r.object_type_id}:${r.external_id}`, r]),
    );
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
    // 1. What exists already, per (system, object type) present in the batch (normally one).
    const existing = new Map<string, ExistingConnectorSpaceObject>();
    const groups = new Map<string, { system: number; type: number; ids: string[] }>();
    for (const o of batch) {
      const g = `${o.connectedSystemId}:${o.objectTypeId}`;
      let group = groups.get(g);
      if (!group) groups.set(g, (group = { system: o.connectedSystemId, type: o.objectTypeId, ids: [] }));
      group.ids.push(o.externalId);
    }
    for (const [g, { system, type, ids }] of groups) {
      const { rows } = await client.query(connectorSpaceLookupSql(`external_id, ${connectorSpaceExistingColumns()}`), [system, type, ids]);
      for (const r of rows) existing.set(`${g}:${r.external_id}`, existingConnectorSpaceObject(r));
    }
    // 2-4. New, changed or unchanged.
    const written = await writeConnectorSpaceBatch(
      client,
      batch,
      batch.map((o) => existing.get(`${o.connectedSystemId}:${o.objectTypeId}:${o.externalId}`)),
      {
        previousStateTable: options.previousStateTable,
      },
    );
    result.inserted += written.inserted;
    result.updated += written.updated;
    result.unchanged += written.unchanged;
    if (options.onChanges) await options.onChanges(written.changes);
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

export interface ConnectorSpaceBatchWrite {
  inserted: number;
  updated: number;
  unchanged: number;
  /** The objects inserted or updated, in the order given. */
  changes: ConnectorSpaceChange[];
}

/** What writing one batch takes (planConnectorSpaceBatch): the statements follow from it. */
export interface ConnectorSpaceBatchPlan {
  inserts: ConnectorSpaceObjectInput[];
  updates: Array<{ object: ConnectorSpaceObjectInput; id: string; content: ConnectorSpaceContent }>;
  /** Objects an export wrote whose stored values are what the import read: only their content hash is recorded. */
  rehash: Array<{ id: string; hash: string }>;
  unchanged: number;
  /** Statements writeConnectorSpacePlan sends for it (0: nothing to write). */
  statements: number;
}

/**
 * Compares a batch with what the connector space holds for it (`existing[i]` for `objects[i]`,
 * undefined when nothing): new, changed (content hash differs, or the object was not `Normal`) or
 * unchanged. Pure.
 */
export function planConnectorSpaceBatch(
  objects: readonly ConnectorSpaceObjectInput[],
  existing: ReadonlyArray<ExistingConnectorSpaceObject | undefined>,
): ConnectorSpaceBatchPlan {
  const plan: ConnectorSpaceBatchPlan = { inserts: [], updates: [], rehash: [], unchanged: 0, statements: 0 };
  for (let i = 0; i < objects.length; i++) {
    const o = objects[i];
    const found = existing[i];
    if (!found) {
      plan.inserts.push(o);
      continue;
    }
    const content = connectorSpaceContent(o);
    const stored = storedHash(content);
    if (found.status !== 'Normal') {
      plan.updates.push({ object: o, id: found.id, content });
    } else if (found.hash === stored) {
      plan.unchanged++;
    } else if (found.hash === content.hash || found.content === content.hash) {
      // The same values under another hash: written by an export (no hash), stored with the hash of its
      // values (no fingerprint then), or read from a record whose fingerprint hash is new (new settings or
      // selection, a change to fields that are not imported). Only the hash is recorded.
      plan.rehash.push({ id: found.id, hash: stored });
      plan.unchanged++;
    } else {
      plan.updates.push({ object: o, id: found.id, content });
    }
  }
  plan.statements = (plan.inserts.length ? 1 : 0) + (plan.rehash.length ? 1 : 0) + (plan.updates.length ? 1 : 0);
  return plan;
}

/** Options of writeConnectorSpacePlan. */
export interface ConnectorSpaceWriteOptions {
  /** See UpsertConnectorSpaceOptions.previousStateTable. */
  previousStateTable?: string;
  /**
   * Records an `Updated` change (connected_system_object_change, spec 2.13) for every changed object, in
   * the statement that updates it, with this origin. New objects get no record here: their values are in
   * memory, the caller records them (ChangeRecordStore) in the same transaction. The content-hash refresh
   * of re-read exported objects (`rehash`) is not a change and records nothing.
   */
  changeOrigin?: ChangeOrigin;
}

/**
 * Writes a planned batch: new objects in one COPY, the content hash of re-read exported objects in one
 * UPDATE, changed objects in one UPDATE (their previous state kept in `previousStateTable` when given).
 * At most three statements whatever the batch holds; runs on the caller's client (inside its
 * transaction, if any: with more than one statement, the caller decides whether they must be atomic).
 */
export async function writeConnectorSpacePlan(
  client: ClientBase,
  plan: ConnectorSpaceBatchPlan,
  options: ConnectorSpaceWriteOptions = {},
): Promise<ConnectorSpaceBatchWrite> {
  const out: ConnectorSpaceBatchWrite = { inserted: 0, updated: 0, unchanged: plan.unchanged, changes: [] };
  const change = (o: ConnectorSpaceObjectInput, id: string, inserted: boolean) =>
    out.changes.push({ id, connectedSystemId: o.connectedSystemId, objectTypeId: o.objectTypeId, externalId: o.externalId, inserted });
  // Rows of new objects are built while COPY streams them, so encoding overlaps with the database's work.
  if (plan.inserts.length) {
    // References the caller resolved before the write go in with the objects (one more column).
    const withReferences = plan.inserts.some((o) => o.resolvedReferences);
    await copyRows(
      client,
      'connected_system_object',
      withReferences ? [...CONNECTOR_SPACE_COPY_COLUMNS, 'resolved_references'] : CONNECTOR_SPACE_COPY_COLUMNS,
      (function* () {
        for (const o of plan.inserts) {
          const row = connectorSpaceCopyRow(o);
          if (withReferences) row.push(o.resolvedReferences ?? null);
          change(o, row[ID] as string, true);
          out.inserted++;
          yield row;
        }
      })(),
    );
  }
  if (plan.rehash.length) {
    await client.query(
      `UPDATE connected_system_object c SET content_hash = decode(h.hash, 'hex') FROM unnest($1::uuid[], $2::text[]) AS h(id, hash) WHERE c.id = h.id`,
      [plan.rehash.map((r) => r.id), plan.rehash.map((r) => r.hash)],
    );
  }
  if (plan.updates.length) {
    let json = '';
    for (const { object: o, id, content } of plan.updates) {
      json +=
        `${json ? ',' : '['}{"id":"${id}","secondary_external_id":${JSON.stringify(o.secondaryExternalId ?? null)},` +
        `"display_name":${JSON.stringify(o.displayName ?? null)},"attributes":${content.json},"content_hash":"${storedHash(content)}"}`;
      change(o, id, false);
      out.updated++;
    }
    const origin = options.changeOrigin;
    if (!options.previousStateTable && !origin) await client.query(APPLY_CHANGES, [`${json}]`]);
    else
      await client.query(applyChangesKeeping(options.previousStateTable, !!origin), [
        `${json}]`,
        ...(origin ? changeOriginParams(origin) : []),
      ]);
  }
  return out;
}

/** planConnectorSpaceBatch, then writeConnectorSpacePlan. */
export async function writeConnectorSpaceBatch(
  client: ClientBase,
  objects: readonly ConnectorSpaceObjectInput[],
  existing: ReadonlyArray<ExistingConnectorSpaceObject | undefined>,
  options: ConnectorSpaceWriteOptions = {},
): Promise<ConnectorSpaceBatchWrite> {
  return writeConnectorSpacePlan(client, planConnectorSpaceBatch(objects, existing), options);
}

/** Objects read between two yields to the event loop while a batch is being written. */
const YIELD_EVERY = 50;

const STAGE_DDL =
  'id uuid, connected_system_id int, object_type_id int, external_id text, secondary_external_id text, display_name text, attributes jsonb, content_hash bytea';

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
