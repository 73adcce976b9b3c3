import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RunType } from '@meridian/domain';
import { BulkSession, ConnectedSystemEntity, SyncCso, SyncStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { EngineRunner } from './engine-runner';
import { RunContext } from './run-context';
import { SyncConfiguration } from './sync-configuration';
import { SyncPage } from './sync-page';

/**
 * Full and delta synchronisation (DOMAIN.md §2.2). Walks the connector space of one system in keyset
 * pages (all objects, or only those an import flagged), each page decided in memory and written in one
 * transaction with its execution items, so a crash or cancellation leaves whole pages and the next run
 * continues from what was committed. References to objects joined later in the same run are retried in
 * one more pass at the end.
 */
@Injectable()
export class SyncRunner implements EngineRunner {
  readonly runTypes = [RunType.FullSynchronisation, RunType.DeltaSynchronisation] as const;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(ctx: RunContext, system: ConnectedSystemEntity): Promise<string> {
    const store = new SyncStore(ctx.session);
    const cfg = await ctx.phase('configuration', () => SyncConfiguration.load(this.ds.manager));
    await cfg.addSchema(this.ds.manager, system);
    let full = ctx.info.runType === RunType.FullSynchronisation;
    if (!full && system.fullSyncRequired) {
      full = true;
      ctx.warn(
        `The sync rules or schema of "${system.name}" changed since its last full synchronisation, so this delta synchronisation ran as a full one.`,
      );
    }
    ctx.toProcess = await store.countToProcess(system.id, !full);
    ctx.say(`${full ? 'Full' : 'Delta'} synchronisation of "${system.name}": ${ctx.toProcess} object(s) to process.`);

    // The next page is read on a second connection while the current one is processed and written, so
    // reading and writing overlap (the two run on different database cores).
    const reader = await BulkSession.open(this.ds);
    const readAhead = new SyncStore(reader);
    let inFlight: Promise<unknown> = Promise.resolve();
    const pass = async (deltaOnly: boolean, allowDefer: boolean): Promise<number> => {
      let deferred = 0;
      let next: Promise<SyncCso[]> | null = readAhead.page(system.id, null, ctx.info.pageSize, deltaOnly);
      while (next) {
        const page: SyncCso[] = await next;
        next = null;
        if (!page.length) break;
        const after: string = page[page.length - 1].id;
        const ahead: Promise<SyncCso[]> = readAhead.page(system.id, after, ctx.info.pageSize, deltaOnly);
        inFlight = ahead.catch(() => undefined); // awaited below (or before the reader is released)
        let reread = false;
        await ctx.phase(allowDefer ? 'synchronise' : 'references', () =>
          ctx.session.transaction(async () => {
            const syncPage = new SyncPage(cfg, store, ctx, system.id, new Date(), full, allowDefer);
            const result = await syncPage.process(page);
            deferred += result.deferred;
            // A page that joined objects of this system outside itself (adoption by write-back) may have
            // changed rows the read-ahead already holds: they are read again after the commit.
            reread = result.touchedOthersOfSystem;
            await ctx.flushItems();
          }, 'page'),
        );
        next = reread ? ahead.then((): Promise<SyncCso[]> => readAhead.page(system.id, after, ctx.info.pageSize, deltaOnly)) : ahead;
        inFlight = next.catch(() => undefined);
        await ctx.pageDone(allowDefer ? page.length : 0);
      }
      return deferred;
    };

    let deferred: number;
    try {
      deferred = await pass(!full, true);
      // Objects whose references pointed at objects joined later in this run flow them now (once).
      if (deferred) await pass(true, false);
    } finally {
      await inFlight;
      reader.release();
    }
    if (full) await store.clearFullSyncRequired(system.id);
    // The next delta synchronisation should not have to step over the flags this run cleared.
    await ctx.phase('sweep', () => store.sweepSyncFlags(system.id));
    const c = ctx.counters;
    return (
      `${full ? 'Full' : 'Delta'} synchronisation of "${system.name}": ${ctx.processed} object(s) processed, ${c.totalProjected} projected, ` +
      `${c.totalJoined} joined, ${c.totalAttributeFlows} attribute flow(s), ${c.totalDisconnected} disconnected, ${c.totalProvisioned} provisioned, ` +
      `${c.totalPendingExports} pending export(s), ${c.totalDeleted} metaverse object(s) deleted, ${c.totalErrors} error(s).`
    );
  }
}
