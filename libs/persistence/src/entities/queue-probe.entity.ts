import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A round trip through the job queue: web inserts it, a worker marks it processed. */
@Entity('queue_probe')
export class QueueProbeEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  requestedAt: Date;

  @Column({ type: 'varchar', length: 300, nullable: true })
  requestedBy: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  processedAt: Date | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  processedBy: string | null;
}
