import { randomUUID } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import * as path from 'node:path';
import { DomainError } from '@meridian/domain';
import type { ConnectorContext, ExportChange, ExportResult, ExportSession } from '../connector.contract';
import { type CsvEvent, openCsv } from './csv-reader';
import { CsvFileWriter } from './csv-writer';
import { DigestSet } from './digest-set';
import {
  applyChanges,
  ChangeFailure,
  Columns,
  ensureColumns,
  padRow,
  PreparedChange,
  prepareChange,
  RowKeys,
  sameName,
} from './file-export-changes';
import { acquireFileLock } from './file-lock';
import { checkHeader } from './file-schema';
import type { FileSettings } from './file-settings';
import { RowSpool } from './row-spool';

/** The changes of one row that wait for the rewrite, and whether the row exists after them. */
interface PendingRow {
  changes: PreparedChange[];
  exists: boolean;
}

/** What the target was when the session read it: the rewrite is refused if it changed since. */
type Snapshot = Pick<Stats, 'dev' | 'ino' | 'size' | 'mtimeMs' | 'mode'> | null;

/**
 * Starts an export session on a CSV file (see docs/connectors/file.md): holds the in-process lock of
 * the file until commit or abort, and reads the file once, copying its rows to a spool in the same
 * directory while indexing their external IDs.
 */
export async function openFileExport(filePath: string, settings: FileSettings, ctx: ConnectorContext): Promise<ExportSession> {
  const release = await acquireFileLock(filePath);
  try {
    return await FileExportSession.open(filePath, settings, ctx, release);
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * One export run against one CSV file. The file's rows and the rows created by the run go to a spool;
 * updates and deletes wait in memory, keyed by row; commit streams the spool once into a temporary
 * file with those changes applied, flushes it to disk and renames it over the file. Whether a row
 * exists is known at write time (the spool's keys are indexed), so every result is final when write
 * returns. Until the rename the original file is untouched.
 */
class FileExportSession implements ExportSession {
  private readonly pending = new Map<string, PendingRow>();
  /** Keys of the rows in the spool. */
  private readonly spooled = new DigestSet();
  private accepted = 0;
  private state: 'open' | 'failed' | 'closed' = 'open';
  private queue: Promise<unknown> = Promise.resolve();
  private outputPath: string | null = null;

  private constructor(
    private readonly filePath: string,
    private readonly settings: FileSettings,
    private readonly ctx: ConnectorContext,
    private readonly release: () => void,
    private readonly spool: RowSpool,
    private readonly columns: Columns,
    private readonly typeColumn: number,
    private readonly keys: RowKeys,
    private readonly snapshot: Snapshot,
  ) {}

  static async open(filePath: string, settings: FileSettings, ctx: ConnectorContext, release: () => void): Promise<FileExportSession> {
    const snapshot = await statFile(filePath);
    if (snapshot && !snapshot.isFile()) throw DomainError.badRequest(`"${settings.filePath}" is not a file.`);
    const existing = snapshot
      ? await openCsv(filePath, { delimiter: settings.delimiter, quote: settings.quote, encoding: settings.nodeEncoding })
      : null;
    let spool: RowSpool | null = null;
    try {
      const header = existing ? checkHeader(existing.header, settings) : null;
      const columns = new Columns(header?.columns ?? []);
      if (settings.objectTypeColumn) columns.ensure(settings.objectTypeColumn.trim());
      // Every selected attribute gets a column, so the import that follows finds all of them.
      const fileTypes = (ctx.schema?.objectTypes ?? []).filter((t) => settings.objectTypeColumn || sameName(t.name, settings.objectType));
      for (const type of fileTypes) {
        if (type.externalIdAttribute) columns.ensure(type.externalIdAttribute);
        for (const a of type.attributes) if (!sameName(a.name, settings.objectTypeColumn)) columns.ensure(a.name);
      }
      const typeColumn = settings.objectTypeColumn ? columns.of(settings.objectTypeColumn.trim()) : -1;
      const keys = new RowKeys(ctx.schema, settings, columns, typeColumn);
      spool = await RowSpool.create(tempPath(filePath, 'rows.tmp'));
      const session = new FileExportSession(filePath, settings, ctx, release, spool, columns, typeColumn, keys, snapshot);
      if (existing) await session.spoolExisting(existing.batches, header!.columns.length);
      return session;
    } catch (error) {
      await spool?.remove().catch(() => undefined);
      throw error;
    } finally {
      await existing?.batches.return(undefined);
    }
  }

  /** Copies the file's rows to the spool, refusing a file that could not be rewritten without loss. */
  private async spoolExisting(batches: AsyncIterable<CsvEvent[]>, width: number): Promise<void> {
    for await (const batch of batches)
      for (const event of batch) {
        if (event.kind === 'error') {
          throw DomainError.badRequest(
            `The file "${this.settings.filePath}" cannot be rewritten safely: line ${event.line} is malformed (${event.message}). Fix or remove that row and export again.`,
          );
        }
        if (event.values.length !== width) {
          throw DomainError.badRequest(
            `The file "${this.settings.filePath}" cannot be rewritten safely: line ${event.line} has ${event.values.length} field(s) ` +
              `but the header has ${width}. Fix or remove that row and export again.`,
          );
        }
        const key = this.keys.ofRow(event.values);
        if (key !== null) this.spooled.add(key);
        await this.spool.append(event.values);
      }
  }

  write(batch: ExportChange[]): Promise<ExportResult[]> {
    return this.serialised(async () => {
      this.assertOpen();
      try {
        const results: ExportResult[] = [];
        for (const change of batch) results.push(await this.writeOne(change));
        await this.spool.flush();
        return results;
      } catch (error) {
        // Some rows of this batch may be spooled without their results having been returned.
        this.state = 'failed';
        throw error;
      }
    });
  }

  /** Rewrites the file when anything was accepted; ends the session whether it succeeds or not. */
  commit(): Promise<void> {
    return this.serialised(async () => {
      if (this.state === 'closed') this.assertOpen();
      try {
        if (this.state === 'failed')
          throw DomainError.conflict('The export cannot be committed because one of its writes failed; nothing was written. Export again.');
        if (this.accepted > 0) await this.rewrite();
      } finally {
        await this.finish();
      }
    });
  }

  abort(): Promise<void> {
    return this.serialised(() => this.finish());
  }

  private async writeOne(change: ExportChange): Promise<ExportResult> {
    let prepared: PreparedChange;
    try {
      prepared = prepareChange(change, this.settings, this.ctx.schema);
    } catch (error) {
      if (!(error instanceof ChangeFailure)) throw error;
      return { id: change.id, success: false, confirmed: false, externalId: change.externalId, error: error.message };
    }
    const { type, externalId } = prepared;
    const key = this.keys.of(type, externalId);
    let row = this.pending.get(key);
    const exists = row ? row.exists : this.spooled.has(key);
    if (change.changeType === 'Update' && !exists) {
      const column = this.columns.names[this.columns.of(type.externalIdAttribute!)] ?? type.externalIdAttribute;
      return {
        id: change.id,
        success: false,
        confirmed: false,
        externalId: change.externalId,
        error: `No row with ${column} = "${externalId}" to update.`,
      };
    }
    // Deleting a row that is not there succeeds: it is already gone.
    if (exists || change.changeType !== 'Delete') {
      ensureColumns(this.columns, prepared, this.settings);
      this.accepted++;
      if (change.changeType === 'Create' && !exists && !row) {
        await this.spool.append(applyChanges(null, [prepared], this.columns, this.typeColumn, this.settings)!);
        this.spooled.add(key);
      } else {
        if (!row) this.pending.set(key, (row = { changes: [], exists }));
        row.changes.push(prepared);
        row.exists = change.changeType !== 'Delete';
      }
    }
    return { id: change.id, success: true, confirmed: true, externalId, error: null };
  }

  /** Writes the new file from the spool with the pending changes applied, and renames it over the target. */
  private async rewrite(): Promise<void> {
    const output = (this.outputPath = tempPath(this.filePath, 'tmp'));
    const handle = await fsp.open(output, 'wx');
    try {
      if (this.snapshot) await handle.chmod(this.snapshot.mode & 0o7777);
      const writer = new CsvFileWriter(handle, this.settings);
      await writer.start(this.columns.names);
      const width = this.columns.names.length;
      const handled = new Set<string>();
      for await (const spooled of this.spool.rows()) {
        let row: string[] | null = padRow(spooled, width);
        const key = handled.size < this.pending.size ? this.keys.ofRow(row) : null;
        const changes = key !== null && !handled.has(key) ? this.pending.get(key) : undefined;
        if (changes) {
          handled.add(key!);
          row = applyChanges(row, changes.changes, this.columns, this.typeColumn, this.settings);
        }
        if (row) await writer.add(row);
      }
      // Every pending row was in the spool when its first change came, unless its key matched the
      // index by chance: a Create of it is still written, an Update of it stops the commit.
      for (const [key, changes] of this.pending) {
        if (handled.has(key)) continue;
        const row = applyChanges(null, changes.changes, this.columns, this.typeColumn, this.settings);
        if (row) await writer.add(row);
      }
      await writer.flush();
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!sameFile(this.snapshot, await statFile(this.filePath))) {
      throw DomainError.conflict(
        `The file "${this.settings.filePath}" was changed by something else during the export; it was left as it is. Export again.`,
      );
    }
    await fsp.rename(output, this.filePath);
    this.outputPath = null;
    await syncDirectory(path.dirname(this.filePath));
  }

  /** Ends the session: removes what is left of the temporary files and releases the lock. */
  private async finish(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    try {
      if (this.outputPath) await fsp.rm(this.outputPath, { force: true }).catch(() => undefined);
      await this.spool.remove().catch(() => undefined);
    } finally {
      this.release();
    }
  }

  private assertOpen(): void {
    if (this.state === 'failed') throw DomainError.conflict('A write of this export session failed; abort it and export again.');
    if (this.state !== 'open') throw DomainError.conflict('This export session has already been committed or aborted.');
  }

  /** Runs calls one at a time in call order, so overlapping calls cannot interleave their rows. */
  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function tempPath(filePath: string, suffix: string): string {
  return path.join(path.dirname(filePath), `.${path.basename(filePath)}.${process.pid}.${randomUUID()}.${suffix}`);
}

async function statFile(filePath: string): Promise<Stats | null> {
  try {
    return await fsp.stat(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function sameFile(before: Snapshot, now: Snapshot): boolean {
  if (!before || !now) return before === now;
  return before.dev === now.dev && before.ino === now.ino && before.size === now.size && before.mtimeMs === now.mtimeMs;
}

/** Makes the rename durable (best effort: not every platform lets a directory be opened for fsync). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fsp.FileHandle | null = null;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // ignored: the data itself was synced before the rename
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
