import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConnectorSpaceObjectStatus, DomainError, ObjectChangeType, RunType, SettingKeys, SyncOutcome } from '@meridian/domain';
import { ConnectorCapabilities, ConnectorContext, ConnectorRegistry, ImportPage, ImportSession } from '@meridian/connectors';
import {
  ConnectedSystemEntity,
  ConnectorSpaceObjectInput,
  ExistingConnectorSpaceObject,
  ImportClaimKey,
  ImportOutcome,
  ImportSeenKey,
  ImportSeenRecord,
  ImportStore,
  planConnectorSpaceBatch,
  StatisticsStore,
} from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { describeError } from '../connected-systems/connected-system-schema.service';
import { capabilitiesOf } from '../connected-systems/connected-systems.service';
import { ConnectorContextFactory } from '../connected-systems/connector-context.factory';
import { SettingsService } from '../settings/settings.service';
import { EngineRunner } from './engine-runner';
import { confirmExports } from './import-confirmation';
import { addedRecords } from './cso-changes';
import { AcceptedObject, duplicateProblem, importKey, ImportPagePreparer, ImportProblem, PreparedPage } from './import-page';
import { resolveImportReferences, WriteTimeReferences } from './import-references';
import { RunCancelledError, RunContext } from './run-context';
import { SystemSchema } from './system-schema';

type ImportMode = 'Full' | 'Delta';

/** What one page wrote, for its items and counters (built inside the page's transaction). */
/** An accepted object of a page, with what its write did (set once the page is written). */
interface WrittenObject {
  object: AcceptedObject;
  csoId: string | null;
  outcome: ImportOutcome | null;
}

/** Earlier occurrences of a page's repeated keys, rejected now with what had been written for them (now undone). */
interface UndoneWrites {
  undone: ImportSeenRecord[];
  /** Items of undone writes that carried an error type (removed with them). */
  undoneErrors: number;
}

const CHANGE_TYPES = {
  [SyncOutcome.Added]: ObjectChangeType.Add,
  [SyncOutcome.Updated]: ObjectChangeType.Update,
  [SyncOutcome.Deleted]: ObjectChangeType.Delete,
} as const;

const COUNTERS = {
  [SyncOutcome.Added]: 'totalAdded',
  [SyncOutcome.Updated]: 'totalUpdated',
  [SyncOutcome.Deleted]: 'totalDeleted',
} as const;

/**
 * Full and delta import (DOMAIN.md §2.1; docs/engine.md "Import"): pages from the connector become
 * connector-space writes, a constant number of statements per page, each page committed before the
 * next; then (full import) deletion detection, reference resolution, the confirming import of exported
 * changes, and the delta watermark once everything completed.
 */
@Injectable()
export class ImportRunner implements EngineRunner {
  readonly runTypes = [RunType.FullImport, RunType.DeltaImport] as const;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly registry: ConnectorRegistry,
    private readonly contexts: ConnectorContextFactory,
    private readonly settings: SettingsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(ctx: RunContext, system: ConnectedSystemEntity): Promise<string> {
    const connector = this.registry.find(system.connectorType);
    if (!connector)
      throw DomainError.badRequest(
        `The ${system.connectorType} connector is not available in this version of Meridian, so "${system.name}" cannot be imported.`,
      );
    const schema = await SystemSchema.load(this.ds.manager, system);
    if (!schema.objectTypes.length) {
      throw DomainError.badRequest(
        `"${system.name}" has no selected object type: import its schema and select the object types and attributes to synchronise first.`,
      );
    }
    const capabilities = capabilitiesOf(connector, system.settings);
    const mode = this.mode(ctx, system, capabilities);
    if (mode === 'Full' && !capabilities.fullImport) {
      throw DomainError.badRequest(
        `The ${connector.type} connector cannot import with the settings of "${system.name}"${system.settings.mode ? ` (mode ${String(system.settings.mode)})` : ''}.`,
      );
    }
    const connectorContext = await this.contexts.build(system, { filePathOverride: ctx.info.filePath });
    connectorContext.schema = schema.toSelectedSchema();
    this.logger.log({
      level: 'debug',
      message: `Run ${ctx.activityId}: ${mode.toLowerCase()} import of "${system.name}" in pages of ${ctx.info.pageSize}.`,
      activityId: ctx.activityId,
    });

    const history = ctx.info.history;
    const store = new ImportStore(ctx.session, system.id, history.cso ? history.origin : null);
    await store.begin();
    const session = await this.fromConnector(system, connectorContext, async () =>
      connector.import(connectorContext, {
        mode,
        watermark: mode === 'Delta' ? system.deltaWatermark : null,
        pageSize: ctx.info.pageSize,
      }),
    );
    const typeIds = schema.objectTypes.filter((t) => t.externalId).map((t) => t.id);
    // A full import that met every object the connector space held needs no search for the others.
    const held = mode === 'Full' ? await store.countNormal(typeIds) : 0;
    const read = await ctx.phase('read', () => this.importPages(ctx, store, schema, session, connectorContext));
    // What the pages wrote changes the row counts the set-based steps below are planned with.
    await ctx.phase('statistics', () => new StatisticsStore(ctx.session).refresh(['connected_system_object', 'pending_export']));
    if (mode === 'Full')
      await ctx.phase('obsolete', () => this.obsoleteUnseen(ctx, store, schema, typeIds, read.identified, read.metNormal === held));
    await ctx.phase('references', () => resolveImportReferences(ctx, store, schema, system.unresolvedReferenceHandling));
    const maxRetries = Number(await this.settings.effective(SettingKeys.ExportMaxRetries));
    const confirmed = await ctx.phase('confirm', () => confirmExports(ctx, store, schema, maxRetries));
    // Only a completed import moves the watermark: a failed or cancelled one leaves it for the next run.
    await store.saveWatermark(session.watermark());
    await store.end();

    const c = ctx.counters;
    const what =
      ctx.info.runType === RunType.DeltaImport
        ? mode === 'Delta'
          ? 'Delta import'
          : 'Delta import (run as a full import)'
        : 'Full import';
    return (
      `${what} of "${system.name}": ${ctx.processed} objects read, ${c.totalAdded} added, ${c.totalUpdated} updated, ${c.totalDeleted} deleted, ` +
      `${c.totalErrors} errors.${confirmed ? ` ${confirmed} export(s) confirmed.` : ''}`
    );
  }

  /** Delta only with a connector that can and a saved watermark (DOMAIN.md §2.1 rule 7); otherwise full, with a warning. */
  private mode(ctx: RunContext, system: ConnectedSystemEntity, capabilities: ConnectorCapabilities): ImportMode {
    if (ctx.info.runType !== RunType.DeltaImport) return 'Full';
    if (!capabilities.deltaImport) {
      ctx.warn(
        `The ${system.connectorType} connector of "${system.name}" cannot import changes only, so this delta import ran as a full import.`,
      );
      return 'Full';
    }
    if (!system.deltaWatermark) {
      ctx.warn(
        `"${system.name}" has no delta watermark yet (no import has completed since delta import became possible), so this delta import ran as a full ` +
          'import; the next delta import starts from the watermark it saved.',
      );
      return 'Full';
    }
    return 'Delta';
  }

  /**
   * Reads and writes every page; returns the number of objects with a selected type and an external ID.
   * The next page is read from the connector and prepared while the current one is written, so the
   * connector's work (parsing, converting, hashing) overlaps with the database's; at most two pages are held.
   */
  private async importPages(
    ctx: RunContext,
    store: ImportStore,
    schema: SystemSchema,
    session: ImportSession,
    connectorContext: ConnectorContext,
  ): Promise<{ identified: number; metNormal: number }> {
    const preparer = new ImportPagePreparer(schema);
    const references = WriteTimeReferences.of(schema);
    const pages = session.pages()[Symbol.asyncIterator]();
    const read = async (): Promise<{ prepared: PreparedPage; read: number } | null> => {
      const next: IteratorResult<ImportPage> = await this.fromConnector(schema.system, connectorContext, () => pages.next());
      if (next.done) return null;
      return { prepared: preparer.prepare(next.value), read: next.value.objects.length + next.value.errors.length };
    };
    let identified = 0;
    let metNormal = 0;
    let finished = false;
    let ahead: Promise<{ prepared: PreparedPage; read: number } | null> | null = null;
    try {
      ahead = read();
      for (;;) {
        const page = await ahead;
        ahead = null;
        if (!page) break;
        // Read ahead from the next turn of the event loop: by then this page's first statement is on its
        // way, so a connector that makes a page in one synchronous stretch does not hold up the database.
        ahead = new Promise<void>((resolve) => setImmediate(resolve)).then(read);
        ahead.catch(() => undefined); // awaited on the next turn (or settled below when the run stops)
        identified += page.prepared.identified;
        metNormal += await this.writePage(ctx, store, preparer, schema, page.prepared, references);
        ctx.say(`Importing "${schema.system.name}": ${ctx.processed + page.read} object(s) read.`);
        await ctx.pageDone(page.read);
      }
      finished = true;
    } finally {
      // Stopped early (cancelled or failed): let the connector release what it holds (files, connections).
      if (!finished) {
        await ahead?.catch(() => undefined);
        await pages.return?.(undefined).catch(() => undefined);
      }
    }
    return { identified, metNormal };
  }

  /**
   * One page: its keys are claimed and its objects looked up (one statement); keys met on an earlier page
   * are duplicates (their earlier write is undone, see ImportStore.rejectDuplicates), the rest is
   * written. The page's writes are atomic: one statement, or one transaction when there are several (a
   * page that changed nothing costs the claim alone). Items and counters follow once the page is written.
   * Returns how many `Normal` objects of the connector space the page met for the first time in the run.
   */
  private async writePage(
    ctx: RunContext,
    store: ImportStore,
    preparer: ImportPagePreparer,
    schema: SystemSchema,
    prepared: PreparedPage,
    references: WriteTimeReferences | null,
  ): Promise<number> {
    const keyOf = (o: { objectTypeId: number; externalId: string }) => importKey(o.objectTypeId, o.externalId);
    const keys: ImportClaimKey[] = [
      ...prepared.accepted.map((o): ImportClaimKey => ({
        objectTypeId: o.type.id,
        externalId: o.externalId,
        kind: o.change === 'Delete' ? 'Delete' : 'Upsert',
        // Without a fingerprint, the hash of the values: an object last stored under a fingerprint (the
        // connector stopped giving them) is then recognised by its values, not rewritten.
        hash: o.fingerprint ?? o.input.content?.hash ?? null,
      })),
      ...prepared.duplicateKeys.map((k): ImportClaimKey => ({ ...k, kind: 'Duplicate' })),
    ];
    const claim = await store.claim(keys);
    const repeated = new Set(claim.repeated.map((i) => keyOf(keys[i])));
    const upserts: ConnectorSpaceObjectInput[] = [];
    const existing: Array<ExistingConnectorSpaceObject | undefined> = [];
    const deletes: ImportSeenKey[] = [];
    const written: WrittenObject[] = [];
    let unchanged = 0;
    let metNormal = 0;
    prepared.accepted.forEach((o, i) => {
      if (repeated.size && repeated.has(keyOf(keys[i]))) return;
      const found = claim.existing[i];
      if (found?.status === ConnectorSpaceObjectStatus.Normal) metNormal++;
      if (o.change === 'Delete') {
        written.push({ object: o, csoId: null, outcome: null });
        deletes.push({ objectTypeId: o.type.id, externalId: o.externalId });
        return;
      }
      // The same source record as stored, under the same schema and settings: nothing to convert or compare.
      if (found?.status === ConnectorSpaceObjectStatus.Normal && o.fingerprint !== null && found.hash === o.fingerprint) {
        unchanged++;
        return;
      }
      preparer.complete(o);
      written.push({ object: o, csoId: null, outcome: null });
      upserts.push(o.input);
      existing.push(found);
    });
    // Convert the next pages while they are read (overlapping the database's writes) unless most objects turn out unchanged.
    preparer.lazy = unchanged > prepared.accepted.length / 2;
    const plan = planConnectorSpaceBatch(upserts, existing);
    if (references && plan.inserts.length) await references.resolve(store, plan.inserts);
    // New objects are recorded (`Added`) by a COPY of their own; updates and deletes by their statements.
    const recordAdded = ctx.info.history.cso && plan.inserts.length > 0;
    const atomic = repeated.size > 0 || plan.statements + (deletes.length ? 1 : 0) + (recordAdded ? 1 : 0) > 1;
    const write = async (): Promise<UndoneWrites> => {
      const result: UndoneWrites = { undone: [], undoneErrors: 0 };
      if (repeated.size) {
        result.undone = (await store.earlier(claim.repeated.map((i) => keys[i]))).filter((r) => !r.duplicate);
        if (result.undone.length) {
          await store.rejectDuplicates(result.undone);
          const ids = result.undone.filter((r) => r.csoId && r.outcome).map((r) => r.csoId!);
          if (ids.length) {
            await ctx.flushItems();
            result.undoneErrors = await store.removeChangeItems(ctx.activityId, ids, Object.values(CHANGE_TYPES));
          }
        }
      }
      const changes = await store.writeObjects(plan);
      if (recordAdded) await ctx.changes.insertCsoChanges(ctx.info.history.origin, addedRecords(plan.inserts, changes));
      const obsoleted = await store.obsoleteByExternalId(deletes);
      if (changes.length || obsoleted.length) {
        const changed = new Map<string, { csoId: string; outcome: ImportOutcome }>(
          changes.map((c) => [keyOf(c), { csoId: c.id, outcome: c.inserted ? SyncOutcome.Added : SyncOutcome.Updated }]),
        );
        for (const o of obsoleted) changed.set(keyOf(o), { csoId: o.id, outcome: SyncOutcome.Deleted });
        for (const w of written) {
          const c = changed.get(importKey(w.object.type.id, w.object.externalId));
          if (c) {
            w.csoId = c.csoId;
            w.outcome = c.outcome;
          }
        }
      }
      return result;
    };
    const { undone, undoneErrors } = atomic ? await ctx.session.transaction(write, 'page') : await write();

    for (const p of prepared.problems) this.problem(ctx, p);
    ctx.counters.totalErrors -= undoneErrors;
    for (const r of undone) {
      if (r.outcome) ctx.counters[COUNTERS[r.outcome]]--;
      this.problem(
        ctx,
        duplicateProblem({
          externalId: r.externalId,
          displayName: null,
          source: null,
          type: schema.typeById(r.objectTypeId) ?? { name: '' },
        }),
      );
    }
    if (repeated.size)
      for (const object of prepared.accepted) {
        if (repeated.has(importKey(object.type.id, object.externalId))) this.problem(ctx, duplicateProblem(object));
      }
    for (const w of written) {
      if (w.outcome) ctx.counters[COUNTERS[w.outcome]]++;
      const errors = w.object.valueErrors;
      if (!w.outcome && !errors.length) continue;
      ctx.item({
        externalIdValue: w.object.externalId,
        displayName: w.object.displayName,
        objectType: w.object.type.name,
        connectedSystemObjectId: w.csoId,
        objectChangeType: w.outcome ? CHANGE_TYPES[w.outcome] : ObjectChangeType.NoChange,
        outcomes: w.outcome ? { [w.outcome]: 1 } : undefined,
        errorType: errors[0]?.errorType ?? null,
        errorMessage: errors.length ? errors.map((e) => e.message).join(' ') : null,
      });
    }
    return metNormal;
  }

  /**
   * Full import: objects of the imported types that the source no longer has become `Obsolete`, a
   * batch of the page size at a time. Safety rule: an import that returned no object obsoletes nothing.
   */
  private async obsoleteUnseen(
    ctx: RunContext,
    store: ImportStore,
    schema: SystemSchema,
    typeIds: number[],
    identified: number,
    metEveryone: boolean,
  ): Promise<void> {
    if (identified === 0) {
      ctx.warn(
        `The full import of "${schema.system.name}" returned no objects, so nothing was marked obsolete: an empty or unreadable source must not ` +
          'empty the connector space. If the source really is empty now, delete the objects from the connector space explicitly.',
      );
      return;
    }
    // Every `Normal` object held before the import was met by it: none is gone (the system's lock keeps
    // other runs from adding any meanwhile). Otherwise the connector space is searched for the others.
    if (metEveryone) return;
    ctx.say(`Marking the objects no longer in "${schema.system.name}" as obsolete.`);
    let after: string | null = null;
    for (;;) {
      const { obsoleted, last } = await store.obsoleteUnseen(typeIds, after, ctx.info.pageSize);
      for (const o of obsoleted) {
        ctx.counters.totalDeleted++;
        ctx.item({
          externalIdValue: o.externalId,
          displayName: o.displayName,
          objectType: schema.typeById(o.objectTypeId)?.name ?? null,
          connectedSystemObjectId: o.id,
          objectChangeType: ObjectChangeType.Delete,
          outcomes: { [SyncOutcome.Deleted]: 1 },
        });
      }
      if (last === null) break;
      after = last;
      await ctx.pageDone(0);
      if (obsoleted.length < ctx.info.pageSize) break;
    }
  }

  private problem(ctx: RunContext, p: ImportProblem): void {
    ctx.item({
      externalIdValue: p.externalId,
      displayName: p.displayName,
      objectType: p.objectType,
      objectChangeType: ObjectChangeType.NoChange,
      errorType: p.errorType,
      errorMessage: p.message,
    });
  }

  /** A call into the connector: its failure ends the run with the connector's message, secrets removed. */
  private async fromConnector<T>(system: ConnectedSystemEntity, connectorContext: ConnectorContext, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      if (e instanceof RunCancelledError) throw e;
      const message = this.contexts.redact(describeError(e), connectorContext, system);
      if (e instanceof DomainError) throw new DomainError(e.code, message, e.details);
      throw new Error(`The ${system.connectorType} connector failed while importing "${system.name}": ${message}`);
    }
  }
}
