import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { StepTask } from '../steps/step-task';

/** Why this scheduler stopped a task, if it did. */
export type StopReason = 'cancel' | 'timeout' | 'shutdown';

export interface RunningTask {
  executionId: string;
  task: StepTask;
  stoppedFor: StopReason | null;
}

/** This scheduler replica: its id in `claimed_by`, and the step processes and SQL scripts it runs, by execution step id. */
@Injectable()
export class SchedulerReplica {
  /** Identifies this scheduler replica in `claimed_by`. */
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** Whether this replica ever claimed an execution (a shutdown then has claims to release). */
  claimedAny = false;
  private readonly running = new Map<string, RunningTask>();

  get size(): number {
    return this.running.size;
  }

  tasks(): IterableIterator<[string, RunningTask]> {
    return this.running.entries();
  }

  get(stepId: string): RunningTask | undefined {
    return this.running.get(stepId);
  }

  add(stepId: string, executionId: string, task: StepTask): RunningTask {
    const entry: RunningTask = { executionId, task, stoppedFor: null };
    this.running.set(stepId, entry);
    return entry;
  }

  /** Forgets a task that ended; answers its entry. */
  remove(stepId: string): RunningTask | undefined {
    const entry = this.running.get(stepId);
    this.running.delete(stepId);
    return entry;
  }

  /** Stops a task (once; the first reason stays). */
  stop(entry: RunningTask, reason: StopReason): void {
    if (entry.stoppedFor) return;
    entry.stoppedFor = reason;
    entry.task.stop();
  }

  executionIds(): Set<string> {
    return new Set([...this.running.values()].map((r) => r.executionId));
  }

  hasTasks(executionId: string): boolean {
    return [...this.running.values()].some((r) => r.executionId === executionId);
  }

  processIds(): number[] {
    return [...this.running.values()].map((r) => r.task.processId).filter((p): p is number => p !== null);
  }
}
