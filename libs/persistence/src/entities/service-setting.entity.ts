import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An administrator's override of a service setting; absent rows mean "use the default". */
@Entity('service_setting')
export class ServiceSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  key: string;

  /** JSON-encoded canonical value. */
  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  lastUpdated: Date;

  @Column({ type: 'varchar', length: 300, nullable: true })
  lastUpdatedBy: string | null;
}
