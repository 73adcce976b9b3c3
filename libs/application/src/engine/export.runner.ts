import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ConnectorRegistry, ExportResult, ExportSession } from '@meridian/connectors';
import {
  DomainError,
  ExecutionErrorType,
  formatOutcomeSummary,
  ObjectChangeType,
  PendingExportChangeType,
  RunType,
  SettingKeys,
  SyncOutcome,
} from '@meridian/domain';
import {
  BulkSession,
  ChangeOrigin,
  ConnectedSystemEntity,
  ExportApplySummary,
  ExportItemCounts,
  ExportPageRow,
  ExportStore,
  StagedExportResult,
} from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { describeError } from '../connected-systems/connected-system-schema.service';
import { ConnectorContextFactory } from '../connected-systems/connector-context.factory';
import { SettingsService } from '../settings/settings.service';
import { addedAttributeChanges } from './cso-changes';
import { EngineRunner } from './engine-runner';
import { PreparedExport, prepareExport, referencedMetaverseObjects, referenceIdentifiers } from './export-changes';
import { RunCancelledError, RunContext } from './run-context';
import { SystemSchema } from './system-schema';

/** What one run wrote, beyond what the apply step counts. */
interface ExportTally {
  /** Exports written (or left as they are) with references held back for a later export. */
  deferred: number;
  /** Exports read (and their results staged) so far, and the last of them. */
  staged: number;
  lastId: string | null;
  /** Each part the results are applied in, in order: its last pending export id and the exports staged up to it. */
  parts: Array<{ upTo: string; staged: number }>;
}

/** Exports staged before the current part. */
const partStart = (tally: ExportTally): number => tally.parts.at(-1)?.staged ?? 0;

/** Notes a staged page; the current part ends once it holds `partSize` exports. */
function notePage(tally: ExportTally, lastId: string, count: number, partSize: number): void {
  tally.staged += count;
  tally.lastId = lastId;
  if (tally.staged - partStart(tally) >= partSize) closePart(tally);
}

/** Ends the current part at the last export staged (nothing when it holds none). */
function closePart(tally: ExportTally): void {
  if (tally.lastId && tally.staged > partStart(tally)) tally.parts.push({ upTo: tally.lastId, staged: tally.staged });
}

/**
 * The results of a run are applied in parts of at most this many pages, each part in its own
 * transaction (docs/engine.md, "Applying results"): every statement of the apply joins a part of bounded
 * size, whatever the size of the run.
 */
export const APPLY_PART_PAGES = 20;

/**
 * The results of a run are staged on, and applied by, this many database sessions, the parts in turn
 * (docs/engine.md, "Applying results"): while the results are applied the worker only waits, so two
 * parts are applied at once, one per database core.
 */
export const APPLY_LANES = 2;

/**
 * The database sessions a run stages its results on and applies them by: part n on lane n mod
 * APPLY_LANES. The first is the run's own session; the others are opened when their first part begins
 * (a run of one part uses one session) and released with `release`. When the pool has no session to
 * spare, the run keeps the lanes it has (at least its own).
 */
class ApplyLanes {
  readonly stores: ExportStore[];
  private readonly opened: BulkSession[] = [];
  private full = false;

  constructor(
    private readonly ds: DataSource,
    first: ExportStore,
    private readonly changeOrigin: ChangeOrigin | null,
    private readonly logger: Logger,
    private readonly activityId: string,
  ) {
    this.stores = [first];
  }

  /** The store of part `part`'s lane, its results table prepared. */
  async of(part: number): Promise<ExportStore> {
    if (!this.full && part === this.stores.length && part < APPLY_LANES) {
      let session: BulkSession | null = null;
      try {
        session = await BulkSession.open(this.ds);
        const store = new ExportStore(session, this.changeOrigin);
        await store.prepare();
        this.opened.push(session);
        this.stores.push(store);
      } catch (e) {
        session?.release(e);
        this.full = true;
        this.logger.log({
          level: 'information',
          message: `No second database session for this export's results (${describeError(e)}); they are recorded on one.`,
          activityId: this.activityId,
        });
      }
    }
    return this.stores[part % this.stores.length];
  }

  release(): void {
    for (const session of this.opened.splice(0)) session.release();
  }
}

/**
 * Export (DOMAIN.md §2.3, docs/engine.md "Export"): one connector session per run. Due pending exports
 * are read in keyset pages, each page written as one batch; the results are staged in the database and
 * applied set-based only once the connector committed, in parts of bounded size, each in its own
 * transaction, so a crash at any point leaves the exports not yet recorded pending and the next run
 * re-sends them (connectors treat a repeated change as the same change). A cancelled run commits what it
 * wrote, applies it, then ends `Cancelled`.
 */
@Injectable()
export class ExportRunner implements EngineRunner {
  readonly runTypes = [RunType.Export] as const;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly registry: ConnectorRegistry,
    private readonly contexts: ConnectorContextFactory,
    private readonly settings: SettingsService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(ctx: RunContext, system: ConnectedSystemEntity): Promise<string> {
    const connector = this.registry.require(system.connectorType);
    const capabilities = connector.effectiveCapabilities?.(system.settings) ?? connector.capabilities;
    if (!capabilities.export)
      throw DomainError.badRequest(`Connected system "${system.name}" cannot export with its current settings (${connector.displayName}).`);
    const schema = await ctx.phase('schema', () => SystemSchema.load(this.ds.manager, system));
    const maxAttempts = Math.max(1, Number(await this.settings.effective(SettingKeys.ExportMaxRetries)) || 1);
    const { history } = ctx.info;
    const changeOrigin = history.cso ? history.origin : null;
    const store = new ExportStore(ctx.session, changeOrigin);
    const tally: ExportTally = { deferred: 0, staged: 0, lastId: null, parts: [] };

    ctx.toProcess = await store.countDue(system.id);
    if (!ctx.toProcess) return closingMessage(system.name, null, tally);
    ctx.say(`Export to "${system.name}": ${ctx.toProcess} pending export(s) to write.`);
    const connectorContext = await this.contexts.build(system, { filePathOverride: ctx.info.filePath });
    connectorContext.schema = schema.toSelectedSchema();
    const redact = (message: string) => this.contexts.redact(message, connectorContext, system);

    await store.prepare();
    // Each part's results are staged on the session of its lane, which applies them.
    const lanes = new ApplyLanes(this.ds, store, changeOrigin, this.logger, ctx.activityId);
    try {
      const session = await ctx
        .phase('connect', () => connector.openExport(connectorContext))
        .catch((e: unknown) => {
          throw connectorFailure(e, `Export to "${system.name}" could not start`, redact);
        });
      let cancelled: RunCancelledError | null = null;
      // The next page is read while the current one is prepared and written (the query runs in the database
      // while the worker builds the batch): at most two pages are held.
      const read = (after: string | null) => ctx.phase('read', () => store.page(system.id, after, ctx.info.pageSize));
      let ahead: Promise<ExportPageRow[]> | null = read(null);
      try {
        for (;;) {
          const rows: ExportPageRow[] = await ahead!;
          ahead = null;
          if (!rows.length) break;
          if (rows.length === ctx.info.pageSize) {
            ahead = read(rows[rows.length - 1].id);
            ahead.catch(() => undefined); // awaited on the next turn, or settled below when the run stops
          }
          await this.exportPage(
            ctx,
            store,
            await lanes.of(tally.parts.length),
            session,
            schema,
            rows,
            capabilities.autoConfirmExport,
            tally,
            redact,
          );
          notePage(tally, rows[rows.length - 1].id, rows.length, ctx.info.pageSize * APPLY_PART_PAGES);
          ctx.say(`Export to "${system.name}": ${ctx.processed + rows.length} of ${ctx.toProcess} pending export(s) written.`);
          try {
            await ctx.pageDone(rows.length);
          } catch (e) {
            if (!(e instanceof RunCancelledError)) throw e;
            cancelled = e;
            break;
          }
          if (rows.length < ctx.info.pageSize) break;
        }
        await ahead?.catch(() => undefined);
        ahead = null;
        closePart(tally);
        await ctx.phase('commit', () => session.commit());
      } catch (e) {
        await ahead?.catch(() => undefined);
        await session.abort().catch(() => undefined);
        throw connectorFailure(e, `Export to "${system.name}" failed; nothing was recorded and every export stays pending`, redact);
      }

      const summary = await ctx.phase('apply', () => this.applyParts(ctx, lanes.stores, system, maxAttempts, tally));
      for (const lane of lanes.stores) await lane.clear();
      if (cancelled) throw cancelled;
      return closingMessage(system.name, summary, tally);
    } finally {
      lanes.release();
    }
  }

  /**
   * Applies the staged results part by part, each part in its own transaction with its execution items,
   * on the session it was staged on: the lanes apply their parts at the same time (docs/engine.md,
   * "Applying results"). A part that fails stops the lanes from starting others; once they are idle the
   * parts not recorded are applied one after the other (so a part that failed only because another lane
   * held what it needed, such as the same new external ID, is recorded then). A part that fails again
   * stops the run: the parts recorded are counted, its exports and the others not recorded stay pending,
   * and the next export sends them again.
   */
  private async applyParts(
    ctx: RunContext,
    stores: readonly ExportStore[],
    system: ConnectedSystemEntity,
    maxAttempts: number,
    tally: ExportTally,
  ): Promise<ExportApplySummary> {
    const total = emptySummary();
    const { parts } = tally;
    const recorded = new Set<number>();
    const recordedExports = () => [...recorded].reduce((n, i) => n + parts[i].staged - (i ? parts[i - 1].staged : 0), 0);
    // Items buffered by the run are written before its parts' (each part writes its own from its table).
    await ctx.flushItems();
    const apply = async (index: number): Promise<void> => {
      const store = stores[index % stores.length];
      const { applied, items } = await store.session.transaction(async () => {
        const summary = await store.apply(system.id, maxAttempts, index ? parts[index - 1].upTo : null, parts[index].upTo);
        return { applied: summary, items: await this.recordItems(ctx, store, maxAttempts) };
      }, 'page');
      ctx.countWrittenItems({ [SyncOutcome.Exported]: items.exported, [SyncOutcome.Deprovisioned]: items.deprovisioned }, items.failed);
      addSummary(total, applied);
      recorded.add(index);
    };
    const progress = async (): Promise<void> => {
      if (recorded.size === parts.length) return;
      ctx.say(`Export to "${system.name}": the results of ${recordedExports()} of ${tally.staged} pending export(s) recorded.`);
      await ctx.reportProgress();
    };
    let failed = false;
    await Promise.all(
      stores.map(async (_, lane) => {
        for (let index = lane; index < parts.length && !failed; index += stores.length) {
          try {
            await apply(index);
            // The run's progress goes through the first lane's session, between its transactions.
            if (lane === 0) await progress();
          } catch (e) {
            failed = true; // the parts not recorded are applied again below, one after the other
            this.logger.log({
              level: 'information',
              message:
                `Export to "${system.name}": recording part ${index + 1} of ${parts.length} of the results failed (${describeError(e)}); ` +
                'the parts not recorded are applied again, one after the other, once the other lane is idle.',
              activityId: ctx.activityId,
            });
          }
        }
      }),
    );
    try {
      for (let index = 0; failed && index < parts.length; index++) {
        if (recorded.has(index)) continue;
        await apply(index);
        await progress();
      }
    } catch (e) {
      this.report(ctx, system, total, tally);
      throw new Error(
        recorded.size
          ? `Export to "${system.name}" was written, but only the results of ${recordedExports()} of ${tally.staged} pending export(s) could be ` +
              `recorded (${describeError(e)}); the others stay pending and the next export sends the same changes again.`
          : `Export to "${system.name}" was written, but its results could not be recorded (${describeError(e)}); ` +
              'every export stays pending and the next export sends the same changes again.',
      );
    }
    this.report(ctx, system, total, tally);
    return total;
  }

  /** Builds the page's changes, writes them as one batch and stages the results on `stageOn` (never applies them). */
  private async exportPage(
    ctx: RunContext,
    store: ExportStore,
    stageOn: ExportStore,
    session: ExportSession,
    schema: SystemSchema,
    rows: ExportPageRow[],
    autoConfirm: boolean,
    tally: ExportTally,
    redact: (message: string) => string,
  ): Promise<void> {
    const mvIds = referencedMetaverseObjects(rows);
    const references = referenceIdentifiers(mvIds.length ? await store.referenceTargets(schema.system.id, mvIds) : [], schema);
    const prepared = rows.map((row) => prepareExport(row, schema, references));
    const batch = prepared.flatMap((p) => (p.change ? [p.change] : []));
    const results = new Map<string, ExportResult>();
    if (batch.length) {
      for (const r of await ctx.phase('write', () => session.write(batch))) results.set(r.id, r);
    }
    const staged: StagedExportResult[] = [];
    for (const p of prepared) {
      if (p.local) staged.push(stagedResult(p, p.local.success, true, null, p.local.success ? null : p.local.error));
      else if (p.change) {
        const r = results.get(p.change.id);
        if (!r) staged.push(stagedResult(p, false, false, null, 'The connector returned no result for this change.'));
        else if (r.success) staged.push(stagedResult(p, true, r.confirmed ?? autoConfirm, r.externalId ?? null, null));
        else staged.push(stagedResult(p, false, false, null, redact(r.error || 'The connector reported a failure without a message.')));
      }
    }
    if (ctx.info.history.cso) {
      for (const r of staged) if (r.success && r.changeType === PendingExportChangeType.Create) r.addedChanges = addedChangesJson(r);
    }
    tally.deferred +=
      prepared.filter((p) => p.deferred.length && !p.change && !p.local).length + staged.filter((r) => r.success && r.deferred).length;
    await stageOn.stage(staged);
  }

  /**
   * Execution items of the applied results, written by the database from the results table (one
   * statement, nothing read back; ordered as the exports were): `Export` / `Exported:1`, `Deprovision` /
   * `Deprovisioned:1`, and a `ConnectorError` for each export that gave up.
   */
  private async recordItems(ctx: RunContext, store: ExportStore, maxAttempts: number): Promise<ExportItemCounts> {
    return store.insertItems(ctx.activityId, maxAttempts, {
      exportChange: ObjectChangeType.Export,
      deprovisionChange: ObjectChangeType.Deprovision,
      failedErrorType: ExecutionErrorType.ConnectorError,
      exportedSummary: formatOutcomeSummary({ [SyncOutcome.Exported]: 1 })!,
      deprovisionedSummary: formatOutcomeSummary({ [SyncOutcome.Deprovisioned]: 1 })!,
    });
  }

  private report(ctx: RunContext, system: ConnectedSystemEntity, s: ExportApplySummary, tally: ExportTally): void {
    ctx.counters.totalExported += s.created + s.updated + s.deleted;
    ctx.counters.totalDeprovisioned += s.deleted;
    if (tally.deferred) {
      ctx.warn(
        `${tally.deferred} export(s) to "${system.name}" refer to objects that have no identifier in "${system.name}" yet: everything else was ` +
          'written, and those references stay pending for the next export.',
      );
    }
    if (s.retrying) {
      ctx.warn(
        `${s.retrying} export(s) to "${system.name}" failed and will be retried later (first error: ${s.firstRetryError ?? 'no message'}).`,
      );
    }
    if (s.superseded) {
      this.logger.log({
        level: 'information',
        message:
          `Export to "${system.name}": ${s.superseded} export(s) changed by a synchronisation while being written; ` +
          'they stay pending with their new content.',
        activityId: ctx.activityId,
      });
    }
  }
}

function stagedResult(
  p: PreparedExport,
  success: boolean,
  confirmed: boolean,
  externalId: string | null,
  error: string | null,
): StagedExportResult {
  const { row } = p;
  return {
    pendingExportId: row.id,
    csoId: row.csoId,
    changeType: row.changeType,
    fingerprint: row.fingerprint,
    errorCount: row.errorCount,
    objectTypeId: row.objectTypeId,
    objectType: p.objectType,
    displayName: row.displayName,
    metaverseObjectId: row.metaverseObjectId,
    empty: row.empty,
    success,
    confirmed,
    externalId: success ? (externalId ?? p.externalIdValue ?? row.externalId) : row.externalId,
    secondaryExternalId: success ? p.secondaryExternalId : null,
    error,
    sent: p.sent,
    deferred: p.deferred.length ? p.deferred : null,
    attributesSet: p.attributesSet,
    attributesUnset: p.attributesUnset,
    referencesSet: p.referencesSet,
    referencesUnset: p.referencesUnset,
  };
}

/** The `Added` record of a create, as JSON text: every attribute the object holds once written, from no values to its values. */
function addedChangesJson(r: StagedExportResult): string {
  return JSON.stringify(addedAttributeChanges(r.attributesSet, r.attributesUnset.length ? new Set(r.attributesUnset) : undefined));
}

function closingMessage(systemName: string, s: ExportApplySummary | null, tally: ExportTally): string {
  const created = s?.created ?? 0;
  const updated = s?.updated ?? 0;
  const deleted = s?.deleted ?? 0;
  const superseded = s?.superseded ? ` ${s.superseded} changed during the export and stay pending with their new content.` : '';
  return (
    `Export to "${systemName}": ${created + updated + deleted} exported (${created} created, ${updated} updated, ${deleted} deleted), ` +
    `${s?.failed ?? 0} failed, ${tally.deferred} deferred.${superseded}`
  );
}

/** A connector failure that fails the run, with secrets removed from its message. */
function connectorFailure(e: unknown, what: string, redact: (message: string) => string): Error {
  if (e instanceof RunCancelledError) return e;
  const reason = redact(describeError(e));
  if (e instanceof DomainError) return new DomainError(e.code, `${what}: ${reason}`, e.details);
  return new Error(`${what}: ${reason}`);
}

function emptySummary(): ExportApplySummary {
  return { created: 0, updated: 0, deleted: 0, failed: 0, gaveUp: 0, retrying: 0, firstRetryError: null, superseded: 0, conflicts: 0 };
}

/** Adds the summary of one part to the run's. */
function addSummary(total: ExportApplySummary, part: ExportApplySummary): void {
  total.created += part.created;
  total.updated += part.updated;
  total.deleted += part.deleted;
  total.failed += part.failed;
  total.gaveUp += part.gaveUp;
  total.retrying += part.retrying;
  total.firstRetryError ??= part.firstRetryError;
  total.superseded += part.superseded;
  total.conflicts += part.conflicts;
}
