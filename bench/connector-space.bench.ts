// Connector-space storage benchmark (issue 4, item 11; ADR 0003). Run with
//   npm run bench -- connector-space
// Environment: MERIDIAN_BENCH_CSOS (objects, default 1,000,000), MERIDIAN_BENCH_BATCH (objects per
// upsert round, default 1000 = one connector page), MERIDIAN_BENCH_LOOKUP_PAGES (random
// pages of 1000 external ids to look up, default: every object once), MERIDIAN_BENCH_ALTERNATIVES=0 to
// skip the rejected variants (e, f and the EAV/wide parts of g), MERIDIAN_TEST_POSTGRES_URL.
//
// It creates its own database (dropped at the end), a connected system with one object type and 15
// attributes, and streams deterministic generated objects (never all in memory) through:
//   (a) baseline: one raw COPY of the same rows into an unindexed, constraint-free table with the columns of connected_system_object;
//   (b) the real import path: upsertConnectorSpaceObjects into connected_system_object (all its indexes and its foreign key), fed in connector pages of 1000;
//   (c) the same import again with unchanged data (content hash → no writes);
//   (d) findConnectorSpaceObjectsByExternalIds in random pages of 1000 ids (with and without the attribute document);
//   (b5) (b) again, writing five connector pages per round;
//   (g) the database side alone: (a) and (b)'s statements on rows encoded before timing (MERIDIAN_BENCH_DB_ONLY objects, default 100,000);
//   (e) the rejected merge variant (every row staged, INSERT … ON CONFLICT);
//   (f) the rejected layouts: EAV (a row per value) and a wide table per object type, with the indexes each needs.
// It prints objects/s, the ratios to (a), lookup pages/s with p50/p95 per page, and peak RSS. Timings
// depend on the machine; nothing is asserted except the counts.
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import {
  CONNECTOR_SPACE_COPY_COLUMNS,
  ConnectorSpaceObjectInput,
  connectorSpaceCopyRow,
  copyEncoded,
  CopyValue,
  copyRows,
  encodeCopyLine,
  escapeCopyText,
  findConnectorSpaceObjectsByExternalIds,
  PreEncoded,
  upsertConnectorSpaceObjects,
  uuidV7,
} from '@meridian/persistence';
import { createTestDatabase } from '@meridian/testing';

const N = Number(process.env.MERIDIAN_BENCH_CSOS ?? 1_000_000);
const PAGE = 1000;
/** Objects per upsert round (lookup + COPY): the engine may gather a few connector pages before writing. */
const BATCH = Number(process.env.MERIDIAN_BENCH_BATCH ?? PAGE);
/** Objects of the database-only comparison (g), encoded in memory beforehand. */
const DB_ONLY = Number(process.env.MERIDIAN_BENCH_DB_ONLY ?? 100_000);
/** Slices that the baseline and the candidate load in turn. */
const ROUNDS = Number(process.env.MERIDIAN_BENCH_ROUNDS ?? 10);
const LOOKUP_PAGES = Math.min(Number(process.env.MERIDIAN_BENCH_LOOKUP_PAGES ?? Math.ceil(N / PAGE)), Math.ceil(N / PAGE));

// ---------------------------------------------------------------------------------------------- data

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'Niklaus',
  'Radia',
  'Tim',
  'Sophie',
  'John',
  'Hedy',
  'Claude',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Hamilton',
  'Thompson',
  'Allen',
  'Wirth',
  'Perlman',
  'Berners-Lee',
  'Wilson',
  'McCarthy',
  'Lamarr',
  'Shannon',
];
const DEPARTMENTS = [
  'Engineering',
  'Finance',
  'Human Resources',
  'Sales',
  'Marketing',
  'Legal',
  'Operations',
  'Research & Development',
  'Support',
];
const TITLES = ['Engineer', 'Senior Engineer', 'Analyst', 'Manager', 'Director', 'Consultant', 'Administrator', 'Specialist'];
const ATTRIBUTES: Array<[name: string, type: string, plurality: string]> = [
  ['employeeId', 'String', 'Single'],
  ['givenName', 'String', 'Single'],
  ['sn', 'String', 'Single'],
  ['displayName', 'String', 'Single'],
  ['mail', 'String', 'Single'],
  ['userPrincipalName', 'String', 'Single'],
  ['department', 'String', 'Single'],
  ['title', 'String', 'Single'],
  ['company', 'String', 'Single'],
  ['manager', 'Reference', 'Single'],
  ['employeeNumber', 'Integer', 'Single'],
  ['costCentre', 'Integer', 'Single'],
  ['hireDate', 'DateTime', 'Single'],
  ['accountEnabled', 'Boolean', 'Single'],
  ['proxyAddresses', 'String', 'Multi'],
];

/** A small deterministic PRNG (mulberry32), so every run generates the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const externalId = (i: number) => `E${String(i).padStart(8, '0')}`;

/** Object i, always the same (15 attributes: strings, integers, a date, a boolean, a multi-valued one). */
function makeObject(i: number, systemId: number, typeId: number, attrIds: number[]): ConnectorSpaceObjectInput {
  const r = prng(i + 1);
  const given = FIRST[Math.floor(r() * FIRST.length)];
  const sn = LAST[Math.floor(r() * LAST.length)];
  const login = `${given}.${sn}${i}`.toLowerCase();
  const display = `${given} ${sn}`;
  const hire = new Date(Date.UTC(2000 + Math.floor(r() * 25), Math.floor(r() * 12), 1 + Math.floor(r() * 28)));
  const proxies = [
    `SMTP:${login}@example.org`,
    ...(r() < 0.6 ? [`smtp:${login}@corp.example.org`] : []),
    ...(r() < 0.2 ? [`smtp:${login}@legacy.example.com`] : []),
  ];
  const values: unknown[][] = [
    [externalId(i)],
    [given],
    [sn],
    [display],
    [`${login}@example.org`],
    [`${login}@corp.example.org`],
    [DEPARTMENTS[Math.floor(r() * DEPARTMENTS.length)]],
    [TITLES[Math.floor(r() * TITLES.length)]],
    ['Example Corporation'],
    [i > 0 ? externalId(Math.floor(r() * i)) : null].filter((v) => v !== null),
    [100000 + i],
    [1000 + Math.floor(r() * 9000)],
    [hire.toISOString()],
    [r() < 0.93],
    proxies,
  ];
  const attributes: Record<string, unknown[]> = {};
  values.forEach((v, k) => {
    if (v.length) attributes[attrIds[k]] = v;
  });
  return {
    connectedSystemId: systemId,
    objectTypeId: typeId,
    externalId: externalId(i),
    secondaryExternalId: `${login}@corp.example.org`,
    displayName: display,
    attributes,
  };
}

function* objects(from: number, to: number, systemId: number, typeId: number, attrIds: number[]): Generator<ConnectorSpaceObjectInput> {
  for (let i = from; i < to; i++) yield makeObject(i, systemId, typeId, attrIds);
}

/** The connector's view: pages of 1000 objects. */
function* pages<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let page: T[] = [];
  for (const item of items) {
    page.push(item);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length) yield page;
}

// ------------------------------------------------------------------------------------------ measuring

let peakRss = 0;
const sampleMemory = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const sampler = setInterval(sampleMemory, 50);
sampler.unref();

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const num = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function timed<T>(label: string, fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  process.stdout.write(`${label.padEnd(64)} `);
  const start = performance.now();
  const value = await fn();
  const ms = performance.now() - start;
  sampleMemory();
  console.log(`${secs(ms).padStart(9)}   ${num((N / ms) * 1000).padStart(9)} objects/s`);
  return { ms, value };
}

async function checkpoint(client: Client): Promise<void> {
  // Each phase starts from the same state: dirty buffers written, WAL recycled; the next phase's
  // timing does not pay for the previous phase's writes.
  await client.query('CHECKPOINT');
}

async function relationSize(client: Client, table: string): Promise<string> {
  const {
    rows: [r],
  } = await client.query(`SELECT pg_table_size($1) AS t, pg_indexes_size($1) AS i`, [table]);
  return `table ${mb(Number(r.t))}, indexes ${mb(Number(r.i))}`;
}

function shuffledPages(n: number, count: number): number[] {
  const all = Array.from({ length: Math.ceil(n / PAGE) }, (_, i) => i);
  const r = prng(42);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all.slice(0, count);
}

interface LookupFigures {
  ms: number;
  p50: number;
  p95: number;
  found: number;
}

/** LOOKUP_PAGES random pages of 1000 external ids (shuffled within the page too), each one lookup. */
async function lookups(label: string, lookupPage: (ids: string[]) => Promise<number>): Promise<LookupFigures> {
  process.stdout.write(`${label.padEnd(64)} `);
  const order = shuffledPages(N, LOOKUP_PAGES);
  const r = prng(7);
  const perPage: number[] = [];
  let found = 0;
  const start = performance.now();
  for (const p of order) {
    const ids: string[] = [];
    for (let i = p * PAGE; i < Math.min(N, (p + 1) * PAGE); i++) ids.push(externalId(i));
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    const t = performance.now();
    found += await lookupPage(ids);
    perPage.push(performance.now() - t);
  }
  const ms = performance.now() - start;
  perPage.sort((a, b) => a - b);
  sampleMemory();
  const expected = Math.min(N, LOOKUP_PAGES * PAGE);
  if (found !== expected) throw new Error(`${label}: found ${found} of ${expected}`);
  const figures = { ms, p50: percentile(perPage, 50), p95: percentile(perPage, 95), found };
  console.log(
    `${secs(ms).padStart(9)}   ${(LOOKUP_PAGES / (ms / 1000)).toFixed(1).padStart(9)} pages/s   p50 ${figures.p50.toFixed(1)} ms   p95 ${figures.p95.toFixed(1)} ms per page`,
  );
  return figures;
}

// ------------------------------------------------------------------------------------ other layouts

/** A PostgreSQL array literal of text, `{"a","b"}` (COPY escaping goes on top: escapeCopyText). */
function pgTextArray(values: unknown[]): string {
  return `{${values.map((v) => `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

const WIDE_COLUMNS = [
  'employee_id',
  'given_name',
  'sn',
  'display_name_attr',
  'mail',
  'user_principal_name',
  'department',
  'title',
  'company',
  'manager',
  'employee_number',
  'cost_centre',
  'hire_date',
  'account_enabled',
  'proxy_addresses',
];

/**
 * The alternatives of ADR 0003, each with the indexes and foreign keys it would need in production,
 * loaded the way the import would (per page: look the external ids up, COPY the new objects).
 */
async function createAlternatives(client: Client): Promise<void> {
  await client.query(`
    CREATE TABLE eav_object (
      id uuid PRIMARY KEY, connected_system_id int NOT NULL, object_type_id int NOT NULL,
      FOREIGN KEY (connected_system_id, object_type_id) REFERENCES connected_system_object_type (connected_system_id, id) ON DELETE CASCADE,
      external_id text, secondary_external_id text, display_name text, status varchar(30) NOT NULL DEFAULT 'Normal',
      content_hash bytea, metaverse_object_id uuid, created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz)`);
  await client.query(`CREATE UNIQUE INDEX ON eav_object (connected_system_id, object_type_id, external_id) WHERE external_id IS NOT NULL`);
  await client.query(
    `CREATE INDEX ON eav_object (connected_system_id, lower(secondary_external_id)) WHERE secondary_external_id IS NOT NULL`,
  );
  await client.query(`CREATE INDEX ON eav_object (connected_system_id, id)`);
  await client.query(`
    CREATE TABLE eav_value (
      object_id uuid NOT NULL REFERENCES eav_object (id) ON DELETE CASCADE,
      attribute_id int NOT NULL, ordinal smallint NOT NULL,
      value_text text, value_int bigint, value_date timestamptz, value_bool boolean,
      PRIMARY KEY (object_id, attribute_id, ordinal))`);
  // Matching and search on any attribute value is the point of EAV.
  await client.query(`CREATE INDEX ON eav_value (attribute_id, lower(value_text)) WHERE value_text IS NOT NULL`);

  const typed = ATTRIBUTES.map(([, type, plurality], k) => {
    const sql =
      plurality === 'Multi'
        ? 'text[]'
        : type === 'Integer'
          ? 'bigint'
          : type === 'DateTime'
            ? 'timestamptz'
            : type === 'Boolean'
              ? 'boolean'
              : 'text';
    return `${WIDE_COLUMNS[k]} ${sql}`;
  });
  await client.query(`
    CREATE TABLE wide_person (
      id uuid PRIMARY KEY, connected_system_id int NOT NULL, object_type_id int NOT NULL,
      FOREIGN KEY (connected_system_id, object_type_id) REFERENCES connected_system_object_type (connected_system_id, id) ON DELETE CASCADE,
      external_id text, secondary_external_id text, display_name text, status varchar(30) NOT NULL DEFAULT 'Normal',
      content_hash bytea, metaverse_object_id uuid, created timestamptz NOT NULL DEFAULT now(), last_updated timestamptz,
      ${typed.join(', ')})`);
  await client.query(`CREATE UNIQUE INDEX ON wide_person (connected_system_id, object_type_id, external_id) WHERE external_id IS NOT NULL`);
  await client.query(
    `CREATE INDEX ON wide_person (connected_system_id, lower(secondary_external_id)) WHERE secondary_external_id IS NOT NULL`,
  );
  await client.query(`CREATE INDEX ON wide_person (connected_system_id, id)`);
}

/** The lookup form of upsertConnectorSpaceObjects (a point lookup per external id; see lookupSql there). */
function pointLookup(table: string, columns: string): string {
  return `SELECT c.* FROM unnest($3::text[]) AS k(external_id) CROSS JOIN LATERAL (
    SELECT ${columns} FROM ${table} WHERE connected_system_id = $1 AND object_type_id = $2 AND external_id = k.external_id LIMIT 1) c`;
}

const EAV_OBJECT_COLUMNS = [
  'id',
  'connected_system_id',
  'object_type_id',
  'external_id',
  'secondary_external_id',
  'display_name',
  'content_hash',
];
const EAV_VALUE_COLUMNS = ['object_id', 'attribute_id', 'ordinal', 'value_text', 'value_int', 'value_date', 'value_bool'];
const WIDE_ALL_COLUMNS = [...EAV_OBJECT_COLUMNS, ...WIDE_COLUMNS];

/** EAV rows of one object: the object row and a row per value (typed columns). */
function eavRows(o: ConnectorSpaceObjectInput, types: Map<string, string>): { object: CopyValue[]; values: CopyValue[][] } {
  const row = connectorSpaceCopyRow(o);
  const values: CopyValue[][] = [];
  for (const [attributeId, list] of Object.entries(o.attributes)) {
    const type = types.get(attributeId);
    list.forEach((v, ordinal) =>
      values.push([
        row[0],
        Number(attributeId),
        ordinal,
        type === 'String' || type === 'Reference' ? (v as string) : null,
        type === 'Integer' ? (v as number) : null,
        type === 'DateTime' ? (v as string) : null,
        type === 'Boolean' ? (v as boolean) : null,
      ]),
    );
  }
  return { object: [row[0], row[1], row[2], row[3], row[4], row[5], row[7]], values };
}

/** The wide-table row of one object: a typed column per attribute. */
function wideRow(o: ConnectorSpaceObjectInput, attrIds: number[]): CopyValue[] {
  const row = connectorSpaceCopyRow(o);
  const values = attrIds.map((id, k) => {
    const v = o.attributes[id];
    if (!v?.length) return null;
    return ATTRIBUTES[k][2] === 'Multi' ? new PreEncoded(escapeCopyText(pgTextArray(v))) : (v[0] as CopyValue);
  });
  return [row[0], row[1], row[2], row[3], row[4], row[5], row[7], ...values];
}

const attributeTypes = (attrIds: number[]) => new Map(attrIds.map((id, k) => [String(id), ATTRIBUTES[k][1]]));

/** The import's steps for the EAV layout: per page, look the external ids up, COPY the new objects and their values. */
async function loadEav(client: Client, source: Iterable<ConnectorSpaceObjectInput>, attrIds: number[]): Promise<void> {
  const types = attributeTypes(attrIds);
  for (const page of pages(source, PAGE)) {
    const { rows: existing } = await client.query(pointLookup('eav_object', 'external_id'), [
      page[0].connectedSystemId,
      page[0].objectTypeId,
      page.map((o) => o.externalId),
    ]);
    const known = new Set(existing.map((r) => r.external_id));
    const objectRows: CopyValue[][] = [];
    const valueRows: CopyValue[][] = [];
    for (const o of page) {
      if (known.has(o.externalId)) continue;
      const { object, values } = eavRows(o, types);
      objectRows.push(object);
      valueRows.push(...values);
    }
    await copyRows(client, 'eav_object', EAV_OBJECT_COLUMNS, objectRows);
    await copyRows(client, 'eav_value', EAV_VALUE_COLUMNS, valueRows);
  }
}

/** The import's steps for a wide table: per page, look the external ids up, COPY the new objects. */
async function loadWide(client: Client, source: Iterable<ConnectorSpaceObjectInput>, attrIds: number[]): Promise<void> {
  for (const page of pages(source, PAGE)) {
    const { rows: existing } = await client.query(pointLookup('wide_person', 'external_id'), [
      page[0].connectedSystemId,
      page[0].objectTypeId,
      page.map((o) => o.externalId),
    ]);
    const known = new Set(existing.map((r) => r.external_id));
    await copyRows(
      client,
      'wide_person',
      WIDE_ALL_COLUMNS,
      page.filter((o) => !known.has(o.externalId)).map((o) => wideRow(o, attrIds)),
    );
  }
}

/** One page of one layout, encoded as COPY text before the clock starts. */
interface EncodedPage {
  ids: string[];
  copies: Array<{ table: string; columns: readonly string[]; text: string }>;
}

/**
 * The database's share of an import: the layout's per-page statements (lookup by external id, then
 * COPY) on rows encoded beforehand, against one raw COPY of the same objects into a plain table with
 * the columns of connected_system_object, in ABBA rounds. No client work is timed.
 */
async function databaseOnly(
  client: Client,
  systemId: number,
  typeId: number,
  lookupTable: string,
  encoded: EncodedPage[],
  plainText: string[],
): Promise<{ ms: number; copyMs: number }> {
  await client.query(`DROP TABLE IF EXISTS g_plain`);
  await client.query(`CREATE TABLE g_plain (LIKE connected_system_object INCLUDING DEFAULTS)`);
  await checkpoint(client);
  let ms = 0;
  let copyMs = 0;
  const plain = async (from: number, to: number) => {
    const t = performance.now();
    await copyEncoded(client, 'g_plain', CONNECTOR_SPACE_COPY_COLUMNS, plainText.slice(from, to));
    copyMs += performance.now() - t;
  };
  const real = async (from: number, to: number) => {
    const t = performance.now();
    for (const page of encoded.slice(from, to)) {
      const { rows } = await client.query(pointLookup(lookupTable, 'id'), [systemId, typeId, page.ids]);
      if (rows.length) throw new Error(`${lookupTable}: unexpected existing rows`);
      for (const c of page.copies) await copyEncoded(client, c.table, c.columns, [c.text]);
    }
    ms += performance.now() - t;
  };
  for (let r = 0; r < ROUNDS; r++) {
    const from = Math.floor((r * encoded.length) / ROUNDS);
    const to = Math.floor(((r + 1) * encoded.length) / ROUNDS);
    if (r % 2 === 0) {
      await plain(from, to);
      await real(from, to);
    } else {
      await real(from, to);
      await plain(from, to);
    }
  }
  await client.query(`DROP TABLE g_plain`);
  return { ms, copyMs };
}

// ------------------------------------------------------------------------------------------------ run

async function main(): Promise<void> {
  console.log(
    `connector space: ${num(N)} objects × 15 attributes, imported in pages of ${PAGE}, written ${num(BATCH)} per round; ${num(LOOKUP_PAGES)} random lookup pages of ${PAGE}`,
  );
  const db = await createTestDatabase('bench');
  const client = new Client({ connectionString: db.url });
  // Interrupted (Ctrl-C, kill): still drop the database, which can hold gigabytes.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: dropping ${db.name}`);
      void client
        .end()
        .catch(() => undefined)
        .then(() => db.drop())
        .finally(() => process.exit(130));
    });
  }
  await client.connect();
  try {
    const {
      rows: [{ version }],
    } = await client.query(`SELECT split_part(version(), ' on ', 1) AS version`);
    const settings = (
      await client.query(
        `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'max_wal_size', 'synchronous_commit', 'temp_buffers') ORDER BY name`,
      )
    ).rows
      .map((s) => `${s.name}=${s.setting}${s.unit ?? ''}`)
      .join(', ');
    console.log(
      `${version}; ${settings}; node ${process.version}; ${cpus().length} CPUs; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );

    const {
      rows: [{ id: systemId }],
    } = await client.query(`INSERT INTO connected_system (name, connector_type) VALUES ('HR (bench)', 'File') RETURNING id`);
    const {
      rows: [{ id: typeId }],
    } = await client.query(
      `INSERT INTO connected_system_object_type (connected_system_id, name, selected) VALUES ($1, 'person', true) RETURNING id`,
      [systemId],
    );
    const attrIds: number[] = [];
    for (const [name, type, plurality] of ATTRIBUTES) {
      const {
        rows: [{ id }],
      } = await client.query(
        `INSERT INTO connected_system_attribute (object_type_id, name, type, plurality, selected, is_external_id, is_secondary_external_id)
         VALUES ($1, $2, $3, $4, true, $5, $6) RETURNING id`,
        [typeId, name, type, plurality, name === 'employeeId', name === 'userPrincipalName'],
      );
      attrIds.push(id);
    }
    const source = (from = 0, to = N) => objects(from, to, systemId, typeId, attrIds);
    console.log(
      `one COPY line: ${encodeCopyLine(connectorSpaceCopyRow(makeObject(12345, systemId, typeId, attrIds))).length} bytes; uuid v7 e.g. ${uuidV7()}\n`,
    );

    // 0. The client side alone (generating, canonical JSON, SHA-256, COPY text): paid by (a) and (b) alike.
    const gen = await timed('generate + encode only (no database)', async () => {
      let bytes = 0;
      for (const o of source()) bytes += encodeCopyLine(connectorSpaceCopyRow(o)).length;
      return bytes;
    });

    /**
     * Runs `candidate` against the baseline (a), a raw COPY of the same objects into a plain table
     * with the columns of connected_system_object and no index or constraint. Both load the same
     * ROUNDS slices in turn (ABBA order), so a busy machine slows both alike and the ratio holds.
     */
    const againstCopy = async (label: string, candidate: (from: number, to: number) => Promise<void>) => {
      await client.query(`DROP TABLE IF EXISTS bench_cso_copy`);
      await client.query(`CREATE TABLE bench_cso_copy (LIKE connected_system_object INCLUDING DEFAULTS)`);
      await checkpoint(client);
      process.stdout.write(`${label.padEnd(64)} `);
      let copyMs = 0;
      let candidateMs = 0;
      const copyRound = async (from: number, to: number) => {
        const t = performance.now();
        function* rows() {
          for (const o of source(from, to)) yield connectorSpaceCopyRow(o);
        }
        if ((await copyRows(client, 'bench_cso_copy', CONNECTOR_SPACE_COPY_COLUMNS, rows())) !== to - from) throw new Error('COPY count');
        copyMs += performance.now() - t;
      };
      const candidateRound = async (from: number, to: number) => {
        const t = performance.now();
        await candidate(from, to);
        candidateMs += performance.now() - t;
      };
      for (let r = 0; r < ROUNDS; r++) {
        const from = Math.floor((r * N) / ROUNDS);
        const to = Math.floor(((r + 1) * N) / ROUNDS);
        if (r % 2 === 0) {
          await copyRound(from, to);
          await candidateRound(from, to);
        } else {
          await candidateRound(from, to);
          await copyRound(from, to);
        }
        sampleMemory();
      }
      const copySize = await relationSize(client, 'bench_cso_copy');
      await client.query(`DROP TABLE bench_cso_copy`);
      console.log(
        `${secs(candidateMs).padStart(9)}   ${num((N / candidateMs) * 1000).padStart(9)} objects/s   raw COPY ${secs(copyMs)} (${num((N / copyMs) * 1000)}/s)   ratio ${(candidateMs / copyMs).toFixed(2)}×`,
      );
      return { ms: candidateMs, copyMs, ratio: candidateMs / copyMs, copySize };
    };
    const expectCounts = (what: string, r: { inserted: number; updated: number; unchanged: number }, expected: Partial<typeof r>) => {
      for (const [k, v] of Object.entries(expected)) if (r[k as keyof typeof r] !== v) throw new Error(`${what}: ${JSON.stringify(r)}`);
    };

    // (b) The import path: connector pages of 1000 → upsertConnectorSpaceObjects (which looks each
    // page up by external id, then COPYs the new objects) into the real table and all its indexes.
    const insert = await againstCopy('(b) import, all new, vs (a) raw COPY', async (from, to) => {
      expectCounts('import', await upsertConnectorSpaceObjects(client, source(from, to), { batchSize: BATCH }), { inserted: to - from });
    });
    await client.query(`ANALYZE connected_system_object`);
    const realSize = await relationSize(client, 'connected_system_object');

    // (c) The same full import again, nothing changed: nothing is written.
    await checkpoint(client);
    const again = await timed('(c) import again, unchanged (content hash equal)', async () =>
      upsertConnectorSpaceObjects(client, source(), { batchSize: BATCH }),
    );
    expectCounts('re-import', again.value, { unchanged: N, inserted: 0, updated: 0 });

    // (d) Lookups by external id in random pages of 1000.
    const full = await lookups(
      '(d) find by external id, pages of 1000, whole objects',
      async (ids) => (await findConnectorSpaceObjectsByExternalIds(client, systemId, typeId, ids)).length,
    );
    const narrow = await lookups(
      '(d) find by external id, pages of 1000, without attributes',
      async (ids) => (await findConnectorSpaceObjectsByExternalIds(client, systemId, typeId, ids, { attributes: false })).length,
    );

    const importPeakRss = peakRss;

    // (b5) The same import, writing five connector pages per round (the engine may gather pages).
    await client.query(`TRUNCATE connected_system_object`);
    const insert5 = await againstCopy(`(b5) import, all new, ${num(5 * PAGE)} per round, vs (a)`, async (from, to) => {
      expectCounts('import (5 pages)', await upsertConnectorSpaceObjects(client, source(from, to), { batchSize: 5 * PAGE }), {
        inserted: to - from,
      });
    });
    await client.query(`TRUNCATE connected_system_object`);

    // (g) The database side alone, per layout: the import's statements on rows encoded before the
    // clock starts, against a raw COPY of the same objects (no client work is timed).
    const dbOnly = Math.min(N, DB_ONLY);
    const dbOnlyPages = [...pages(source(0, dbOnly), PAGE)];
    const plainText = dbOnlyPages.map((page) => page.map((o) => encodeCopyLine(connectorSpaceCopyRow(o))).join(''));
    const ids = (page: ConnectorSpaceObjectInput[]) => page.map((o) => o.externalId);
    const dbOnlyLines: string[] = [];
    const reportDbOnly = (name: string, r: { ms: number; copyMs: number }) => {
      const line = `${name}: ${secs(r.ms)} against ${secs(r.copyMs)} raw COPY, ${(r.ms / r.copyMs).toFixed(2)}×`;
      console.log(
        `${`(g) database only, ${num(dbOnly)} objects, ${name}`.padEnd(64)} ${secs(r.ms).padStart(9)}   raw COPY ${secs(r.copyMs)}   ratio ${(r.ms / r.copyMs).toFixed(2)}×`,
      );
      dbOnlyLines.push(line);
    };
    await client.query(`CREATE TABLE g_real (LIKE connected_system_object INCLUDING ALL)`);
    await client.query(
      `ALTER TABLE g_real ADD FOREIGN KEY (connected_system_id, object_type_id) REFERENCES connected_system_object_type (connected_system_id, id) ON DELETE CASCADE`,
    );
    reportDbOnly(
      'JSONB (chosen)',
      await databaseOnly(
        client,
        systemId,
        typeId,
        'g_real',
        dbOnlyPages.map((page, k) => ({
          ids: ids(page),
          copies: [{ table: 'g_real', columns: CONNECTOR_SPACE_COPY_COLUMNS, text: plainText[k] }],
        })),
        plainText,
      ),
    );
    await client.query(`DROP TABLE g_real`);
    const alternatives = process.env.MERIDIAN_BENCH_ALTERNATIVES !== '0';
    if (alternatives) {
      await createAlternatives(client);
      const types = attributeTypes(attrIds);
      reportDbOnly(
        'EAV',
        await databaseOnly(
          client,
          systemId,
          typeId,
          'eav_object',
          dbOnlyPages.map((page) => {
            const rows = page.map((o) => eavRows(o, types));
            return {
              ids: ids(page),
              copies: [
                { table: 'eav_object', columns: EAV_OBJECT_COLUMNS, text: rows.map((r) => encodeCopyLine(r.object)).join('') },
                { table: 'eav_value', columns: EAV_VALUE_COLUMNS, text: rows.flatMap((r) => r.values.map(encodeCopyLine)).join('') },
              ],
            };
          }),
          plainText,
        ),
      );
      reportDbOnly(
        'wide table',
        await databaseOnly(
          client,
          systemId,
          typeId,
          'wide_person',
          dbOnlyPages.map((page) => ({
            ids: ids(page),
            copies: [
              { table: 'wide_person', columns: WIDE_ALL_COLUMNS, text: page.map((o) => encodeCopyLine(wideRow(o, attrIds))).join('') },
            ],
          })),
          plainText,
        ),
      );
      await client.query(`TRUNCATE eav_value, eav_object, wide_person`);
    }
    dbOnlyPages.length = 0;
    plainText.length = 0;

    const lines: string[] = [];
    if (alternatives) {
      // (e) The rejected variant: every row staged, then INSERT … ON CONFLICT (the `merge` option).
      await client.query(`TRUNCATE connected_system_object`);
      const merge = await againstCopy('(e) merge variant (stage + ON CONFLICT), all new, vs (a)', async (from, to) => {
        expectCounts('merge', await upsertConnectorSpaceObjects(client, source(from, to), { batchSize: BATCH, merge: true }), {
          inserted: to - from,
        });
      });
      await checkpoint(client);
      const mergeAgain = await timed('(e) merge variant, unchanged', async () =>
        upsertConnectorSpaceObjects(client, source(), { batchSize: BATCH, merge: true }),
      );
      expectCounts('merge again', mergeAgain.value, { unchanged: N });
      lines.push(
        `merge variant: import ${merge.ratio.toFixed(2)}× raw COPY; unchanged re-import ${secs(mergeAgain.ms)} (${(mergeAgain.ms / merge.copyMs).toFixed(2)}× raw COPY)`,
      );
      await client.query(`TRUNCATE connected_system_object`);

      // (f) Other layouts (ADR 0003, alternatives considered), loaded the way the import loads.
      const eav = await againstCopy('(f) EAV (object row + a row per value), import, vs (a)', (from, to) =>
        loadEav(client, source(from, to), attrIds),
      );
      await client.query(`ANALYZE eav_object, eav_value`);
      const eavLookup = await lookups('(f) EAV: find by external id, pages of 1000, whole objects', async (ids) => {
        const { rows } = await client.query(
          `SELECT o.id, o.external_id, o.content_hash, v.attribute_id, v.ordinal, v.value_text, v.value_int, v.value_date, v.value_bool
             FROM (${pointLookup('eav_object', 'id, external_id, content_hash')}) o JOIN eav_value v ON v.object_id = o.id`,
          [systemId, typeId, ids],
        );
        return new Set(rows.map((r) => r.id)).size;
      });
      const {
        rows: [{ values }],
      } = await client.query(`SELECT count(*)::int AS values FROM eav_value`);
      lines.push(
        `EAV: import ${eav.ratio.toFixed(2)}× raw COPY; lookup page p50 ${eavLookup.p50.toFixed(1)} ms, p95 ${eavLookup.p95.toFixed(1)} ms; eav_object ${await relationSize(client, 'eav_object')}; eav_value (${num(values)} rows) ${await relationSize(client, 'eav_value')}`,
      );
      await client.query(`DROP TABLE eav_value, eav_object`);

      const wide = await againstCopy('(f) wide table per object type, import, vs (a)', (from, to) =>
        loadWide(client, source(from, to), attrIds),
      );
      await client.query(`ANALYZE wide_person`);
      const wideLookup = await lookups(
        '(f) wide: find by external id, pages of 1000, whole objects',
        async (ids) => (await client.query(pointLookup('wide_person', '*'), [systemId, typeId, ids])).rowCount ?? 0,
      );
      lines.push(
        `wide table: import ${wide.ratio.toFixed(2)}× raw COPY; lookup page p50 ${wideLookup.p50.toFixed(1)} ms, p95 ${wideLookup.p95.toFixed(1)} ms; ${await relationSize(client, 'wide_person')}`,
      );
      await client.query(`DROP TABLE wide_person`);
    }

    const lookupAllMs = full.ms * (Math.ceil(N / PAGE) / LOOKUP_PAGES);
    const withLookups = (insert.ms + lookupAllMs) / insert.copyMs;
    console.log('');
    console.log(
      `client-side generation + encoding alone: ${secs(gen.ms)} (${num(gen.value / N)} bytes per object; paid by (a) and (b) alike)`,
    );
    console.log(`sizes: plain table (a): ${insert.copySize}; connected_system_object: ${realSize}`);
    const verdict = (ratio: number) => `${ratio.toFixed(2)}×  ${ratio <= 3 ? 'WITHIN 3×' : 'NOT within 3×'}`;
    console.log(
      `(b) import of new objects (each batch of ${num(BATCH)} looked up by external id, then COPYd) / raw COPY (a): ${verdict(insert.ratio)}`,
    );
    console.log(`(b) + reading every object back by external id in pages of ${PAGE} (d) / raw COPY (a):          ${verdict(withLookups)}`);
    console.log(
      `(b5) the same, writing ${num(5 * PAGE)} objects (five pages) per round / raw COPY (a):                   ${verdict(insert5.ratio)}`,
    );
    console.log(`(c) unchanged re-import / raw COPY (a): ${(again.ms / insert.copyMs).toFixed(2)}×`);
    console.log(
      `lookup, whole objects: p50 ${full.p50.toFixed(1)} ms, p95 ${full.p95.toFixed(1)} ms per page of 1000; without attributes: p50 ${narrow.p50.toFixed(1)} ms, p95 ${narrow.p95.toFixed(1)} ms`,
    );
    for (const l of dbOnlyLines) console.log(`(g) database only, ${l}`);
    for (const l of lines) console.log(l);
    console.log(
      `peak RSS: ${mb(importPeakRss)} through (a)-(d); ${mb(peakRss)} overall (the database-only comparison (g) holds its encoded rows in memory)`,
    );
  } finally {
    await client.end();
    await db.drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
