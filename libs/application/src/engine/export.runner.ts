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
import { ConnectedSystemEntity, ExportApplySummary, ExportPageRow, ExportStore, StagedExportResult } from '@meridian/persistence';
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
}

/**
 * Export (DOMAIN.md §2.3, docs/engine.md "Export"): one connector session per run. Due pending exports
 * are read in keyset pages, each page written as one batch; the results are staged in the database and
 * applied set-based in one transaction only once the connector committed, so a crash at any point
 * leaves the exports pending and the next run re-sends them (connectors treat a repeated change as the
 * same change). A cancelled run commits what it wrote, applies it, then ends `Cancelled`.
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
    const history = ctx.info.history;
    const store = new ExportStore(ctx.session, history.cso ? history.origin : null);
    const tally: ExportTally = { deferred: 0 };

    ctx.toProcess = await store.countDue(system.id);
    if (!ctx.toProcess) return closingMessage(system.name, null, tally);
    ctx.say(`Export to "${system.name}": ${ctx.toProcess} pending export(s) to write.`);
    const connectorContext = await this.contexts.build(system, { filePathOverride: ctx.info.filePath });
    connectorContext.schema = schema.toSelectedSchema();
    const redact = (message: string) => this.contexts.redact(message, connectorContext, system);

    await store.prepare();
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
        await this.exportPage(ctx, store, session, schema, rows, capabilities.autoConfirmExport, tally, redact);
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
      await ctx.phase('commit', () => session.commit());
    } catch (e) {
      await ahead?.catch(() => undefined);
      await session.abort().catch(() => undefined);
      throw connectorFailure(e, `Export to "${system.name}" failed; nothing was recorded and every export stays pending`, redact);
    }

    const summary = await ctx
      .phase('apply', () =>
        ctx.session.transaction(async () => {
          const applied = await store.apply(system.id, maxAttempts);
          await this.recordItems(ctx, store, maxAttempts);
          return applied;
        }, 'page'),
      )
      .catch((e: unknown) => {
        throw new Error(
          `Export to "${system.name}" was written, but its results could not be recorded (${describeError(e)}); ` +
            'every export stays pending and the next export sends the same changes again.',
        );
      });
    await store.clear();
    this.report(ctx, system, summary, tally);
    if (cancelled) throw cancelled;
    return closingMessage(system.name, summary, tally);
  }

  /** Builds the page's changes, writes them as one batch and stages the results (never applies them). */
  private async exportPage(
    ctx: RunContext,
    store: ExportStore,
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
    await store.stage(staged);
  }

  /**
   * Execution items of the applied results, written by the database from the results table (one
   * statement, nothing read back; ordered as the exports were): `Export` / `Exported:1`, `Deprovision` /
   * `Deprovisioned:1`, and a `ConnectorError` for each export that gave up.
   */
  private async recordItems(ctx: RunContext, store: ExportStore, maxAttempts: number): Promise<void> {
    await ctx.flushItems();
    const written = await store.insertItems(ctx.activityId, maxAttempts, {
      exportChange: ObjectChangeType.Export,
      deprovisionChange: ObjectChangeType.Deprovision,
      failedErrorType: ExecutionErrorType.ConnectorError,
      exportedSummary: formatOutcomeSummary({ [SyncOutcome.Exported]: 1 })!,
      deprovisionedSummary: formatOutcomeSummary({ [SyncOutcome.Deprovisioned]: 1 })!,
    });
    ctx.countWrittenItems({ [SyncOutcome.Exported]: written.exported, [SyncOutcome.Deprovisioned]: written.deprovisioned }, written.failed);
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
  const unset = new Set(r.attributesUnset);
  return JSON.stringify(addedAttributeChanges(Object.fromEntries(Object.entries(r.attributesSet).filter(([k]) => !unset.has(k)))));
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
