import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { RunProfileEntity } from './connected-system.entity';

/** A schedule: ordered steps run by a cron trigger or on demand (spec 2.6). */
@Entity('schedule')
@Index('uq_schedule_name', { synchronize: false })
@Index('ix_schedule_due', { synchronize: false })
export class ScheduleEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** `Cron` or `Manual`. */
  @Column({ type: 'varchar', length: 10 })
  triggerType: string;

  /** `SpecificTimes`, `Interval` or `Custom`. */
  @Column({ type: 'varchar', length: 20, default: 'SpecificTimes' })
  patternType: string;

  @Column({ type: 'varchar', length: 20, nullable: true })
  daysOfWeek: string | null;

  @Column({ type: 'text', nullable: true })
  runTimes: string | null;

  @Column({ type: 'int', nullable: true })
  intervalValue: number | null;

  @Column({ type: 'varchar', length: 10, nullable: true })
  intervalUnit: string | null;

  @Column({ type: 'varchar', length: 5, nullable: true })
  intervalWindowStart: string | null;

  @Column({ type: 'varchar', length: 5, nullable: true })
  intervalWindowEnd: string | null;

  /** Generated from the pattern (canonical form), or the raw expression for `Custom`. */
  @Column({ type: 'text', nullable: true })
  cronExpression: string | null;

  /** IANA time zone the pattern is read in. */
  @Column({ type: 'varchar', length: 64, default: 'UTC' })
  timeZone: string;

  @Column({ type: 'boolean', default: false })
  isEnabled: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  lastRunTime: Date | null;

  /** Next due time (enabled cron schedules only); advanced in the transaction that creates an execution. */
  @Column({ type: 'timestamptz', nullable: true })
  nextRunTime: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

/** One step of a schedule (spec 2.7). Steps with the same stepIndex run in parallel. */
@Entity('schedule_step')
@Index('ix_schedule_step_schedule', ['scheduleId', 'stepIndex'])
export class ScheduleStepEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  scheduleId: string;

  @ManyToOne(() => ScheduleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'schedule_id', foreignKeyConstraintName: 'schedule_step_schedule_fkey' })
  schedule?: ScheduleEntity;

  @Column({ type: 'int' })
  stepIndex: number;

  @Column({ type: 'varchar', length: 300, nullable: true })
  name: string | null;

  /** `Sequential` or `ParallelWithPrevious` (derived from stepIndex; kept for the API). */
  @Column({ type: 'varchar', length: 30, default: 'Sequential' })
  executionMode: string;

  /** `RunProfile`, `PowerShell`, `Executable` or `SqlScript`. */
  @Column({ type: 'varchar', length: 20 })
  stepType: string;

  @Column({ type: 'boolean', default: false })
  continueOnFailure: boolean;

  @Column({ type: 'int', nullable: true })
  timeoutSeconds: number | null;

  @Column({ type: 'int', nullable: true })
  connectedSystemId: number | null;

  @Column({ type: 'int', nullable: true })
  runProfileId: number | null;

  @ManyToOne(() => RunProfileEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'run_profile_id', foreignKeyConstraintName: 'schedule_step_run_profile_fkey' })
  runProfile?: RunProfileEntity;

  @Column({ type: 'text', nullable: true })
  scriptPath: string | null;

  @Column({ type: 'text', nullable: true })
  arguments: string | null;

  @Column({ type: 'text', nullable: true })
  executablePath: string | null;

  @Column({ type: 'text', nullable: true })
  workingDirectory: string | null;

  /** Sealed with SecretBox (it may hold a password); never returned in clear. */
  @Column({ type: 'text', nullable: true })
  sqlConnectionString: string | null;

  @Column({ type: 'text', nullable: true })
  sqlScriptPath: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}

/** One run of a schedule (spec 2.8). A cron run is unique per (schedule, due time). */
@Entity('schedule_execution')
@Index('uq_schedule_execution_due', { synchronize: false })
@Index('ix_schedule_execution_schedule', ['scheduleId', 'queuedAt'])
@Index('ix_schedule_execution_active', { synchronize: false })
export class ScheduleExecutionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  scheduleId: string;

  @ManyToOne(() => ScheduleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'schedule_id', foreignKeyConstraintName: 'schedule_execution_schedule_fkey' })
  schedule?: ScheduleEntity;

  @Column({ type: 'varchar', length: 200 })
  scheduleName: string;

  /** `Queued`, `InProgress`, `Completed`, `Failed`, `Cancelled` or `Paused`. */
  @Column({ type: 'varchar', length: 20 })
  status: string;

  @Column({ type: 'int', default: 0 })
  currentStepIndex: number;

  @Column({ type: 'int', default: 0 })
  totalSteps: number;

  /** The cron slot this execution is for; null for manual runs. */
  @Column({ type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  queuedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  /** `User`, `ApiKey` or `NotSet` (cron). */
  @Column({ type: 'varchar', length: 20 })
  initiatedByType: string;

  @Column({ type: 'uuid', nullable: true })
  initiatedById: string | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  initiatedByName: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ type: 'boolean', default: false })
  cancelRequested: boolean;

  /** The scheduler replica driving it (host:pid), with a heartbeat for take-over. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  claimedBy: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  heartbeatAt: Date | null;
}

/** A step of an execution (spec 2.8 execution step). */
@Entity('schedule_execution_step')
@Index('ix_schedule_execution_step_execution', ['executionId', 'stepIndex'])
export class ScheduleExecutionStepEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  executionId: string;

  @ManyToOne(() => ScheduleExecutionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'execution_id', foreignKeyConstraintName: 'schedule_execution_step_execution_fkey' })
  execution?: ScheduleExecutionEntity;

  /** The schedule step it was created from (null once that step is deleted). */
  @Column({ type: 'uuid', nullable: true })
  stepId: string | null;

  @Column({ type: 'int' })
  stepIndex: number;

  @Column({ type: 'varchar', length: 300 })
  name: string;

  @Column({ type: 'varchar', length: 20 })
  stepType: string;

  @Column({ type: 'varchar', length: 30 })
  executionMode: string;

  @Column({ type: 'boolean', default: false })
  continueOnFailure: boolean;

  @Column({ type: 'int', nullable: true })
  timeoutSeconds: number | null;

  @Column({ type: 'int', nullable: true })
  connectedSystemId: number | null;

  @Column({ type: 'int', nullable: true })
  runProfileId: number | null;

  /** Pending, Queued, Processing, Waiting, Completed, Completed with Warning, Completed with Error, Failed, Cancelled. */
  @Column({ type: 'varchar', length: 30, default: 'Pending' })
  status: string;

  /** The worker task (job / process) that carries the step. */
  @Column({ type: 'uuid', nullable: true })
  taskId: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  errorMessage: string | null;

  /** RunProfile steps: the run-profile activity. */
  @Column({ type: 'uuid', nullable: true })
  activityId: string | null;

  /** Process steps: the child process id while it runs. */
  @Column({ type: 'int', nullable: true })
  processId: number | null;
}
