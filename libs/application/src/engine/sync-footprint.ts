import type { MatchQuery, PendingExportRow, SyncCso, SyncMvo, SyncStore } from '@meridian/persistence';

/** The reads a synchronisation page makes while it decides (SyncStore's). */
export type SyncReads = Pick<
  SyncStore,
  'match' | 'metaverseObjects' | 'joinedObjects' | 'joinsOf' | 'pendingExports' | 'hasUnjoined' | 'findUnjoined' | 'referrers'
>;

/** What a written page may have changed (SyncPage.written). */
export interface WriteFootprint {
  /** Every metaverse object the page held: created, changed, deleted, joined or left, or only read. */
  mvoIds: ReadonlySet<string>;
  /** Every connector space object the page held, created or deleted, and those whose pending exports it read or wrote. */
  csoIds: ReadonlySet<string>;
  /** Systems whose objects it joined, disconnected or deleted (null: a system it could not tell). */
  joinSystems: ReadonlySet<number | null>;
  /** Metaverse objects whose lookup rows it wrote. */
  lookupsWritten: readonly string[];
  /** It joined objects of its own system outside itself (adoption by write-back). */
  touchedOthersOfSystem: boolean;
}

/**
 * The reads of a page prepared while the page before it is still being written (docs/engine.md, "Per
 * page"): they run on another session and may not see that page's writes, so every key they asked for
 * and every object they found is recorded, and the prepared page is used only if the written page
 * touched none of it (`unaffected`).
 */
export class RecordingReads implements SyncReads {
  private readonly mvoIds = new Set<string>();
  private readonly csoIds = new Set<string>();
  private readonly unjoinedSystems = new Set<number>();
  private readonly matchKeys: Array<{ attributeId: number; value: string }> = [];
  private readonly referred = new Set<string>();

  constructor(private readonly store: SyncStore) {}

  async match(queries: readonly MatchQuery[]): Promise<Array<{ index: number; objectId: string }>> {
    for (const q of queries) this.matchKeys.push({ attributeId: q.attributeId, value: q.value });
    const found = await this.store.match(queries);
    for (const f of found) this.mvoIds.add(f.objectId);
    return found;
  }

  async metaverseObjects(ids: readonly string[]): Promise<SyncMvo[]> {
    for (const id of ids) this.mvoIds.add(id);
    return this.store.metaverseObjects(ids);
  }

  async joinedObjects(metaverseObjectIds: readonly string[], except: readonly string[] = []): Promise<SyncCso[]> {
    for (const id of metaverseObjectIds) this.mvoIds.add(id);
    const found = await this.store.joinedObjects(metaverseObjectIds, except);
    for (const c of found) this.csoIds.add(c.id);
    return found;
  }

  async joinsOf(csoIds: readonly string[]): Promise<Map<string, string>> {
    for (const id of csoIds) this.csoIds.add(id);
    const found = await this.store.joinsOf(csoIds);
    for (const id of found.values()) this.mvoIds.add(id);
    return found;
  }

  async pendingExports(csoIds: readonly string[]): Promise<PendingExportRow[]> {
    for (const id of csoIds) this.csoIds.add(id);
    return this.store.pendingExports(csoIds);
  }

  async hasUnjoined(systemId: number, objectTypeId: number): Promise<boolean> {
    this.unjoinedSystems.add(systemId);
    return this.store.hasUnjoined(systemId, objectTypeId);
  }

  async findUnjoined(
    systemId: number,
    objectTypeId: number,
    attributeId: number,
    values: readonly string[],
  ): Promise<Array<SyncCso & { matched: string }>> {
    this.unjoinedSystems.add(systemId);
    const found = await this.store.findUnjoined(systemId, objectTypeId, attributeId, values);
    for (const c of found) this.csoIds.add(c.id);
    return found;
  }

  async referrers(targetIds: readonly string[]): Promise<string[]> {
    for (const id of targetIds) {
      this.referred.add(id);
      this.mvoIds.add(id);
    }
    const found = await this.store.referrers(targetIds);
    for (const id of found) this.mvoIds.add(id);
    return found;
  }

  /**
   * Whether the page (`page`, read with these reads) would have been read the same after `written`:
   * none of its objects, none of the objects it found or asked for, no unjoined object of a system it
   * searched, and no lookup row it would have found (the rows `written` added are asked of the database,
   * which normalises values as the matching does).
   */
  async unaffected(page: readonly SyncCso[], written: WriteFootprint): Promise<boolean> {
    for (const c of page) if (written.csoIds.has(c.id)) return false;
    for (const id of this.csoIds) if (written.csoIds.has(id)) return false;
    for (const id of this.mvoIds) if (written.mvoIds.has(id)) return false;
    if (this.unjoinedSystems.size) {
      if (written.joinSystems.has(null)) return false;
      for (const id of this.unjoinedSystems) if (written.joinSystems.has(id)) return false;
    }
    if (!written.lookupsWritten.length || (!this.matchKeys.length && !this.referred.size)) return true;
    return !(await this.store.findsLookups(written.lookupsWritten, this.matchKeys, [...this.referred]));
  }
}
