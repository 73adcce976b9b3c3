import type { ScheduleExecutionEntity, ScheduleExecutionStepEntity } from '@meridian/persistence';

/** An execution as lists show it (spec 2.8 without steps). */
export interface ExecutionSummaryView {
  id: string;
  scheduleId: string;
  scheduleName: string;
  status: string;
  currentStepIndex: number;
  totalSteps: number;
  queuedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  initiatedByType: string;
  initiatedById: string | null;
  initiatedByName: string | null;
  errorMessage: string | null;
}

/** An execution step (spec 2.8). */
export interface ExecutionStepView {
  stepIndex: number;
  name: string;
  stepType: string;
  executionMode: string;
  connectedSystemId: number | null;
  status: string;
  taskId: string | null;
  startedAt: string | null;
  completedAt: string | null;
  errorMessage: string | null;
  activityId: string | null;
  activityStatus: string | null;
}

export interface ExecutionView extends ExecutionSummaryView {
  steps: ExecutionStepView[];
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function executionSummary(e: ScheduleExecutionEntity): ExecutionSummaryView {
  return {
    id: e.id,
    scheduleId: e.scheduleId,
    scheduleName: e.scheduleName,
    status: e.status,
    currentStepIndex: e.currentStepIndex,
    totalSteps: e.totalSteps,
    queuedAt: e.queuedAt.toISOString(),
    startedAt: iso(e.startedAt),
    completedAt: iso(e.completedAt),
    initiatedByType: e.initiatedByType,
    initiatedById: e.initiatedById,
    initiatedByName: e.initiatedByName,
    errorMessage: e.errorMessage,
  };
}

export function executionStepView(s: ScheduleExecutionStepEntity, activityStatus: string | null): ExecutionStepView {
  return {
    stepIndex: s.stepIndex,
    name: s.name,
    stepType: s.stepType,
    executionMode: s.executionMode,
    connectedSystemId: s.connectedSystemId,
    status: s.status,
    taskId: s.taskId,
    startedAt: iso(s.startedAt),
    completedAt: iso(s.completedAt),
    errorMessage: s.errorMessage,
    activityId: s.activityId,
    activityStatus,
  };
}
