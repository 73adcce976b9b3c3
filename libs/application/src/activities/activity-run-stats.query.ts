import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ActivityTargetType, DomainError } from '@meridian/domain';
import { ActivityEntity, ActivityStore, ExecutionItemTally, RunCounters } from '@meridian/persistence';
import { DataSource } from 'typeorm';

export interface ActivityRunPhase {
  name: string;
  seconds: number;
}

/** Every counter of a run-profile activity (spec 2.4 summary counters), as the runners keep them. */
export type ActivityRunTotals = RunCounters;

/** GET /activities/{id}/stats: progress, the runner's timings, and the execution items aggregated. */
export interface ActivityRunStatsView {
  activityId: string;
  runType: string | null;
  status: string;
  objectsToProcess: number;
  objectsProcessed: number;
  pages: number | null;
  objectsPerSecond: number | null;
  phases: ActivityRunPhase[];
  outcomes: Record<string, number>;
  errors: Record<string, number>;
  totals: ActivityRunTotals;
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The runner's `execution_stats` document: `{ pages, phases: [{ name, seconds }], objectsPerSecond }`; anything else reads as absent. */
function runnerStats(stats: Record<string, unknown> | null): Pick<ActivityRunStatsView, 'pages' | 'objectsPerSecond' | 'phases'> {
  const phases = Array.isArray(stats?.phases) ? stats.phases : [];
  return {
    pages: finite(stats?.pages),
    objectsPerSecond: finite(stats?.objectsPerSecond),
    phases: phases
      .filter(
        (p): p is { name: string; seconds: number } =>
          !!p && typeof p === 'object' && typeof p.name === 'string' && finite(p.seconds) !== null,
      )
      .map((p) => ({ name: p.name, seconds: p.seconds })),
  };
}

/** Execution statistics of a run-profile activity (spec 4.3 `stats`). */
@Injectable()
export class ActivityRunStatsQuery {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async stats(id: string): Promise<ActivityRunStatsView> {
    const a = await this.ds.getRepository(ActivityEntity).findOneBy({ id });
    if (!a) throw DomainError.notFound('Activity', id);
    if (a.targetType !== ActivityTargetType.ConnectedSystemRunProfile) {
      throw DomainError.badRequest(
        `Activity ${id} is a ${a.targetType} activity; execution statistics exist only for run-profile activities.`,
      );
    }
    // Aggregated where the items are, never loaded: a run can have a million.
    const store = new ActivityStore(this.ds);
    const [outcomeRows, errorRows] = await Promise.all([store.outcomeTallies(id), store.errorTallies(id)]);
    const dictionary = (rows: ExecutionItemTally[]) => Object.fromEntries(rows.map((r) => [r.name, r.count]));
    return {
      activityId: a.id,
      runType: a.connectedSystemRunType,
      status: a.status,
      objectsToProcess: a.objectsToProcess,
      objectsProcessed: a.objectsProcessed,
      ...runnerStats(a.executionStats),
      outcomes: dictionary(outcomeRows),
      errors: dictionary(errorRows),
      totals: {
        totalAdded: a.totalAdded,
        totalUpdated: a.totalUpdated,
        totalDeleted: a.totalDeleted,
        totalProjected: a.totalProjected,
        totalJoined: a.totalJoined,
        totalAttributeFlows: a.totalAttributeFlows,
        totalDisconnected: a.totalDisconnected,
        totalProvisioned: a.totalProvisioned,
        totalExported: a.totalExported,
        totalDeprovisioned: a.totalDeprovisioned,
        totalPendingExports: a.totalPendingExports,
        totalErrors: a.totalErrors,
      },
    };
  }
}
