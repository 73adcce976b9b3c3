import { ActivityStatus, ExecutionErrorType, formatOutcomeSummary, RunType } from '@meridian/domain';
import {
  BulkSession,
  ChangeOrigin,
  ChangeRecordStore,
  emptyCounters,
  ExecutionItemRow,
  ExecutionItemStore,
  RunCounters,
  RunProgress,
  RunStore,
} from '@meridian/persistence';

/** Thrown at a page boundary when an administrator cancelled the run. */
export class RunCancelledError extends Error {
  constructor() {
    super('The run was cancelled.');
  }
}

/** An execution item as runners describe it; outcomes become the `outcomeSummary`. */
export interface RunItem extends Omit<ExecutionItemRow, 'outcomeSummary'> {
  outcomes?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
}

export interface RunInfo {
  activityId: string;
  connectedSystemId: number;
  connectedSystemName: string;
  runType: RunType;
  pageSize: number;
  filePath: string | null;
  /** Change tracking (spec 2.13): which kinds of change record the run writes, and their origin. */
  history: RunHistory;
}

/** What a run records of its changes: the service settings read when it started, and who started it. */
export interface RunHistory {
  /** ChangeTracking.CsoChanges.Enabled */
  cso: boolean;
  /** ChangeTracking.MvoChanges.Enabled */
  mvo: boolean;
  origin: ChangeOrigin;
}

/** Items buffered before they are written (they are also written at every progress write). */
const ITEM_FLUSH_SIZE = 2000;
const PROGRESS_INTERVAL_MS = 1000;

/**
 * The state of one running run-profile activity: counters, execution items, warnings, progress and
 * cancellation. Runners call `pageDone()` at every page boundary: items are written in bulk, progress at
 * most about once a second, and a requested cancellation stops the run there (RunCancelledError).
 */
export class RunContext {
  readonly counters: RunCounters = emptyCounters();
  readonly warnings: string[] = [];
  processed = 0;
  toProcess: number | null = null;
  pages = 0;
  private readonly phases: Array<{ name: string; seconds: number }> = [];
  private readonly items: ExecutionItemRow[] = [];
  private readonly outcomeTotals = new Map<string, number>();
  private lastProgressAt = 0;
  private message: string | null = null;
  /** When the run started (pending exports created since belong to this run). */
  readonly startedAt = new Date();
  private changeStore: ChangeRecordStore | null = null;
  /** Other sessions the run reads or writes on (counted in the execution statistics' statements). */
  private readonly others: BulkSession[] = [];

  constructor(
    readonly info: RunInfo,
    readonly session: BulkSession,
    private readonly now: () => number = Date.now,
  ) {}

  get activityId(): string {
    return this.info.activityId;
  }

  /** Where the run writes its change records (ChangeRecordStore on the run's session); see info.history. */
  get changes(): ChangeRecordStore {
    return (this.changeStore ??= new ChangeRecordStore(this.session));
  }

  /** Counts the statements of another session of the run in its execution statistics. */
  countStatementsOf(session: BulkSession): void {
    this.others.push(session);
  }

  /** Records an execution item (objects that changed or failed); an error type counts in totalErrors. */
  item(item: RunItem): void {
    if (item.errorType) this.counters.totalErrors++;
    const { outcomes } = item;
    if (outcomes instanceof Map) for (const [k, n] of outcomes) this.total(k, n);
    else if (outcomes) for (const k of Object.keys(outcomes)) this.total(k, (outcomes as Readonly<Record<string, number>>)[k]);
    this.items.push({
      externalIdValue: item.externalIdValue,
      displayName: item.displayName,
      objectType: item.objectType,
      objectChangeType: item.objectChangeType,
      errorType: item.errorType,
      errorMessage: item.errorMessage,
      outcomeSummary: outcomes ? formatOutcomeSummary(outcomes) : null,
      connectedSystemObjectId: item.connectedSystemObjectId,
      metaverseObjectId: item.metaverseObjectId,
    });
  }

  private total(outcome: string, n: number): void {
    this.outcomeTotals.set(outcome, (this.outcomeTotals.get(outcome) ?? 0) + n);
  }

  /**
   * Counts items a store wrote itself (set-based, never through item()): their outcomes and errors go
   * into the counters and execution statistics as if recorded one by one.
   */
  countWrittenItems(outcomes: Readonly<Record<string, number>>, errors: number): void {
    this.counters.totalErrors += errors;
    for (const [k, n] of Object.entries(outcomes)) if (n > 0) this.total(k, n);
  }

  error(
    errorType: ExecutionErrorType,
    message: string,
    about: Omit<RunItem, 'errorType' | 'errorMessage' | 'objectChangeType'> & { objectChangeType?: string },
  ): void {
    this.item({ objectChangeType: about.objectChangeType ?? 'Error', ...about, errorType, errorMessage: message });
  }

  warn(message: string): void {
    if (!this.warnings.includes(message)) this.warnings.push(message);
  }

  /** Sets the progress message shown on the activity (written with the next progress write). */
  say(message: string): void {
    this.message = message;
  }

  /** Times a phase of the run for the execution statistics. */
  async phase<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = this.now();
    try {
      return await work();
    } finally {
      const seconds = (this.now() - started) / 1000;
      const existing = this.phases.find((p) => p.name === name);
      if (existing) existing.seconds += seconds;
      else this.phases.push({ name, seconds });
    }
  }

  /** Buffered items, written now (on the run's session, inside its transaction if one is open). */
  async flushItems(): Promise<void> {
    if (!this.items.length) return;
    const batch = this.items.splice(0, this.items.length);
    await new ExecutionItemStore(this.session).insert(this.info.activityId, batch);
  }

  /**
   * A page boundary: `objects` more were processed. Writes buffered items when there are many, progress
   * at most about once a second, and stops the run when cancellation was requested.
   */
  async pageDone(objects: number, force = false): Promise<void> {
    this.pages++;
    this.processed += objects;
    if (this.items.length >= ITEM_FLUSH_SIZE) await this.flushItems();
    const store = new RunStore(this.session);
    if (force || this.now() - this.lastProgressAt >= PROGRESS_INTERVAL_MS) {
      this.lastProgressAt = this.now();
      await this.flushItems();
      const { cancelRequested } = await store.progress(this.info.activityId, this.progress());
      if (cancelRequested) throw new RunCancelledError();
    } else if (await store.cancelRequested(this.info.activityId)) {
      throw new RunCancelledError();
    }
  }

  /**
   * Writes the progress message (`say`) at most about once a second between page boundaries, for work
   * that must run to its end once started (no object counted, cancellation not checked).
   */
  async reportProgress(): Promise<void> {
    if (this.now() - this.lastProgressAt < PROGRESS_INTERVAL_MS) return;
    this.lastProgressAt = this.now();
    await new RunStore(this.session).progress(this.info.activityId, this.progress());
  }

  private progress(): RunProgress {
    return {
      objectsProcessed: this.processed,
      objectsToProcess: this.toProcess ?? undefined,
      message: this.message,
      counters: this.counters,
    };
  }

  /** The status the run ends with when it got to the end (DOMAIN.md §2.2 rule 9). */
  outcomeStatus(): ActivityStatus {
    if (this.counters.totalErrors > 0) return ActivityStatus.CompleteWithError;
    if (this.warnings.length) return ActivityStatus.CompleteWithWarning;
    return ActivityStatus.Complete;
  }

  /** `executionStats` of the activity: pages, rate, time per phase and outcome totals. */
  executionStats(): Record<string, unknown> {
    const seconds = Math.max((this.now() - this.startedAt.getTime()) / 1000, 0.001);
    return {
      pages: this.pages,
      statements: this.others.reduce((n, s) => n + s.statements, this.session.statements),
      objectsPerSecond: Math.round(this.processed / seconds),
      seconds: Math.round(seconds * 1000) / 1000,
      phases: this.phases.map((p) => ({ name: p.name, seconds: Math.round(p.seconds * 1000) / 1000 })),
      outcomes: Object.fromEntries(this.outcomeTotals),
    };
  }
}
