import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

/** The durable record of one operation (spec 2.4): configuration changes and run-profile executions. */
@Entity('activity')
@Index('ix_activity_created', ['created'])
@Index('ix_activity_parent', ['parentActivityId'])
@Index('ix_activity_status', ['status'])
@Index('ix_activity_heartbeat', { synchronize: false })
export class ActivityEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid', nullable: true })
  parentActivityId: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  executed: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completed: Date | null;

  @Column({ type: 'varchar', length: 40 })
  status: string;

  @Column({ type: 'varchar', length: 60 })
  targetType: string;

  @Column({ type: 'varchar', length: 60 })
  targetOperationType: string;

  /** Id of the resource acted on (uuid, integer or key), for linking back. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  targetId: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  targetName: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  targetContext: string | null;

  @Column({ type: 'text', nullable: true })
  message: string | null;

  @Column({ type: 'text', nullable: true })
  warningMessage: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ type: 'text', nullable: true })
  errorStackTrace: string | null;

  @Column({ type: 'varchar', length: 20 })
  initiatedByType: string;

  @Column({ type: 'uuid', nullable: true })
  initiatedById: string | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  initiatedByName: string | null;

  @Column({ type: 'int', default: 0 })
  objectsToProcess: number;

  @Column({ type: 'int', default: 0 })
  objectsProcessed: number;

  @Column({
    type: 'bigint',
    nullable: true,
    transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) },
  })
  executionTimeMs: number | null;

  @Column({ type: 'varchar', length: 40, nullable: true })
  connectedSystemRunType: string | null;

  @Column({ type: 'int', nullable: true })
  connectedSystemId: number | null;

  @Column({ type: 'int', nullable: true })
  connectedSystemRunProfileId: number | null;

  @Column({ type: 'int', nullable: true })
  syncRuleId: number | null;

  @Column({ type: 'uuid', nullable: true })
  metaverseObjectId: string | null;

  @Column({ type: 'int', default: 0 }) totalAdded: number;
  @Column({ type: 'int', default: 0 }) totalUpdated: number;
  @Column({ type: 'int', default: 0 }) totalDeleted: number;
  @Column({ type: 'int', default: 0 }) totalProjected: number;
  @Column({ type: 'int', default: 0 }) totalJoined: number;
  @Column({ type: 'int', default: 0 }) totalAttributeFlows: number;
  @Column({ type: 'int', default: 0 }) totalDisconnected: number;
  @Column({ type: 'int', default: 0 }) totalProvisioned: number;
  @Column({ type: 'int', default: 0 }) totalExported: number;
  @Column({ type: 'int', default: 0 }) totalDeprovisioned: number;
  @Column({ type: 'int', default: 0 }) totalPendingExports: number;
  @Column({ type: 'int', default: 0 }) totalErrors: number;

  @Column({ type: 'jsonb', nullable: true })
  executionStats: Record<string, unknown> | null;

  /** What a configuration change did (changed fields, before/after of non-secret values). */
  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, unknown> | null;

  /** Set by the worker that claims the activity; a duplicate delivery finds it taken. */
  @Column({ type: 'timestamptz', nullable: true })
  claimedAt: Date | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  claimedBy: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  heartbeatAt: Date | null;

  @Column({ type: 'boolean', default: false })
  cancelRequested: boolean;

  @ManyToOne(() => ActivityEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'parent_activity_id', foreignKeyConstraintName: 'activity_parent_activity_id_fkey' })
  parent?: ActivityEntity;
}

/** One object processed by a run-profile activity (spec 2.5). */
@Entity('activity_execution_item')
@Index('ix_activity_item_activity', ['activityId', 'seq'])
export class ActivityExecutionItemEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  activityId: string;

  // No foreign key (items are written in bulk, one per object): a statement trigger deletes them with their activity.

  /** Insertion order within the activity, for stable keyset paging. */
  @Column({ type: 'bigint', generated: 'increment' })
  seq: string;

  @Column({ type: 'text', nullable: true })
  externalIdValue: string | null;

  @Column({ type: 'text', nullable: true })
  displayName: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  connectedSystemObjectType: string | null;

  @Column({ type: 'varchar', length: 40 })
  objectChangeType: string;

  @Column({ type: 'varchar', length: 60, nullable: true })
  errorType: string | null;

  @Column({ type: 'text', nullable: true })
  errorMessage: string | null;

  @Column({ type: 'text', nullable: true })
  outcomeSummary: string | null;

  /** The connector space object the item is about (no foreign key: the object may be gone since). */
  @Column({ type: 'uuid', nullable: true })
  connectedSystemObjectId: string | null;

  @Column({ type: 'uuid', nullable: true })
  metaverseObjectId: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}
