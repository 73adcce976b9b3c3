import { formatTimeSpan } from '@meridian/domain';
import type { ActivityEntity, ActivityExecutionItemEntity } from '@meridian/persistence';

/** List item of spec 2.4 (core fields plus the list counters). */
export function activitySummary(a: ActivityEntity, childActivityCount: number) {
  const total = a.completed ? a.completed.getTime() - a.created.getTime() : null;
  return {
    id: a.id,
    parentActivityId: a.parentActivityId,
    created: a.created.toISOString(),
    executed: a.executed?.toISOString() ?? null,
    status: a.status,
    targetType: a.targetType,
    targetOperationType: a.targetOperationType,
    targetName: a.targetName,
    targetContext: a.targetContext,
    message: a.message,
    initiatedByType: a.initiatedByType,
    initiatedById: a.initiatedById,
    initiatedByName: a.initiatedByName,
    objectsToProcess: a.objectsToProcess,
    objectsProcessed: a.objectsProcessed,
    executionTime: a.executionTimeMs === null ? null : formatTimeSpan(a.executionTimeMs),
    totalActivityTime: total === null ? null : formatTimeSpan(total),
    connectedSystemRunType: a.connectedSystemRunType,
    childActivityCount,
    totalAdded: a.totalAdded,
    totalUpdated: a.totalUpdated,
    totalDeleted: a.totalDeleted,
    totalErrors: a.totalErrors,
  };
}

/** Detail of spec 2.4: every counter and the detail-only fields. */
export function activityDetail(a: ActivityEntity, childActivityCount: number) {
  return {
    ...activitySummary(a, childActivityCount),
    totalProjected: a.totalProjected,
    totalJoined: a.totalJoined,
    totalAttributeFlows: a.totalAttributeFlows,
    totalDisconnected: a.totalDisconnected,
    totalProvisioned: a.totalProvisioned,
    totalExported: a.totalExported,
    totalDeprovisioned: a.totalDeprovisioned,
    totalPendingExports: a.totalPendingExports,
    warningMessage: a.warningMessage,
    errorMessage: a.errorMessage,
    errorStackTrace: a.errorStackTrace,
    connectedSystemId: a.connectedSystemId,
    connectedSystemRunProfileId: a.connectedSystemRunProfileId,
    syncRuleId: a.syncRuleId,
    metaverseObjectId: a.metaverseObjectId,
    targetId: a.targetId,
    details: a.details,
    executionStats: a.executionStats,
  };
}

export function executionItemView(i: ActivityExecutionItemEntity) {
  return {
    id: i.id,
    externalIdValue: i.externalIdValue,
    displayName: i.displayName,
    connectedSystemObjectType: i.connectedSystemObjectType,
    objectChangeType: i.objectChangeType,
    errorType: i.errorType,
    errorMessage: i.errorMessage,
    outcomeSummary: i.outcomeSummary,
  };
}
