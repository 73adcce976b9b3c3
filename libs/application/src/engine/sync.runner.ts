import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RunType } from '@meridian/domain';
import { BulkSession, ConnectedSystemEntity, SyncCso, SyncStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { EngineRunner } from './engine-runner';
import { RunContext } from './run-context';
import { SyncConfiguration } from './sync-configuration';
import { RecordingReads, WriteFootprint } from './sync-footprint';
import { SyncPage } from './sync-page';

/** A page read and decided, not yet written. */
interface Decided {
  page: SyncCso[];
  reads: RecordingReads;
  syncPage: SyncPage;
}

/**
 * Whether what was decided (null: no page after the last one written) still holds after `written`. A page
 * that joined objects of its own system outside itself may have changed rows of the pages after it, which
 * are then read again.
 */
async function unaffected(decided: Decided | null, written: WriteFootprint): Promise<boolean> {
  if (written.touchedOthersOfSystem) return false;
  return !decided || decided.reads.unaffected(decided.page, written);
}

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

    // Pages overlap (docs/engine.md, "Per page"): while a page is written on the run's session, the next
    // one is read and decided on a second connection, and used only if the written page changed nothing it
    // read; otherwise it is read and decided again once that page is committed. The worker decides one
    // page while the database writes the other.
    const reader = await BulkSession.open(this.ds);
    ctx.countStatementsOf(reader);
    const readStore = new SyncStore(reader);
    let next: Promise<Decided | null> = Promise.resolve(null);
    const pass = async (deltaOnly: boolean, allowDefer: boolean): Promise<number> => {
      const readPage = (after: string | null) => readStore.page(system.id, after, ctx.info.pageSize, deltaOnly);
      const decide = async (page: SyncCso[]): Promise<Decided | null> => {
        if (!page.length) return null;
        const reads = new RecordingReads(readStore);
        const syncPage = new SyncPage(cfg, store, ctx, system.id, new Date(), full, allowDefer, reads);
        await syncPage.prepare(page);
        return { page, reads, syncPage };
      };
      let deferred = 0;
      // The last object of the pages written; what the page written while `next` was decided changed (null:
      // `next` was decided with nothing in flight); pages written, and pages decided again.
      let after: string | null = null;
      let written: WriteFootprint | null = null;
      let pages = 0;
      let redecided = 0;
      next = readPage(null).then(decide);
      for (;;) {
        // undefined: deciding failed while the page before was being written (it is decided again below).
        let decided: Decided | null | undefined = await next.catch((e: unknown) => {
          if (!written) throw e;
          return undefined;
        });
        if (written && (decided === undefined || !(await unaffected(decided, written)))) {
          redecided++;
          decided = await decide(await readPage(after));
        }
        if (!decided) break;
        pages++;
        const { page, syncPage } = decided;
        const last = page[page.length - 1].id;
        const writing = ctx.session.transaction(async () => {
          const kept = await syncPage.commit(page);
          await ctx.flushItems();
          return kept;
        }, 'page');
        const readNext = () => (page.length < ctx.info.pageSize ? Promise.resolve(null) : readPage(last).then(decide));
        // Deciding ahead pays while what it decides is kept: when most pages had to be decided again (their
        // objects refer to objects of the page before them, say), the next one is decided after the write.
        const ahead = redecided < 3 || redecided * 2 <= pages;
        next = ahead ? readNext() : writing.then(readNext);
        next.catch(() => undefined); // examined on the next turn, or settled when the run stops
        try {
          deferred += await writing;
          written = ahead ? syncPage.written(page) : null;
          after = last;
          await ctx.pageDone(allowDefer ? page.length : 0);
        } catch (e) {
          await next.catch(() => undefined);
          throw e;
        }
      }
      return deferred;
    };

    let deferred: number;
    try {
      deferred = await ctx.phase('synchronise', () => pass(!full, true));
      // Objects whose references pointed at objects joined later in this run flow them now (once).
      if (deferred) await ctx.phase('references', () => pass(true, false));
    } finally {
      await next.catch(() => undefined);
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
