import { ActivityDetail, ApiResult, ExecutionItem, MeridianClient, Schema, unwrap } from '@meridian/api-client';
import {
  createTestDatabase,
  createTestEnvironment,
  HR_CSV_COLUMNS,
  HrRecord,
  TestDatabase,
  TestEnvironment,
  waitFor,
} from '@meridian/testing';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { apiClient } from './api';
import { freePort, ServiceProcess, startService, waitForHttp } from './processes';

/** Shared set-up of the engine end-to-end tests: real web and worker processes, configured over HTTP only. */

export type Activity = ActivityDetail;

/** A page of a paginated list (spec 2.1). */
interface Page<T> {
  items: T[];
  hasNextPage: boolean;
}

/** Web + workers on their own database, Redis prefix and connector-files root (`files`). */
export class EngineStack {
  readonly workers: ServiceProcess[] = [];
  web!: ServiceProcess;
  sql!: Client;
  /** The typed API client, with the bootstrap administrator key. */
  api!: MeridianClient;
  base = '';
  files = '';
  private db!: TestDatabase;
  private env!: TestEnvironment;

  static async start(label: string, workers = 1): Promise<EngineStack> {
    const stack = new EngineStack();
    stack.db = await createTestDatabase(label);
    stack.files = mkdtempSync(join(tmpdir(), `meridian-${label}-`));
    for (const dir of ['hr', 'directory', 'crm']) mkdirSync(join(stack.files, dir));
    const port = await freePort();
    stack.env = createTestEnvironment(stack.db.url, { PORT: String(port), MERIDIAN_CONNECTOR_FILES_ROOT: stack.files });
    stack.base = `http://127.0.0.1:${port}`;
    stack.api = apiClient(stack.base, stack.env.bootstrapKey);
    stack.web = startService('web', stack.env.env);
    for (let i = 0; i < workers; i++) stack.startWorker();
    await waitForHttp(`${stack.base}/api/v1/health/ready`, 60_000);
    stack.sql = new Client({ connectionString: stack.db.url });
    await stack.sql.connect();
    // Tests poll activities several times a second.
    await unwrap(
      stack.api.PUT('/api/v1/service-settings/{key}', {
        params: { path: { key: 'Security.RateLimiting.ApiKeyRequestsPerMinute' } },
        body: { value: 100_000 },
      }),
    );
    return stack;
  }

  /** Starts a worker process (its log also goes to its output, so readiness can be seen). */
  startWorker(env: Record<string, string> = {}): ServiceProcess {
    const worker = startService('worker', { ...this.env.env, MERIDIAN_LOG_CONSOLE: 'true', ...env });
    this.workers.push(worker);
    return worker;
  }

  /** Waits until a worker consumes jobs. */
  async workerReady(worker: ServiceProcess): Promise<void> {
    await waitFor(
      async () => {
        if (worker.child.exitCode !== null) throw new Error(`The worker exited: ${worker.output()}`);
        return worker.output().includes('consuming jobs');
      },
      60_000,
      100,
    );
  }

  /** Workers that have not exited. */
  liveWorkers(): ServiceProcess[] {
    return this.workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
  }

  async stop(): Promise<void> {
    await this.sql?.end().catch(() => undefined);
    for (const p of [this.web, ...this.workers]) await p?.stop();
    await this.env?.cleanup();
    await this.db?.drop();
    if (this.files) rmSync(this.files, { recursive: true, force: true });
  }

  path(relative: string): string {
    return join(this.files, relative);
  }

  async one<T = any>(query: string, params: unknown[] = []): Promise<T> {
    return (await this.sql.query(query, params)).rows[0];
  }

  async count(query: string, params: unknown[] = []): Promise<number> {
    return Number(Object.values((await this.sql.query(query, params)).rows[0])[0]);
  }

  activity(id: string): Promise<Activity> {
    return unwrap(this.api.GET('/api/v1/activities/{id}', { params: { path: { id } } }));
  }

  /** Queues a run profile; returns its activity id. */
  async execute(connectedSystemId: number, runProfileId: number): Promise<string> {
    const { activityId } = await unwrap(
      this.api.POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles/{runProfileId}/execute', {
        params: { path: { connectedSystemId, runProfileId } },
      }),
      202,
    );
    return activityId;
  }

  /** Polls the activity until it is no longer InProgress. */
  async finished(activityId: string, timeoutMs = 120_000): Promise<Activity> {
    return waitFor(
      async () => {
        const activity = await this.activity(activityId);
        return activity.status === 'InProgress' ? null : activity;
      },
      timeoutMs,
      200,
    );
  }

  /** Executes a run profile and waits for its end. */
  async run(systemId: number, profileId: number, timeoutMs = 120_000): Promise<Activity> {
    return this.finished(await this.execute(systemId, profileId), timeoutMs);
  }

  /** Every execution item of an activity (pages of 100). */
  items(id: string): Promise<ExecutionItem[]> {
    return this.all((page) => this.api.GET('/api/v1/activities/{id}/items', { params: { path: { id }, query: { page, pageSize: 100 } } }));
  }

  /** Every item of a paginated list: `list(page)` asks for that page (of 100). */
  async all<T>(list: (page: number, pageSize: number) => Promise<ApiResult<Page<T>, unknown>>): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; ; page++) {
      const body = await unwrap(list(page, 100));
      out.push(...body.items);
      if (!body.hasNextPage) return out;
    }
  }
}

// --- CSV files ------------------------------------------------------------------------------------

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Writes CSV rows (first the header) the way the HR generator quotes them. */
export function writeCsv(file: string, header: readonly string[], rows: ReadonlyArray<Record<string, string>>): void {
  const lines = [header.map(csvField).join(','), ...rows.map((r) => header.map((c) => csvField(r[c] ?? '')).join(','))];
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Writes HR records in the generator's format. */
export function writeHrRecords(file: string, records: readonly HrRecord[]): void {
  writeCsv(file, HR_CSV_COLUMNS, records);
}

/** Parses a CSV file without line breaks inside fields: the header and one record per data row. */
export function readCsv(file: string): { header: string[]; rows: Array<Record<string, string>> } {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const parse = (line: string): string[] => {
    const fields: string[] = [];
    let i = 0;
    for (;;) {
      let value = '';
      if (line[i] === '"') {
        i++;
        for (;;) {
          const q = line.indexOf('"', i);
          if (q < 0) throw new Error(`Unclosed quote in ${line}`);
          value += line.slice(i, q);
          if (line[q + 1] === '"') {
            value += '"';
            i = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
      } else {
        const comma = line.indexOf(',', i);
        value = line.slice(i, comma < 0 ? line.length : comma);
        i = comma < 0 ? line.length : comma;
      }
      fields.push(value);
      if (line[i] !== ',') return fields;
      i++;
    }
  };
  const [head, ...data] = lines;
  const header = parse(head);
  return {
    header,
    rows: data.map((line) => {
      const fields = parse(line);
      if (fields.length !== header.length) throw new Error(`Row with ${fields.length} fields under a header of ${header.length}: ${line}`);
      return Object.fromEntries(header.map((h, i) => [h, fields[i]]));
    }),
  };
}

// --- The configuration: HR → metaverse → directory ------------------------------------------------

/** Columns of the directory file, in order; `employeeId` is its external ID. */
export const DIRECTORY_COLUMNS = ['employeeId', 'uid', 'cn', 'displayName', 'mail', 'department', 'title'] as const;

/** The directory row the export rule makes of an HR record. */
export function expectedDirectoryRow(r: HrRecord, mail = r.email): Record<string, string> {
  const displayName = `${r.firstName} ${r.lastName}`;
  return {
    employeeId: r.employeeId,
    uid: r.samAccountName,
    cn: displayName.toUpperCase(),
    displayName,
    mail,
    department: r.department,
    title: r.title,
  };
}

export interface SystemIds {
  id: number;
  typeId: number;
  attributes: Record<string, number>;
  profiles: Record<string, number>;
}

export interface PipelineIds {
  hr: SystemIds;
  directory: SystemIds;
  userTypeId: number;
  mv: Record<string, number>;
  hrRuleId: number;
  /** Import mappings of the HR rule by metaverse attribute name. */
  hrMappings: Record<string, number>;
}

/** Discovers a File system's schema, selects its object type and the given attributes; returns the ids by name. */
async function selectSchema(
  stack: EngineStack,
  connectedSystemId: number,
  externalId: string,
  selected: readonly string[],
): Promise<{ typeId: number; attributes: Record<string, number> }> {
  const { api } = stack;
  const system = { connectedSystemId };
  await unwrap(api.POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/schema/import', { params: { path: system } }));
  const [type] = await unwrap(
    api.GET('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types', { params: { path: system } }),
  );
  const attributes: Record<string, number> = Object.fromEntries(type.attributes.map((a) => [a.name, a.id]));
  const objectType = { ...system, objectTypeId: type.id };
  await unwrap(
    api.PUT('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}', {
      params: { path: objectType },
      body: { selected: true },
    }),
  );
  await unwrap(
    api.PUT('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}/attributes/{attributeId}', {
      params: { path: { ...objectType, attributeId: attributes[externalId] } },
      body: { isExternalId: true },
    }),
  );
  const others = selected.filter((n) => n !== externalId);
  if (others.length) {
    const bulk = await unwrap(
      api.POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/object-types/{objectTypeId}/attributes/bulk-update', {
        params: { path: objectType },
        body: { attributes: Object.fromEntries(others.map((n) => [String(attributes[n]), { selected: true }])) },
      }),
    );
    if (bulk.errors) throw new Error(`Attribute selection refused: ${JSON.stringify(bulk.errors)}`);
  }
  return { typeId: type.id, attributes };
}

type RunType = Schema<'CreateRunProfileDto'>['runType'];

async function profiles(
  stack: EngineStack,
  connectedSystemId: number,
  runTypes: readonly RunType[],
  pageSize: number,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const runType of runTypes) {
    const profile = await unwrap(
      stack.api.POST('/api/v1/synchronisation/connected-systems/{connectedSystemId}/run-profiles', {
        params: { path: { connectedSystemId } },
        body: { name: runType, runType, pageSize },
      }),
      201,
    );
    out[runType] = profile.id;
  }
  return out;
}

/** Metaverse attribute ids of the User type, by name. */
export async function metaverseAttributes(stack: EngineStack, objectTypeId: number): Promise<Record<string, number>> {
  const list = await unwrap(stack.api.GET('/api/v1/metaverse/attributes', { params: { query: { objectTypeId } } }));
  return Object.fromEntries(list.map((a) => [a.name, a.id]));
}

/**
 * The pipeline of the engine tests, configured over the API: the HR file `hr/people.csv` (which must
 * exist) projects Users (matching on Employee ID), the directory file `directory/users.csv` is
 * provisioned from them (deprovisioning deletes), and a User is deleted as soon as HR lets it go.
 */
export async function configurePipeline(stack: EngineStack, pageSize: number): Promise<PipelineIds> {
  const { api } = stack;
  writeCsv(stack.path('directory/users.csv'), DIRECTORY_COLUMNS, []);

  const hrSystem = await unwrap(
    api.POST('/api/v1/synchronisation/connected-systems', {
      body: { name: 'HR', connectorType: 'File', settings: { filePath: 'hr/people.csv', mode: 'Import', objectType: 'person' } },
    }),
    201,
  );
  const hrSchema = await selectSchema(stack, hrSystem.id, 'employeeId', [
    'employeeId',
    'firstName',
    'lastName',
    'displayName',
    'email',
    'department',
    'title',
    'company',
    'samAccountName',
    'employeeType',
    'status',
  ]);
  const hr: SystemIds = {
    id: hrSystem.id,
    ...hrSchema,
    profiles: await profiles(stack, hrSystem.id, ['FullImport', 'FullSynchronisation', 'DeltaSynchronisation'], pageSize),
  };

  const types = await unwrap(api.GET('/api/v1/metaverse/object-types'));
  const userTypeId = types.find((t) => t.name === 'User')!.id;
  const mv = await metaverseAttributes(stack, userTypeId);

  const hrRule = await unwrap(
    api.POST('/api/v1/synchronisation/sync-rules', {
      body: {
        name: 'HR people → Users',
        connectedSystemId: hr.id,
        direction: 'Import',
        connectedSystemObjectTypeId: hr.typeId,
        metaverseObjectTypeId: userTypeId,
        projectToMetaverse: true,
        inboundOutOfScopeAction: 'Disconnect',
      },
    }),
    201,
  );
  const hrMappings: Record<string, number> = {};
  const inbound = async (target: string, source: string, expression?: string) => {
    const mapping = await unwrap(
      api.POST('/api/v1/synchronisation/sync-rules/{syncRuleId}/mappings', {
        params: { path: { syncRuleId: hrRule.id } },
        body: {
          targetMetaverseAttributeId: mv[target],
          sources: [{ connectedSystemAttributeId: hr.attributes[source], ...(expression ? { expression } : {}) }],
        },
      }),
      201,
    );
    hrMappings[target] = mapping.id;
  };
  await inbound('Employee ID', 'employeeId');
  await inbound('First Name', 'firstName');
  await inbound('Last Name', 'lastName');
  await inbound('Display Name', 'firstName', 'cs["firstName"] + " " + cs["lastName"]');
  await inbound('Email', 'email');
  await inbound('Department', 'department');
  await inbound('Job Title', 'title');
  await inbound('Company', 'company');
  await inbound('Account Name', 'samAccountName');
  await inbound('Employee Type', 'employeeType');
  await unwrap(
    api.POST('/api/v1/synchronisation/sync-rules/{syncRuleId}/matching-rules', {
      params: { path: { syncRuleId: hrRule.id } },
      body: {
        connectedSystemAttributeIds: [hr.attributes.employeeId],
        metaverseAttributeId: mv['Employee ID'],
        caseSensitive: false,
      },
    }),
    201,
  );

  const dirSystem = await unwrap(
    api.POST('/api/v1/synchronisation/connected-systems', {
      body: {
        name: 'Directory',
        connectorType: 'File',
        settings: { filePath: 'directory/users.csv', mode: 'Bidirectional', objectType: 'account' },
      },
    }),
    201,
  );
  const dirSchema = await selectSchema(stack, dirSystem.id, 'employeeId', DIRECTORY_COLUMNS);
  const directory: SystemIds = {
    id: dirSystem.id,
    ...dirSchema,
    profiles: await profiles(stack, dirSystem.id, ['Export', 'FullImport'], pageSize),
  };
  const exportRule = await unwrap(
    api.POST('/api/v1/synchronisation/sync-rules', {
      body: {
        name: 'Users → Directory accounts',
        connectedSystemId: directory.id,
        direction: 'Export',
        connectedSystemObjectTypeId: directory.typeId,
        metaverseObjectTypeId: userTypeId,
        provisionToConnectedSystem: true,
        outboundDeprovisionAction: 'Delete',
      },
    }),
    201,
  );
  const outbound = async (target: string, source: string, expression?: string) => {
    await unwrap(
      api.POST('/api/v1/synchronisation/sync-rules/{syncRuleId}/mappings', {
        params: { path: { syncRuleId: exportRule.id } },
        body: {
          targetConnectedSystemAttributeId: directory.attributes[target],
          sources: [{ metaverseAttributeId: mv[source], ...(expression ? { expression } : {}) }],
        },
      }),
      201,
    );
  };
  await outbound('employeeId', 'Employee ID');
  await outbound('uid', 'Account Name');
  await outbound('cn', 'Display Name', 'Upper(mv["Display Name"])');
  await outbound('displayName', 'Display Name');
  await outbound('mail', 'Email');
  await outbound('department', 'Department');
  await outbound('title', 'Job Title');

  await unwrap(
    api.PUT('/api/v1/metaverse/object-types/{id}', {
      params: { path: { id: userTypeId } },
      body: {
        deletionRule: 'WhenAuthoritativeSourceDisconnected',
        deletionTriggerConnectedSystemIds: [hr.id],
        deletionTriggerMode: 'Any',
        deletionGracePeriod: null,
      },
    }),
  );
  return { hr, directory, userTypeId, mv, hrRuleId: hrRule.id, hrMappings };
}
