import { DynamicModule, INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ApplicationCoreModule,
  ConnectedSystemObjectTypesService,
  ConnectedSystemsServicesModule,
  ConnectedSystemSchemaService,
  ConnectedSystemsService,
  RunProfileExecutor,
  RunProfilesService,
  SYSTEM_INITIATOR,
} from '@meridian/application';
import {
  Connector,
  ConnectorCapabilities,
  ConnectorContext,
  ConnectorRegistry,
  DiscoveredSchema,
  ExportSession,
  ImportPage,
  ImportRequest,
  ImportSession,
} from '@meridian/connectors';
import { ActivityOperationType, ActivityStatus, ActivityTargetType, RunType, UnresolvedReferenceHandling } from '@meridian/domain';
import { ActivityEntity } from '@meridian/persistence';
import { AppConfig, closeLogger, createServiceLogger, loadConfig, Logger, PlatformModule } from '@meridian/platform';
import { createTestDatabase, createTestEnvironment, TestDatabase, TestEnvironment, writeHrCsv } from '@meridian/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createWorker } from '../../src/bootstrap';

/** An activity row as the tests read it (snake_case columns). */
export type ActivityRow = Record<string, any>;

/** An execution item row (snake_case columns). */
export type ItemRow = Record<string, any>;

export interface SystemSetup {
  systemId: number;
  /** Object type name → id. */
  types: Record<string, number>;
  /** `type.attribute` (and plain `attribute` for the first type) → attribute id. */
  attributes: Record<string, number>;
}

export interface FileSystemOptions {
  name?: string;
  /** Path of the CSV under the connector-files root. */
  filePath: string;
  settings?: Record<string, string | number | boolean>;
  unresolvedReferenceHandling?: UnresolvedReferenceHandling;
  /** Object types to select (default: every discovered type). */
  objectTypes?: string[];
  /** Attributes to select per type (default: all). */
  attributes?: string[];
}

/** The configuration side, as the API process holds it: the worker holds no configuration service. */
@Module({})
class ConfigurationModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: ConfigurationModule,
      imports: [PlatformModule.forRoot(config, logger), ApplicationCoreModule.forRoot(config), ConnectedSystemsServicesModule],
    };
  }
}

/**
 * The real worker (Nest context, PostgreSQL, Redis) with helpers to set up connected systems through
 * the application services (in a configuration context of their own, as the API would) and to run run
 * profiles synchronously through the worker's RunProfileExecutor.
 * Each fixture has its own database and connector-files root.
 */
export class EngineFixture {
  private seq = 0;
  private readonly scripted = new Map<string, Connector>();

  private constructor(
    readonly worker: INestApplicationContext,
    private readonly configuration: INestApplicationContext,
    readonly pg: Client,
    readonly filesRoot: string,
    private readonly db: TestDatabase,
    private readonly env: TestEnvironment,
    private readonly logger: Logger,
  ) {}

  static async start(label: string): Promise<EngineFixture> {
    const db = await createTestDatabase(label);
    const filesRoot = mkdtempSync(join(tmpdir(), 'meridian-files-'));
    const env = createTestEnvironment(db.url, { MERIDIAN_CONNECTOR_FILES_ROOT: filesRoot });
    const config = loadConfig('worker', env.env);
    const logger = createServiceLogger({ service: 'worker', logDir: config.logDir, level: config.logLevel, console: false });
    const worker = await createWorker(config, logger);
    const configuration = await NestFactory.createApplicationContext(ConfigurationModule.forRoot(loadConfig('web', env.env), logger), {
      logger: false,
    });
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    return new EngineFixture(worker, configuration, pg, filesRoot, db, env, logger);
  }

  async stop(): Promise<void> {
    await this.pg.end().catch(() => undefined);
    await this.configuration.close();
    await this.worker.close();
    await closeLogger(this.logger);
    await this.env.cleanup();
    await this.db.drop();
    rmSync(this.filesRoot, { recursive: true, force: true });
  }

  get dataSource(): DataSource {
    return this.worker.get<DataSource>(getDataSourceToken());
  }

  /** A unique name for a system or profile. */
  name(prefix: string): string {
    this.seq += 1;
    return `${prefix} ${this.seq}`;
  }

  // --- data -------------------------------------------------------------------------------------------

  /** Writes a file under the connector-files root (directories created). */
  writeFile(relativePath: string, content: string): void {
    const full = join(this.filesRoot, relativePath);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }

  /** Writes the deterministic HR CSV (DOMAIN.md §7) with `rows` rows. */
  async writeHr(relativePath: string, rows: number): Promise<void> {
    const full = join(this.filesRoot, relativePath);
    mkdirSync(dirname(full), { recursive: true });
    await writeHrCsv(full, rows);
  }

  // --- configuration ----------------------------------------------------------------------------------

  /**
   * A File connected system over a CSV already written under the root: created, schema imported,
   * object types and attributes selected (the suggested external ID stays marked).
   */
  async fileSystem(options: FileSystemOptions): Promise<SystemSetup> {
    return this.connectedSystem({
      name: options.name,
      connectorType: 'File',
      settings: { filePath: options.filePath, ...options.settings },
      unresolvedReferenceHandling: options.unresolvedReferenceHandling,
      objectTypes: options.objectTypes,
      attributes: options.attributes,
    });
  }

  /** Any connected system: created through the service, schema imported and selected. */
  async connectedSystem(options: {
    name?: string;
    connectorType: string;
    settings?: Record<string, unknown>;
    unresolvedReferenceHandling?: UnresolvedReferenceHandling;
    objectTypes?: string[];
    attributes?: string[];
  }): Promise<SystemSetup> {
    const systems = this.configuration.get(ConnectedSystemsService);
    const created = await systems.create(
      {
        name: options.name ?? this.name(options.connectorType),
        connectorType: options.connectorType,
        settings: options.settings ?? {},
        ...(options.unresolvedReferenceHandling ? { unresolvedReferenceHandling: options.unresolvedReferenceHandling } : {}),
      },
      SYSTEM_INITIATOR,
    );
    await this.configuration.get(ConnectedSystemSchemaService).importSchema(created.id, SYSTEM_INITIATOR);
    return this.select(created.id, options.objectTypes, options.attributes);
  }

  /** Selects object types (default all) and their attributes (default all); returns the ids. */
  async select(systemId: number, objectTypes?: string[], attributes?: string[]): Promise<SystemSetup> {
    const service = this.configuration.get(ConnectedSystemObjectTypesService);
    const setup: SystemSetup = { systemId, types: {}, attributes: {} };
    for (const type of await service.list(systemId)) {
      for (const a of type.attributes) {
        setup.attributes[`${type.name}.${a.name}`] = a.id;
        if (!(a.name in setup.attributes)) setup.attributes[a.name] = a.id;
      }
      setup.types[type.name] = type.id;
      if (objectTypes && !objectTypes.includes(type.name)) continue;
      await service.updateObjectType(systemId, type.id, { selected: true }, SYSTEM_INITIATOR);
      const wanted = type.attributes.filter((a) => !attributes || attributes.includes(a.name) || a.isExternalId);
      if (wanted.length) {
        await service.bulkUpdateAttributes(
          systemId,
          type.id,
          Object.fromEntries(wanted.map((a) => [a.id, { selected: true }])),
          SYSTEM_INITIATOR,
        );
      }
    }
    return setup;
  }

  /** Marks (or unmarks) attribute flags through the service, e.g. a secondary external ID. */
  async updateAttribute(
    systemId: number,
    typeId: number,
    attributeId: number,
    input: { selected?: boolean; isExternalId?: boolean; isSecondaryExternalId?: boolean },
  ): Promise<void> {
    await this.configuration.get(ConnectedSystemObjectTypesService).updateAttribute(systemId, typeId, attributeId, input, SYSTEM_INITIATOR);
  }

  /**
   * A run profile. Created through the service when the connector can run it; run types the connector
   * refuses (e.g. a delta import on a File system, to test the fallback) are inserted directly.
   */
  async runProfile(
    systemId: number,
    runType: RunType,
    options: { pageSize?: number; filePath?: string | null; direct?: boolean } = {},
  ): Promise<number> {
    const name = this.name(runType);
    if (options.direct) {
      const { rows } = await this.pg.query(
        `INSERT INTO connected_system_run_profile (connected_system_id, name, run_type, page_size, file_path) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [systemId, name, runType, options.pageSize ?? 1000, options.filePath ?? null],
      );
      return rows[0].id;
    }
    const view = await this.configuration
      .get(RunProfilesService)
      .create(systemId, { name, runType, pageSize: options.pageSize, filePath: options.filePath ?? undefined }, SYSTEM_INITIATOR);
    return view.id;
  }

  // --- runs -------------------------------------------------------------------------------------------

  /** The activity RunProfilesService.execute creates, without queueing a job (the test runs it). */
  async queueRun(systemId: number, runProfileId: number): Promise<string> {
    const { rows } = await this.pg.query(
      `SELECT p.name, p.run_type, s.name AS system_name FROM connected_system_run_profile p JOIN connected_system s ON s.id = p.connected_system_id WHERE p.id = $1`,
      [runProfileId],
    );
    const profile = rows[0];
    const saved = await this.dataSource.getRepository(ActivityEntity).save({
      status: ActivityStatus.InProgress,
      targetType: ActivityTargetType.ConnectedSystemRunProfile,
      targetOperationType: ActivityOperationType.Execute,
      targetId: String(runProfileId),
      targetName: profile.name,
      targetContext: profile.system_name,
      message: `Queued: ${profile.run_type} of "${profile.system_name}".`,
      connectedSystemId: systemId,
      connectedSystemRunProfileId: runProfileId,
      connectedSystemRunType: profile.run_type,
      initiatedByType: SYSTEM_INITIATOR.type,
      initiatedById: SYSTEM_INITIATOR.id,
      initiatedByName: SYSTEM_INITIATOR.name,
      objectsToProcess: 0,
      objectsProcessed: 0,
    });
    return saved.id;
  }

  /** Queues and executes a run on this process; resolves to its finished activity row. */
  async run(systemId: number, runProfileId: number): Promise<ActivityRow> {
    const activityId = await this.queueRun(systemId, runProfileId);
    return this.execute(activityId);
  }

  /** Executes a queued activity; resolves to its activity row once it has ended. */
  async execute(activityId: string): Promise<ActivityRow> {
    const outcome = await this.worker.get(RunProfileExecutor).execute(activityId, 'engine-test');
    if (outcome.state !== 'done') throw new Error(`Run ${activityId} did not run: ${JSON.stringify(outcome)}`);
    return this.activity(activityId);
  }

  async activity(activityId: string): Promise<ActivityRow> {
    return (await this.pg.query(`SELECT * FROM activity WHERE id = $1`, [activityId])).rows[0];
  }

  /** Execution items of an activity in insertion order. */
  async items(activityId: string): Promise<ItemRow[]> {
    return (await this.pg.query(`SELECT * FROM activity_execution_item WHERE activity_id = $1 ORDER BY seq`, [activityId])).rows;
  }

  /** Connector space objects of a system, by external ID. */
  async objects(systemId: number): Promise<Map<string, Record<string, any>>> {
    const { rows } = await this.pg.query(`SELECT * FROM connected_system_object WHERE connected_system_id = $1 ORDER BY external_id`, [
      systemId,
    ]);
    return new Map(rows.map((r) => [r.external_id, r]));
  }

  async query<T = any>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pg.query(sql, params)).rows;
  }

  // --- scripted connector -----------------------------------------------------------------------------

  /**
   * Registers a connector whose schema and pages the test scripts (ScriptedConnector), for cases the File
   * connector cannot produce: delta imports, raw values of any type, hooks between pages.
   */
  useScriptedConnector(connector: ScriptedConnector): void {
    if (!this.scripted.size) {
      for (const registry of [this.worker.get(ConnectorRegistry), this.configuration.get(ConnectorRegistry)]) {
        const find = registry.find.bind(registry);
        jest.spyOn(registry, 'find').mockImplementation((type: string) => this.scripted.get(type.toLowerCase()) ?? find(type));
      }
    }
    this.scripted.set(connector.type.toLowerCase(), connector);
  }
}

/** A page the scripted connector yields; `before` runs when the runner asks for the page. */
export interface ScriptedPage extends Partial<ImportPage> {
  before?: () => Promise<void> | void;
}

/** A connector for tests: a fixed schema, and pages produced by a script per import request (register it with useScriptedConnector). */
export class ScriptedConnector implements Connector {
  readonly displayName = 'Scripted (tests)';
  readonly description = 'Pages produced by the test.';
  readonly settings = [];
  capabilities: ConnectorCapabilities = {
    fullImport: true,
    deltaImport: true,
    export: false,
    schemaDiscovery: true,
    paging: true,
    autoConfirmExport: false,
  };
  /** The requests the runner made. */
  readonly requests: ImportRequest[] = [];
  /** Pages of the next import, and the watermark it reports. */
  script: (request: ImportRequest) => { pages: ScriptedPage[]; watermark?: string | null } = () => ({ pages: [] });

  /** `type`: the connector type name systems use (one per scripted connector of a test file). */
  constructor(
    readonly type: string,
    private readonly schema: DiscoveredSchema,
  ) {}

  async testConnection(): Promise<{ success: boolean; message: string }> {
    return { success: true, message: 'Scripted.' };
  }

  async discoverSchema(): Promise<DiscoveredSchema> {
    return this.schema;
  }

  import(_ctx: ConnectorContext, request: ImportRequest): ImportSession {
    this.requests.push(request);
    const { pages, watermark = null } = this.script(request);
    let done = false;
    return {
      pages: async function* () {
        for (const page of pages) {
          await page.before?.();
          yield { objects: page.objects ?? [], errors: page.errors ?? [] };
        }
        done = true;
      },
      watermark: () => (done ? watermark : null),
    };
  }

  async openExport(): Promise<ExportSession> {
    throw new Error('The scripted connector does not export.');
  }
}
