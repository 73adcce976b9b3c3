import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { ActivityEntity } from './activity.entity';

/** One attribute change of a pending export: attribute id, operation and values. */
export interface StoredAttributeChange {
  /** Connected-system attribute id. */
  a: number;
  op: 'Add' | 'Replace' | 'Remove' | 'RemoveAll';
  v: unknown[];
  /** Reference values still expressed as metaverse object ids (resolved to the target's identifiers at export time). */
  mv?: string[];
}

/**
 * A staged change for one connector space object (DOMAIN.md §1, §2.3). No foreign keys (written in bulk):
 * statement triggers delete pending exports with their object or connected system.
 */
@Entity('pending_export')
@Index('uq_pending_export_open', { synchronize: false })
@Index('ix_pending_export_cso', ['connectedSystemObjectId'])
@Index('ix_pending_export_system', ['connectedSystemId', 'status', 'id'])
export class PendingExportEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'int' })
  connectedSystemId: number;

  @Column({ type: 'uuid' })
  connectedSystemObjectId: string;

  /** `Create`, `Update` or `Delete`. */
  @Column({ type: 'varchar', length: 10 })
  changeType: string;

  /** `Pending`, `Exported` or `Failed`. */
  @Column({ type: 'varchar', length: 10, default: 'Pending' })
  status: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attributeChanges: StoredAttributeChange[];

  @Column({ type: 'int', default: 0 })
  errorCount: number;

  @Column({ type: 'int', default: 0 })
  confirmationAttempts: number;

  @Column({ type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'text', nullable: true })
  lastError: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

/** A lock held by a running activity: `connected-system:<id>` or `metaverse`. */
@Entity('run_lock')
@Index('ix_run_lock_activity', ['activityId'])
export class RunLockEntity {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  lockKey: string;

  @Column({ type: 'uuid' })
  activityId: string;

  @ManyToOne(() => ActivityEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'activity_id', foreignKeyConstraintName: 'run_lock_activity_fkey' })
  activity?: ActivityEntity;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  acquiredAt: Date;
}
