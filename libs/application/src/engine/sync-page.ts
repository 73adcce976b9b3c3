import {
  AttributeDataType,
  computeMetaverseAttributes,
  MetaverseObjectOrigin,
  OutboundDeprovisionAction,
  ConnectorSpaceObjectStatus,
  Contributor,
  decideDeletion,
  displayNameFrom,
  EngineAttribute,
  evaluateExport,
  evaluateScoping,
  ExecutionErrorType,
  ExportRuleDef,
  ImportRuleDef,
  InboundOutOfScopeAction,
  JoinType,
  matchingValues,
  MvoChangeType,
  ObjectChangeType,
  PendingExportChangeType,
  StoredAttributeDelta,
  StoredMetaverseAttributes,
  SyncOutcome,
  ValueView,
} from '@meridian/domain';
import {
  ChangeRecordStore,
  JoinUpdate,
  MatchQuery,
  MetaverseObjectUpdate,
  emptyCounters,
  MvoChangeRow,
  NewConnectorObject,
  NewMetaverseObject,
  NewPendingExport,
  PendingExportRow,
  QueuedWrites,
  RunCounters,
  SyncCso,
  SyncMvo,
  SyncStore,
  uuidV7,
} from '@meridian/persistence';
import { RunContext } from './run-context';
import { SyncConfiguration } from './sync-configuration';
import { SyncReads, WriteFootprint } from './sync-footprint';

interface MvoState {
  row: SyncMvo;
  isNew: boolean;
  attributes: StoredMetaverseAttributes;
  /** Joins changed in this page (a join, a projection, a disconnection). */
  joinsChanged: boolean;
  attributesChanged: boolean;
  leaving: Array<{ systemId: number; keepValues: boolean }>;
  deleted: boolean;
  /** The page object whose processing touched this metaverse object first (execution items, change records). */
  source: string | null;
  /** The connected system of `source`. */
  sourceSystemId: number | null;
  /** Joins, provisioning and disconnections in this page, in order (change records; kept only when they are tracked). */
  events: MvoEvent[];
}

/** A connector joining, provisioned for or leaving a metaverse object; `late`: during export evaluation (after attribute flow). */
interface MvoEvent {
  type: MvoChangeType.Joined | MvoChangeType.Provisioned | MvoChangeType.Disconnected;
  systemId: number;
  csoId: string;
  late: boolean;
}

interface CsoState {
  cso: SyncCso;
  rules: ImportRuleDef[];
  outcomes: Map<string, number>;
  changeType: ObjectChangeType | null;
  errors: Array<{ errorType: ExecutionErrorType; message: string }>;
  deferred: boolean;
}

/**
 * One page of a synchronisation run (DOMAIN.md §2.2): decides, in memory, what happens to every object
 * of the page and its metaverse neighbourhood, then writes the result set-based. The number of
 * statements does not depend on the number of objects in the page.
 */
export class SyncPage {
  private readonly states = new Map<string, CsoState>();
  private readonly mvos = new Map<string, MvoState>();
  private readonly joins = new Map<string, SyncCso[]>();
  private readonly csoToMvo = new Map<string, string | null>();
  private readonly joinUpdates = new Map<string, JoinUpdate>();
  private readonly deleteCsos = new Set<string>();
  private readonly newCsos: NewConnectorObject[] = [];
  private readonly newPes: NewPendingExport[] = [];
  private readonly updatedPes = new Map<
    string,
    { connectedSystemId: number; connectedSystemObjectId: string; attributeChanges: unknown[] }
  >();
  private readonly deletedPes = new Set<string>();
  private pending = new Map<string, PendingExportRow>();
  private readonly projectedKeys = new Map<string, string>();
  /** Metaverse objects that lost a connector during export evaluation: their values are recomputed before writing. */
  private readonly recallAfterExport = new Set<MvoState>();
  /** Objects given a Delete export in this page: their unexported changes are replaced by it. */
  private readonly deleteStale = new Set<string>();
  /** Metaverse change records are kept (ChangeTracking.MvoChanges.Enabled when the run started). */
  private readonly trackMvo: boolean;
  /** Export evaluation has started: joins and disconnections from now on follow the attribute flow. */
  private exporting = false;
  /** Deleted because their grace period passed (housekeeping): no connector of the page caused it. */
  private readonly expired = new Set<string>();

  /** What this page counted; added to the run's counters when the page is written (a page prepared ahead and discarded counts nothing). */
  private readonly counters: RunCounters = emptyCounters();
  /** Metaverse objects whose lookup rows the page wrote (new objects and objects whose looked-up values changed). */
  private lookupsWritten: string[] = [];

  /**
   * `store` writes (on the run's session, inside the page's transaction); `reads` serves the page's reads,
   * by default the same store. A runner preparing a page while the previous one is still being written
   * reads through a recording store on another session and validates what it read (sync-footprint.ts).
   */
  constructor(
    private readonly cfg: SyncConfiguration,
    private readonly store: SyncStore,
    private readonly ctx: RunContext,
    private readonly systemId: number,
    private readonly now: Date,
    private readonly full: boolean,
    private readonly allowDefer: boolean,
    private readonly reads: SyncReads = store,
  ) {
    this.trackMvo = ctx.info.history.mvo;
  }

  /** Decides, in memory, what happens to every object of the page (reading through `reads`); writes nothing. */
  async prepare(page: readonly SyncCso[]): Promise<void> {
    const attrs = this.cfg.schemaAttributes.get(this.systemId) ?? new Map<number, EngineAttribute>();
    const byName = this.cfg.schemaAttributesByName.get(this.systemId);
    let n = 0;
    for (const cso of page) {
      await yieldEvery(++n);
      const view = ValueView.ofConnectorObject(cso.attributes, attrs, byName);
      const rules =
        cso.status === ConnectorSpaceObjectStatus.Normal
          ? this.cfg
              .importRulesOf(this.systemId, cso.objectTypeId)
              .filter((r) => evaluateScoping(r.scoping as never, view.scoping, this.now, this.types(attrs)))
          : [];
      this.states.set(cso.id, { cso, rules, outcomes: new Map(), changeType: null, errors: [], deferred: false });
    }

    // The metaverse neighbourhood: objects joined to the page, and candidates found by the matching rules.
    const matches = await this.match(page);
    await this.load([
      ...new Set([...page.map((c) => c.metaverseObjectId).filter((x): x is string => !!x), ...[...matches.values()].flat()]),
    ]);

    for (const cso of page) {
      this.decide(cso, matches.get(cso.id));
      await yieldEvery(++n);
    }

    // Values flow into every touched metaverse object, then deletion rules, then exports.
    await this.loadReferenceJoins();
    for (const state of this.mvos.values()) {
      if (!state.deleted) this.recompute(state);
      await yieldEvery(++n);
    }
    const deleted = this.applyDeletionRules();
    if (deleted.length) {
      const referrers = (await this.reads.referrers(deleted)).filter((id) => !this.mvos.has(id));
      await this.load(referrers);
      for (const id of referrers) {
        const state = this.mvos.get(id);
        if (state) this.recompute(state, new Set(deleted));
      }
    }
    await this.evaluateExports();
    // A connector disconnected by an export rule recalls what it contributed; the change is exported by a
    // later synchronisation of that object (docs/engine.md).
    for (const mvo of this.recallAfterExport) this.recompute(mvo);
    await this.encodeWrites(page);
  }

  /**
   * Writes what `prepare` decided (call inside the page's transaction), with the page's items and counters;
   * answers the number of objects kept flagged for a later pass (references not yet joinable).
   */
  async commit(page: readonly SyncCso[]): Promise<number> {
    await this.write(page);
    this.addCounters();
    return [...this.states.values()].filter((s) => s.deferred).length;
  }

  private touchedOthersOfSystem(page: readonly SyncCso[]): boolean {
    const own = new Set(page.map((c) => c.id));
    return [...this.joinUpdates.values()].some((j) => !own.has(j.id) && this.systemOf(j.id) === this.systemId);
  }

  private addCounters(): void {
    const run = this.ctx.counters;
    for (const key of Object.keys(this.counters) as Array<keyof RunCounters>) {
      run[key] += this.counters[key];
      this.counters[key] = 0;
    }
  }

  /**
   * Everything the written page may have changed that a page prepared before it was written could have
   * read: every metaverse and connector space object it held, the systems whose unjoined objects it
   * joined, disconnected or deleted, and the objects whose lookup rows it wrote.
   */
  written(page: readonly SyncCso[]): WriteFootprint {
    const mvoIds = new Set(this.mvos.keys());
    const csoIds = new Set(page.map((c) => c.id));
    for (const list of this.joins.values()) for (const c of list) csoIds.add(c.id);
    for (const c of this.newCsos) {
      csoIds.add(c.id);
      mvoIds.add(c.metaverseObjectId);
    }
    for (const id of this.pending.keys()) csoIds.add(id);
    for (const e of [...this.newPes, ...this.updatedPes.values()]) csoIds.add(e.connectedSystemObjectId);
    const joinSystems = new Set<number | null>();
    for (const j of this.joinUpdates.values()) {
      csoIds.add(j.id);
      if (j.metaverseObjectId) mvoIds.add(j.metaverseObjectId);
      joinSystems.add(this.systemOf(j.id) ?? null);
    }
    for (const id of this.deleteCsos) {
      csoIds.add(id);
      joinSystems.add(this.systemOf(id) ?? null);
    }
    return { mvoIds, csoIds, joinSystems, lookupsWritten: this.lookupsWritten, touchedOthersOfSystem: this.touchedOthersOfSystem(page) };
  }

  /** The system of an object this page knows (its own objects and the joined neighbourhood). */
  private systemOf(csoId: string): number | undefined {
    if (this.states.has(csoId)) return this.systemId;
    for (const list of this.joins.values()) for (const c of list) if (c.id === csoId) return c.connectedSystemId;
    return undefined;
  }

  /**
   * Deletes metaverse objects whose grace period passed (housekeeping): their remaining connectors are
   * deprovisioned per the export rules, and objects referring to them lose the reference.
   */
  async deleteMetaverseObjects(ids: readonly string[]): Promise<number> {
    await this.load(ids);
    const deleted: string[] = [];
    for (const id of ids) {
      const mvo = this.mvos.get(id);
      if (!mvo || mvo.row.origin === MetaverseObjectOrigin.Internal) continue;
      mvo.deleted = true;
      deleted.push(id);
      this.expired.add(id);
      this.counters.totalDeleted++;
      for (const cso of this.joins.get(id) ?? []) this.deprovision(cso, mvo, undefined);
    }
    const referrers = (await this.reads.referrers(deleted)).filter((id) => !this.mvos.has(id));
    await this.load(referrers);
    await this.loadReferenceJoins();
    for (const id of referrers) {
      const state = this.mvos.get(id);
      if (state) this.recompute(state, new Set(deleted));
    }
    await this.evaluateExports();
    await this.write([]);
    this.addCounters();
    return deleted.length;
  }

  private readonly typeMaps = new WeakMap<ReadonlyMap<number, EngineAttribute>, Map<number, string>>();

  /** Attribute id → data type, for scoping (one map per schema). */
  private types(attrs: ReadonlyMap<number, EngineAttribute>): Map<number, string> {
    let types = this.typeMaps.get(attrs);
    if (!types) this.typeMaps.set(attrs, (types = new Map([...attrs.values()].map((a) => [a.id, a.type]))));
    return types;
  }

  /** Matching rules in order, one statement per round for the whole page; the first rule finding anything decides. */
  private async match(page: readonly SyncCso[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    const attrs = this.cfg.schemaAttributes.get(this.systemId) ?? new Map();
    const pending = page.filter((c) => !c.metaverseObjectId && this.states.get(c.id)!.rules.length);
    const plans = new Map(
      pending.map((c) => [c.id, this.states.get(c.id)!.rules.flatMap((r) => r.matchingRules.map((m) => ({ rule: r, m })))]),
    );
    const rounds = Math.max(0, ...[...plans.values()].map((p) => p.length));
    let open = pending;
    for (let round = 0; round < rounds && open.length; round++) {
      const queries: MatchQuery[] = [];
      const asked = new Set<string>();
      open.forEach((cso, index) => {
        const step = plans.get(cso.id)![round];
        if (!step) return;
        for (const value of matchingValues(step.m, (id) => cso.attributes[String(id)] ?? [], attrs)) {
          queries.push({
            index,
            attributeId: step.m.mvAttributeId,
            typeId: step.rule.mvObjectTypeId,
            value,
            caseSensitive: step.m.caseSensitive,
          });
          asked.add(cso.id);
        }
      });
      const found = await this.reads.match(queries);
      for (const f of found) {
        const cso = open[f.index];
        const list = result.get(cso.id) ?? [];
        if (!list.includes(f.objectId)) list.push(f.objectId);
        result.set(cso.id, list);
      }
      open = open.filter((c) => !result.has(c.id));
    }
    return result;
  }

  private async load(ids: readonly string[]): Promise<void> {
    const wanted = ids.filter((id) => !this.mvos.has(id));
    if (!wanted.length) return;
    for (const row of await this.reads.metaverseObjects(wanted)) {
      this.mvos.set(row.id, {
        row,
        isNew: false,
        attributes: row.attributes ?? {},
        joinsChanged: false,
        attributesChanged: false,
        leaving: [],
        deleted: false,
        source: null,
        sourceSystemId: null,
        events: [],
      });
      this.joins.set(row.id, []);
    }
    // The page's own joined objects are in hand; only the other systems' are read.
    const wantedSet = new Set(wanted);
    const inHand = [...this.states.values()].map((s) => s.cso).filter((c) => c.metaverseObjectId && wantedSet.has(c.metaverseObjectId));
    for (const cso of [
      ...inHand,
      ...(await this.reads.joinedObjects(
        wanted,
        inHand.map((c) => c.id),
      )),
    ]) {
      this.joins.get(cso.metaverseObjectId!)?.push(cso);
      this.csoToMvo.set(cso.id, cso.metaverseObjectId);
    }
  }

  private outcome(state: CsoState, outcome: SyncOutcome, n = 1): void {
    state.outcomes.set(outcome, (state.outcomes.get(outcome) ?? 0) + n);
  }

  /** The first page object whose processing touches a metaverse object is its source. */
  private touch(mvo: MvoState, cso: SyncCso): void {
    if (mvo.source !== null) return;
    mvo.source = cso.id;
    mvo.sourceSystemId = cso.connectedSystemId;
  }

  private event(mvo: MvoState, type: MvoEvent['type'], cso: SyncCso): void {
    if (this.trackMvo) mvo.events.push({ type, systemId: cso.connectedSystemId, csoId: cso.id, late: this.exporting });
  }

  private join(state: CsoState, mvoId: string, type: JoinType): void {
    const { cso } = state;
    cso.metaverseObjectId = mvoId;
    cso.joinType = type;
    this.joinUpdates.set(cso.id, { id: cso.id, metaverseObjectId: mvoId, joinType: type });
    this.joins.get(mvoId)!.push(cso);
    this.csoToMvo.set(cso.id, mvoId);
    const mvo = this.mvos.get(mvoId)!;
    mvo.joinsChanged = true;
    this.touch(mvo, cso);
    // A projection is recorded as such, not as a join.
    if (type === JoinType.Joined) this.event(mvo, MvoChangeType.Joined, cso);
    // A rejoin within the grace period cancels a pending deletion.
    if (mvo.row.lastConnectorDisconnectedDate) {
      mvo.row.lastConnectorDisconnectedDate = null;
      mvo.row.deletionEligibleDate = null;
      mvo.attributesChanged = true;
    }
  }

  private disconnect(cso: SyncCso, keepValues: boolean): void {
    const mvoId = cso.metaverseObjectId;
    if (!mvoId) return;
    const mvo = this.mvos.get(mvoId);
    if (mvo) {
      mvo.leaving.push({ systemId: cso.connectedSystemId, keepValues });
      mvo.joinsChanged = true;
      this.touch(mvo, cso);
      this.event(mvo, MvoChangeType.Disconnected, cso);
      this.joins.set(
        mvoId,
        (this.joins.get(mvoId) ?? []).filter((c) => c.id !== cso.id),
      );
    }
    cso.metaverseObjectId = null;
    cso.joinType = null;
    this.csoToMvo.set(cso.id, null);
    if (!this.deleteCsos.has(cso.id)) this.joinUpdates.set(cso.id, { id: cso.id, metaverseObjectId: null, joinType: null });
  }

  /** DOMAIN.md §2.2 rules 1-4 for one object of the page. */
  private decide(cso: SyncCso, matched: string[] | undefined): void {
    const state = this.states.get(cso.id)!;
    const type = this.cfg.schemas.get(this.systemId)?.typeById(cso.objectTypeId);
    if (cso.status === ConnectorSpaceObjectStatus.Obsolete) {
      this.deleteCsos.add(cso.id);
      if (cso.metaverseObjectId) {
        const mvo = this.mvos.get(cso.metaverseObjectId);
        mvo?.leaving.push({ systemId: this.systemId, keepValues: !(type?.removeContributedAttributesOnObsoletion ?? false) });
        if (mvo) {
          mvo.joinsChanged = true;
          this.touch(mvo, cso);
          this.event(mvo, MvoChangeType.Disconnected, cso);
          this.joins.set(
            mvo.row.id,
            (this.joins.get(mvo.row.id) ?? []).filter((c) => c.id !== cso.id),
          );
        }
        this.csoToMvo.set(cso.id, null);
        this.outcome(state, SyncOutcome.Disconnected);
        this.counters.totalDisconnected++;
      }
      state.changeType = ObjectChangeType.Delete;
      return;
    }
    if (cso.metaverseObjectId) {
      const mvo = this.mvos.get(cso.metaverseObjectId);
      if (!mvo) return;
      this.touch(mvo, cso);
      const rulesForType = this.cfg.importRulesFor(this.systemId, cso.objectTypeId, mvo.row.typeId);
      const inScope = state.rules.filter((r) => r.mvObjectTypeId === mvo.row.typeId);
      if (
        !inScope.length &&
        rulesForType.length &&
        !rulesForType.some((r) => r.outOfScopeAction === InboundOutOfScopeAction.RemainJoined)
      ) {
        this.disconnect(cso, false);
        this.outcome(state, SyncOutcome.Disconnected);
        this.counters.totalDisconnected++;
        state.changeType = ObjectChangeType.Disconnect;
      }
      return;
    }
    if (!state.rules.length) return;
    if (matched && matched.length > 1) {
      state.errors.push({
        errorType: ExecutionErrorType.AmbiguousMatch,
        message: `${matched.length} metaverse objects match this object (${matched.slice(0, 5).join(', ')}).`,
      });
      return;
    }
    let target = matched?.[0] ?? this.projectedMatch(state);
    if (target) {
      const taken = (this.joins.get(target) ?? []).find((c) => c.connectedSystemId === this.systemId && c.id !== cso.id);
      if (taken) {
        state.errors.push({
          errorType: ExecutionErrorType.CouldNotJoinDueToExistingJoin,
          message: `The matching metaverse object ${target} is already joined to ${taken.externalId ?? taken.id} of this connected system.`,
        });
        return;
      }
      this.join(state, target, JoinType.Joined);
      this.outcome(state, SyncOutcome.Joined);
      this.counters.totalJoined++;
      state.changeType = ObjectChangeType.Join;
      return;
    }
    const projecting = state.rules.find((r) => r.project);
    if (!projecting) return;
    target = uuidV7();
    this.mvos.set(target, {
      row: {
        id: target,
        typeId: projecting.mvObjectTypeId,
        origin: MetaverseObjectOrigin.Projected,
        displayName: null,
        attributes: {},
        lastConnectorDisconnectedDate: null,
        deletionEligibleDate: null,
      },
      isNew: true,
      attributes: {},
      joinsChanged: true,
      attributesChanged: true,
      leaving: [],
      deleted: false,
      source: cso.id,
      sourceSystemId: cso.connectedSystemId,
      events: [],
    });
    this.joins.set(target, []);
    this.join(state, target, JoinType.Projected);
    this.outcome(state, SyncOutcome.Projected);
    this.counters.totalProjected++;
    state.changeType = ObjectChangeType.Project;
    for (const key of this.matchKeys(state)) this.projectedKeys.set(key, target);
  }

  /** Two objects of one page with the same matching values: the second joins what the first projected. */
  private projectedMatch(state: CsoState): string | undefined {
    for (const key of this.matchKeys(state)) {
      const hit = this.projectedKeys.get(key);
      if (hit) return hit;
    }
    return undefined;
  }

  private matchKeys(state: CsoState): string[] {
    const attrs = this.cfg.schemaAttributes.get(this.systemId) ?? new Map();
    return state.rules.flatMap((r) =>
      r.matchingRules.flatMap((m) =>
        matchingValues(m, (id) => state.cso.attributes[String(id)] ?? [], attrs).map(
          (v) => `${r.mvObjectTypeId}:${m.mvAttributeId}:${m.caseSensitive ? v : v.toLowerCase()}`,
        ),
      ),
    );
  }

  /** Joins of the objects referenced by the contributors of the page's metaverse objects (references flow as metaverse ids). */
  private async loadReferenceJoins(): Promise<void> {
    const ids = new Set<string>();
    for (const list of this.joins.values()) {
      for (const cso of list) {
        for (const refs of Object.values(cso.resolvedReferences ?? {})) for (const r of refs) if (r && !this.csoToMvo.has(r)) ids.add(r);
      }
    }
    const found = await this.reads.joinsOf([...ids]);
    for (const id of ids) this.csoToMvo.set(id, found.get(id) ?? null);
  }

  private contributor(cso: SyncCso, mvo: MvoState): Contributor & { frozen: boolean; deferredRefs: boolean } {
    const attrs = this.cfg.schemaAttributes.get(cso.connectedSystemId) ?? new Map<number, EngineAttribute>();
    const state = cso.connectedSystemId === this.systemId ? this.states.get(cso.id) : undefined;
    let rules = state?.rules;
    if (!rules) {
      const view = ValueView.ofConnectorObject(cso.attributes, attrs, this.cfg.schemaAttributesByName.get(cso.connectedSystemId));
      rules = this.cfg
        .importRulesOf(cso.connectedSystemId, cso.objectTypeId)
        .filter((r) => evaluateScoping(r.scoping as never, view.scoping, this.now, this.types(attrs)));
    }
    const own = rules.filter((r) => r.mvObjectTypeId === mvo.row.typeId);
    let deferredRefs = false;
    const values = (attributeId: number): readonly unknown[] => {
      const attr = attrs.get(attributeId);
      if (attr?.type === AttributeDataType.Reference) {
        const refs = cso.resolvedReferences?.[String(attributeId)] ?? [];
        const out: string[] = [];
        for (const r of refs) {
          if (!r) continue;
          const target = this.csoToMvo.get(r);
          if (target) out.push(target);
          else deferredRefs = true;
        }
        return out;
      }
      return cso.attributes[String(attributeId)] ?? [];
    };
    const view = ValueView.ofConnectorObject(cso.attributes, attrs, this.cfg.schemaAttributesByName.get(cso.connectedSystemId));
    const anyRules = this.cfg.importRulesFor(cso.connectedSystemId, cso.objectTypeId, mvo.row.typeId);
    return {
      systemId: cso.connectedSystemId,
      csoId: cso.id,
      rules: own,
      values,
      cs: view.expression,
      frozen: !own.length && anyRules.some((r) => r.outOfScopeAction === InboundOutOfScopeAction.RemainJoined),
      get deferredRefs() {
        return deferredRefs;
      },
    };
  }

  /** Recomputes a metaverse object's values from everything joined to it (priority, recall, re-election). */
  private recompute(mvo: MvoState, deletedTargets?: ReadonlySet<string>): void {
    let current = mvo.attributes;
    if (deletedTargets) {
      // Values pointing at deleted objects go (including ones set through the API).
      current = Object.fromEntries(
        Object.entries(current)
          .map(([k, list]) => [k, list.filter((x) => !(typeof x.v === 'string' && deletedTargets.has(x.v)))])
          .filter(([, list]) => list.length),
      ) as StoredMetaverseAttributes;
    }
    const members = (this.joins.get(mvo.row.id) ?? []).filter((c) => c.status !== ConnectorSpaceObjectStatus.PendingProvisioning);
    const contributors = members.map((c) => this.contributor(c, mvo));
    const mvView = ValueView.ofMetaverseObject(current, this.cfg.mvAttributes, this.cfg.mvAttributesByName);
    const result = computeMetaverseAttributes({
      current,
      attributes: this.cfg.mvAttributes,
      contributors,
      leaving: mvo.leaving,
      frozenSystemIds: contributors.filter((c) => c.frozen).map((c) => c.systemId),
      mv: mvView.expression,
    });
    for (const e of result.errors) {
      const state = this.states.get(e.csoId);
      if (state) state.errors.push({ errorType: e.errorType, message: e.message });
    }
    for (const c of contributors) {
      const state = this.states.get(c.csoId);
      if (state && c.deferredRefs && this.allowDefer) state.deferred = true;
    }
    for (const [csoId, n] of result.flows) {
      const state = this.states.get(csoId);
      if (state) {
        this.outcome(state, SyncOutcome.AttributeFlow, n);
        state.changeType ??= ObjectChangeType.AttributeFlow;
      }
    }
    const filtered = current !== mvo.attributes && JSON.stringify(current) !== JSON.stringify(mvo.attributes);
    if (result.changed.length || filtered) {
      mvo.attributes = result.attributes;
      mvo.attributesChanged = true;
    }
  }

  /** DOMAIN.md §2.4 for every metaverse object that lost a connector in this page; returns the ids deleted now. */
  private applyDeletionRules(): string[] {
    const deleted: string[] = [];
    for (const mvo of this.mvos.values()) {
      if (!mvo.leaving.length || mvo.deleted) continue;
      const type = this.cfg.mvTypes.get(mvo.row.typeId);
      if (!type) continue;
      const remaining = this.joins.get(mvo.row.id) ?? [];
      const decision = decideDeletion({
        type,
        origin: mvo.row.origin,
        remainingSystemIds: [...new Set(remaining.map((c) => c.connectedSystemId))],
        disconnectedSystemIds: mvo.leaving.map((l) => l.systemId),
        now: this.now,
      });
      const source = mvo.source ? this.states.get(mvo.source) : undefined;
      if (decision.action === 'Pending' && !mvo.row.lastConnectorDisconnectedDate) {
        mvo.row.lastConnectorDisconnectedDate = this.now;
        mvo.row.deletionEligibleDate = decision.eligible;
        mvo.attributesChanged = true;
        if (source) this.outcome(source, SyncOutcome.PendingDeletion);
      } else if (decision.action === 'Delete') {
        mvo.deleted = true;
        deleted.push(mvo.row.id);
        this.counters.totalDeleted++;
        if (source) this.outcome(source, SyncOutcome.MetaverseObjectDeleted);
        for (const cso of remaining) this.deprovision(cso, mvo, source);
      }
    }
    return deleted;
  }

  /** A deleted metaverse object's remaining connector: a Delete export where its export rule says Delete, otherwise a disconnection. */
  private deprovision(cso: SyncCso, mvo: MvoState, source: CsoState | undefined): void {
    const rule = this.cfg
      .exportRulesFor(mvo.row.typeId)
      .find((r) => r.systemId === cso.connectedSystemId && r.csObjectTypeId === cso.objectTypeId);
    if (cso.status === ConnectorSpaceObjectStatus.PendingProvisioning) {
      // Never exported: nothing exists in the system, whatever the rule says; its Create goes with it.
      this.deleteCsos.add(cso.id);
      this.event(mvo, MvoChangeType.Disconnected, cso);
      return;
    }
    if (rule?.deprovisionAction === OutboundDeprovisionAction.Delete) {
      this.stageDelete(cso);
      if (source) this.outcome(source, SyncOutcome.PendingExportCreated);
    } else {
      this.disconnect(cso, false);
      this.counters.totalDisconnected++;
    }
  }

  private stageDelete(cso: SyncCso): void {
    this.newPes.push({
      id: uuidV7(),
      connectedSystemId: cso.connectedSystemId,
      connectedSystemObjectId: cso.id,
      changeType: PendingExportChangeType.Delete,
      attributeChanges: [],
    });
    this.counters.totalPendingExports++;
    // Pending changes of the object are replaced by the deletion (loaded with the others before export evaluation).
    this.deleteStale.add(cso.id);
  }

  /** DOMAIN.md §2.2 rule 8: every changed metaverse object against every export rule of its type. */
  private async evaluateExports(): Promise<void> {
    this.exporting = true;
    const evaluate = [...this.mvos.values()].filter((m) => !m.deleted && (this.full || m.isNew || m.attributesChanged || m.joinsChanged));
    const targetIds = new Set<string>(this.deleteStale);
    for (const mvo of evaluate) {
      for (const c of this.joins.get(mvo.row.id) ?? [])
        if (this.cfg.isExportTarget(c.connectedSystemId, c.objectTypeId)) targetIds.add(c.id);
    }
    this.pending = new Map((await this.reads.pendingExports([...targetIds])).map((p) => [p.connectedSystemObjectId, p]));
    for (const csoId of this.deleteStale) {
      const p = this.pending.get(csoId);
      if (p) this.deletedPes.add(p.id);
    }
    const adoptions = await this.adoptionCandidates(evaluate);
    // An adopted object may still hold an unexported change (from a metaverse object it left): the new
    // one merges into it, as for any joined object (one open pending export per object).
    const adopted = [...adoptions.values()].map((c) => c.id).filter((id) => !this.pending.has(id));
    for (const p of await this.reads.pendingExports(adopted)) this.pending.set(p.connectedSystemObjectId, p);
    let n = 0;
    for (const mvo of evaluate) {
      await yieldEvery(++n);
      const mvView = ValueView.ofMetaverseObject(mvo.attributes, this.cfg.mvAttributes, this.cfg.mvAttributesByName);
      const source = mvo.source ? this.states.get(mvo.source) : undefined;
      for (const rule of this.cfg.exportRulesFor(mvo.row.typeId)) {
        const targetAttrs = this.cfg.schemaAttributes.get(rule.systemId);
        if (!targetAttrs) continue;
        let targetCso = (this.joins.get(mvo.row.id) ?? []).find(
          (c) => c.connectedSystemId === rule.systemId && c.objectTypeId === rule.csObjectTypeId,
        );
        const adopted = !targetCso ? adoptions.get(`${rule.id}:${mvo.row.id}`) : undefined;
        if (adopted && !this.joinUpdates.has(adopted.id)) {
          adopted.metaverseObjectId = mvo.row.id;
          this.joinUpdates.set(adopted.id, { id: adopted.id, metaverseObjectId: mvo.row.id, joinType: JoinType.Joined });
          this.joins.get(mvo.row.id)!.push(adopted);
          targetCso = adopted;
          this.event(mvo, MvoChangeType.Joined, adopted);
          this.counters.totalJoined++;
          if (source) this.outcome(source, SyncOutcome.Joined);
        }
        const pending = targetCso ? (this.pending.get(targetCso.id) ?? null) : null;
        const targetView = targetCso
          ? ValueView.ofConnectorObject(targetCso.attributes, targetAttrs, this.cfg.schemaAttributesByName.get(rule.systemId))
          : null;
        const { decision, errors } = evaluateExport({
          rule,
          values: (id) => (mvo.attributes[String(id)] ?? []).map((x) => x.v),
          scoping: mvView.scoping,
          scopingTypes: this.cfg.mvAttributeTypes,
          context: { mv: mvView.expression, cs: targetView?.expression ?? null },
          targetAttributes: targetAttrs,
          now: this.now,
          target: targetCso
            ? {
                csoId: targetCso.id,
                status: targetCso.status,
                values: (id) => this.targetValues(targetCso!, id, targetAttrs),
                pending: pending
                  ? { changeType: pending.changeType as PendingExportChangeType, changes: pending.attributeChanges as never }
                  : null,
              }
            : null,
        });
        if (source) for (const e of errors) source.errors.push(e);
        this.applyExport(decision, rule, mvo, targetCso, pending, source);
      }
    }
  }

  /** Values the target holds; reference attributes as the metaverse objects their targets are joined to. */
  private targetValues(cso: SyncCso, attributeId: number, attrs: ReadonlyMap<number, EngineAttribute>): readonly unknown[] {
    if (attrs.get(attributeId)?.type === AttributeDataType.Reference) {
      return (cso.resolvedReferences?.[String(attributeId)] ?? []).map((r) => (r ? (this.csoToMvo.get(r) ?? null) : null)).filter((x) => x);
    }
    return cso.attributes[String(attributeId)] ?? [];
  }

  private applyExport(
    decision: ReturnType<typeof evaluateExport>['decision'],
    rule: ExportRuleDef,
    mvo: MvoState,
    target: SyncCso | undefined,
    pending: PendingExportRow | null,
    source: CsoState | undefined,
  ): void {
    switch (decision.action) {
      case 'Provision': {
        const id = uuidV7();
        const display = displayNameFrom(
          mvo.attributes[String(this.cfg.displayNameAttributeId)]?.[0]?.v,
          mvo.attributes[String(this.cfg.accountNameAttributeId)]?.[0]?.v,
        );
        this.newCsos.push({
          id,
          connectedSystemId: rule.systemId,
          objectTypeId: rule.csObjectTypeId,
          displayName: display,
          metaverseObjectId: mvo.row.id,
        });
        this.newPes.push({
          id: uuidV7(),
          connectedSystemId: rule.systemId,
          connectedSystemObjectId: id,
          changeType: PendingExportChangeType.Create,
          attributeChanges: decision.changes,
        });
        const placeholder: SyncCso = {
          id,
          connectedSystemId: rule.systemId,
          objectTypeId: rule.csObjectTypeId,
          externalId: null,
          displayName: display,
          status: ConnectorSpaceObjectStatus.PendingProvisioning,
          attributes: {},
          resolvedReferences: null,
          metaverseObjectId: mvo.row.id,
          joinType: JoinType.Provisioned,
        };
        this.joins.get(mvo.row.id)!.push(placeholder);
        this.event(mvo, MvoChangeType.Provisioned, placeholder);
        this.counters.totalProvisioned++;
        this.counters.totalPendingExports++;
        if (source) {
          this.outcome(source, SyncOutcome.Provisioned);
          this.outcome(source, SyncOutcome.PendingExportCreated);
        }
        return;
      }
      case 'Update':
        if (!target) return;
        if (pending)
          this.updatedPes.set(pending.id, {
            connectedSystemId: rule.systemId,
            connectedSystemObjectId: target.id,
            attributeChanges: decision.changes,
          });
        else
          this.newPes.push({
            id: uuidV7(),
            connectedSystemId: rule.systemId,
            connectedSystemObjectId: target.id,
            changeType: PendingExportChangeType.Update,
            attributeChanges: decision.changes,
          });
        // A change merged into an export this run already staged is the same pending export, counted once.
        if (!pending || pending.created < this.ctx.startedAt) this.counters.totalPendingExports++;
        if (source) this.outcome(source, SyncOutcome.PendingExportCreated);
        return;
      case 'Disconnect':
        if (!target) return;
        this.disconnect(target, false);
        this.recallAfterExport.add(mvo);
        this.counters.totalDisconnected++;
        if (source) this.outcome(source, SyncOutcome.Disconnected);
        return;
      case 'Delete':
        if (!target) return;
        if (pending) this.deletedPes.add(pending.id);
        this.stageDelete(target);
        if (source) this.outcome(source, SyncOutcome.PendingExportCreated);
        return;
      case 'CancelCreate':
        if (!target) return;
        if (pending) this.deletedPes.add(pending.id);
        this.deleteCsos.add(target.id);
        this.event(mvo, MvoChangeType.Disconnected, target);
        this.joins.set(
          mvo.row.id,
          (this.joins.get(mvo.row.id) ?? []).filter((c) => c.id !== target.id),
        );
        return;
      default:
    }
  }

  /**
   * Before provisioning, an unjoined object of the target that the target system's matching rules find
   * is adopted (pre-existing accounts are joined, never duplicated). One statement per target type and
   * matching attribute per page, and only when the target has unjoined objects.
   */
  private async adoptionCandidates(evaluate: MvoState[]): Promise<Map<string, SyncCso>> {
    const out = new Map<string, SyncCso>();
    const byRule = new Map<number, { rule: ExportRuleDef; mvos: MvoState[] }>();
    for (const mvo of evaluate) {
      for (const rule of this.cfg.exportRulesFor(mvo.row.typeId)) {
        if (!rule.provision) continue;
        const joined = (this.joins.get(mvo.row.id) ?? []).some(
          (c) => c.connectedSystemId === rule.systemId && c.objectTypeId === rule.csObjectTypeId,
        );
        if (joined) continue;
        const entry = byRule.get(rule.id) ?? { rule, mvos: [] };
        entry.mvos.push(mvo);
        byRule.set(rule.id, entry);
      }
    }
    const taken = new Set<string>();
    for (const { rule, mvos } of byRule.values()) {
      const matching = this.cfg.importRulesFor(rule.systemId, rule.csObjectTypeId, rule.mvObjectTypeId).flatMap((r) => r.matchingRules);
      if (!matching.length || !(await this.reads.hasUnjoined(rule.systemId, rule.csObjectTypeId))) continue;
      for (const m of matching) {
        for (const csAttributeId of m.csAttributeIds) {
          const wanted = new Map<string, MvoState>();
          for (const mvo of mvos) {
            if ([...out.keys()].includes(`${rule.id}:${mvo.row.id}`)) continue;
            for (const x of mvo.attributes[String(m.mvAttributeId)] ?? [])
              if (x.v !== null && x.v !== undefined) wanted.set(String(x.v).toLowerCase(), mvo);
          }
          if (!wanted.size) continue;
          for (const cso of await this.reads.findUnjoined(rule.systemId, rule.csObjectTypeId, csAttributeId, [...wanted.keys()])) {
            const mvo = wanted.get(cso.matched);
            if (!mvo || taken.has(cso.id) || out.has(`${rule.id}:${mvo.row.id}`)) continue;
            taken.add(cso.id);
            out.set(`${rule.id}:${mvo.row.id}`, cso);
          }
        }
      }
    }
    return out;
  }

  /** The page's writes, encoded by `prepare` (encodeWrites), the lookup rows excepted. */
  private encoded: { before: QueuedWrites; after: QueuedWrites; inserts: NewMetaverseObject[]; updates: MetaverseObjectUpdate[] } | null =
    null;

  /**
   * Builds the page's writes and encodes them (COPY rows, parameters), so that writing the page only sends
   * them; a page decided while the page before it is written does this work meanwhile. The lookup rows are
   * built when the page is written, under the lookup-schema lock (which attributes are looked up may
   * change in between).
   */
  private async encodeWrites(page: readonly SyncCso[]): Promise<void> {
    const inserts: NewMetaverseObject[] = [];
    const updates: MetaverseObjectUpdate[] = [];
    const deleted: string[] = [];
    const changes: MvoChangeRow[] = [];
    for (const mvo of this.mvos.values()) {
      if (mvo.deleted) {
        if (!mvo.isNew) {
          deleted.push(mvo.row.id);
          if (this.trackMvo) this.recordDeleted(mvo, changes);
        }
        continue;
      }
      const displayName = displayNameFrom(
        mvo.attributes[String(this.cfg.displayNameAttributeId)]?.[0]?.v,
        mvo.attributes[String(this.cfg.accountNameAttributeId)]?.[0]?.v,
      );
      if (mvo.isNew) inserts.push({ id: mvo.row.id, typeId: mvo.row.typeId, displayName, attributes: mvo.attributes });
      else if (mvo.attributesChanged) {
        updates.push({
          id: mvo.row.id,
          displayName,
          attributes: mvo.attributes,
          lastConnectorDisconnectedDate: mvo.row.lastConnectorDisconnectedDate,
          deletionEligibleDate: mvo.row.deletionEligibleDate,
        });
      }
      if (this.trackMvo) this.recordChanges(mvo, displayName, changes);
    }
    // A disconnected object that is deleted needs no join update.
    for (const id of this.deleteCsos) this.joinUpdates.delete(id);
    const before = new QueuedWrites();
    const s = new SyncStore(before);
    await s.deletePendingExports([...this.deletedPes]);
    await s.insertMetaverseObjects(inserts);
    await s.updateMetaverseObjects(updates);
    const synchronised = page.filter((c) => !this.deleteCsos.has(c.id) && !this.states.get(c.id)?.deferred).map((c) => c.id);
    await s.updateJoins([...this.joinUpdates.values()], synchronised);
    await s.insertProvisioned(this.newCsos);
    await s.insertPendingExports(this.newPes);
    await s.updatePendingExports([...this.updatedPes].map(([id, change]) => ({ id, ...change })));
    // Change records share the page's transaction: a page and its history commit together.
    const { history } = this.ctx.info;
    const at = new Date();
    await s.deleteConnectorObjects([...this.deleteCsos], history.cso ? { origin: history.origin, at } : null);
    await s.deleteMetaverseObjects(deleted);
    const after = new QueuedWrites();
    await new ChangeRecordStore(after).insertMvoChanges(history.origin, changes, at);
    this.encoded = { before, after, inserts, updates };
  }

  private async write(page: readonly SyncCso[]): Promise<void> {
    if (!this.encoded) await this.encodeWrites(page);
    const { before, after, inserts, updates } = this.encoded!;
    const s = this.store;
    await s.lockLookupSchema();
    const lookupAttributes = inserts.length || updates.length ? await s.lookupAttributeIds() : new Set<number>();
    const lookupRows: Array<[number, string, string]> = [];
    const replaced: string[] = [];
    const updatedIds = new Set(updates.map((u) => u.id));
    for (const o of [...inserts, ...updates]) {
      const previous = this.mvos.get(o.id)!.row.attributes ?? {};
      let changed = false;
      for (const a of lookupAttributes) {
        const values = o.attributes[String(a)] ?? [];
        if (!changed && !sameValues(previous[String(a)], values)) changed = true;
        for (const x of values) if (x.v !== null && x.v !== undefined) lookupRows.push([a, String(x.v), o.id]);
      }
      if (updatedIds.has(o.id) && changed) replaced.push(o.id);
    }
    await s.send(before);
    // Lookup rows only for new objects and objects whose looked-up values changed.
    const newIds = new Set(inserts.map((i) => i.id));
    const replacedSet = new Set(replaced);
    this.lookupsWritten = [...newIds, ...replaced];
    await s.writeLookups(
      replaced,
      lookupRows.filter(([, , o]) => newIds.has(o) || replacedSet.has(o)),
    );
    await s.send(after);

    for (const state of this.states.values()) this.record(state);
  }

  /**
   * The change records of a metaverse object the page wrote (spec 2.13), in the order things happened:
   * its projection, joins and disconnections of the page, the attribute flow (only values that differ),
   * then what export evaluation did (adoption, provisioning, disconnections).
   */
  private recordChanges(mvo: MvoState, displayName: string | null, out: MvoChangeRow[]): void {
    if (mvo.isNew) {
      out.push(changeRow(mvo, displayName, MvoChangeType.Projected, projectedDelta(mvo.attributes), mvo.sourceSystemId, mvo.source));
    }
    for (const e of mvo.events) if (!e.late) out.push(changeRow(mvo, displayName, e.type, null, e.systemId, e.csoId));
    if (!mvo.isNew && mvo.attributesChanged && mvo.attributes !== mvo.row.attributes) {
      const delta = attributeDelta(mvo.row.attributes ?? {}, mvo.attributes);
      // A recompute that yields the same values (a pending deletion cancelled, a provenance change) is no value change.
      if (delta.length) out.push(changeRow(mvo, displayName, MvoChangeType.AttributeFlow, delta, mvo.sourceSystemId, mvo.source));
    }
    for (const e of mvo.events) if (e.late) out.push(changeRow(mvo, displayName, e.type, null, e.systemId, e.csoId));
  }

  /** A deleted metaverse object: its disconnections, then the deletion with the names the deleted-objects list shows. */
  private recordDeleted(mvo: MvoState, out: MvoChangeRow[]): void {
    const displayName =
      mvo.row.displayName ??
      displayNameFrom(
        mvo.attributes[String(this.cfg.displayNameAttributeId)]?.[0]?.v,
        mvo.attributes[String(this.cfg.accountNameAttributeId)]?.[0]?.v,
      );
    for (const e of mvo.events) out.push(changeRow(mvo, displayName, e.type, null, e.systemId, e.csoId));
    const cause = this.expired.has(mvo.row.id) ? null : mvo;
    const deleted = changeRow(mvo, displayName, MvoChangeType.Deleted, null, cause?.sourceSystemId ?? null, cause?.source ?? null);
    deleted.objectTypeName = this.cfg.mvTypes.get(mvo.row.typeId)?.name ?? null;
    out.push(deleted);
  }

  /** Execution items for objects that changed or failed; attribute flow alone counts in totalAttributeFlows. */
  private record(state: CsoState): void {
    const { cso } = state;
    // The reference pass completes objects this run already recorded: only its errors are new.
    if (!this.allowDefer && !state.errors.length) return;
    const structural = [SyncOutcome.Projected, SyncOutcome.Joined, SyncOutcome.Disconnected].some((o) => state.outcomes.has(o));
    if (!structural && state.outcomes.has(SyncOutcome.AttributeFlow)) this.counters.totalAttributeFlows++;
    const type = this.cfg.schemas.get(this.systemId)?.typeById(cso.objectTypeId)?.name ?? null;
    const about = {
      externalIdValue: cso.externalId,
      displayName: cso.displayName,
      objectType: type,
      connectedSystemObjectId: cso.id,
      metaverseObjectId: cso.metaverseObjectId,
    };
    if (state.errors.length) {
      const [first, ...rest] = state.errors;
      this.ctx.item({
        ...about,
        objectChangeType: state.changeType ?? ObjectChangeType.NoChange,
        errorType: first.errorType,
        errorMessage: [first, ...rest]
          .map((e) => e.message)
          .join(' ')
          .slice(0, 4000),
        outcomes: state.outcomes.size ? state.outcomes : undefined,
      });
      return;
    }
    if (state.outcomes.size) {
      this.ctx.item({ ...about, objectChangeType: state.changeType ?? ObjectChangeType.AttributeFlow, outcomes: state.outcomes });
    }
  }
}

/**
 * Lets other work of the worker run every 4 objects (`n` counts them): a page is decided while the page
 * before it is written, and each of that page's statements and COPY chunks waits for the worker to send
 * the next (measured: every 4 objects kept the writes moving best; every 64, the run took 6 % longer).
 */
async function yieldEvery(n: number): Promise<void> {
  if (n % 4 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** One metaverse change record (every record built with the same shape). */
function changeRow(
  mvo: MvoState,
  displayName: string | null,
  changeType: MvoChangeType,
  attributeChanges: StoredAttributeDelta[] | null,
  connectedSystemId: number | null,
  connectedSystemObjectId: string | null,
): MvoChangeRow {
  return {
    metaverseObjectId: mvo.row.id,
    objectTypeId: mvo.row.typeId,
    displayName,
    changeType,
    attributeChanges,
    connectedSystemId,
    connectedSystemObjectId,
    objectTypeName: null,
  };
}

type StoredValues = StoredMetaverseAttributes[string] | undefined;

/** Whether two stored value lists hold the same values in the same order (provenance aside). */
function sameValues(a: StoredValues, b: StoredValues): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = x[i].v;
    const q = y[i].v;
    if (p === q) continue;
    // Values are scalars; anything structured is compared by its JSON.
    if (typeof p !== 'object' || typeof q !== 'object' || p === null || q === null || JSON.stringify(p) !== JSON.stringify(q)) return false;
  }
  return true;
}

/** The old values of a projection: one shared empty list (records are serialised, never changed). */
const NO_VALUES: unknown[] = [];

function valuesOf(list: StoredValues): unknown[] {
  if (!list?.length) return NO_VALUES;
  const out = new Array<unknown>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list[i].v;
  return out;
}

/** Every attribute of a projected object, as new values with the system that contributed them. */
function projectedDelta(attributes: StoredMetaverseAttributes): StoredAttributeDelta[] {
  const out: StoredAttributeDelta[] = [];
  for (const key in attributes) {
    const list = attributes[key];
    if (list?.length) out.push({ a: Number(key), o: NO_VALUES, n: valuesOf(list), s: list[0].s ?? null });
  }
  return out;
}

/**
 * The attributes whose values differ, old and new, with the system contributing the new values (or,
 * when the values were removed, the one that contributed the old ones); in attribute id order.
 */
function attributeDelta(before: StoredMetaverseAttributes, after: StoredMetaverseAttributes): StoredAttributeDelta[] {
  const out: StoredAttributeDelta[] = [];
  for (const key in after) {
    const n = after[key];
    const o = before[key];
    if (sameValues(o, n)) continue;
    out.push({ a: Number(key), o: valuesOf(o), n: valuesOf(n), s: (n?.[0] ?? o?.[0])?.s ?? null });
  }
  let removed = false;
  for (const key in before) {
    const o = before[key];
    if (key in after || !o?.length) continue;
    out.push({ a: Number(key), o: valuesOf(o), n: [], s: o[0].s ?? null });
    removed = true;
  }
  // Integer-like keys iterate in ascending order: only removed attributes can break the order.
  if (removed) out.sort((p, q) => p.a - q.a);
  return out;
}
