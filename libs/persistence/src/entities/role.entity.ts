import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { MetaverseObjectEntity } from './metaverse.entity';

/** A role (built-in: Administrator). Members are metaverse objects (Users). */
@Entity('role')
export class RoleEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index('uq_role_name', { unique: true })
  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: false })
  isBuiltIn: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}

@Entity('role_member')
export class RoleMemberEntity {
  @PrimaryColumn({ type: 'int' })
  roleId: number;

  @Index('ix_role_member_object')
  @PrimaryColumn({ type: 'uuid' })
  metaverseObjectId: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @ManyToOne(() => RoleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'role_id', foreignKeyConstraintName: 'role_member_role_id_fkey' })
  role?: RoleEntity;

  @ManyToOne(() => MetaverseObjectEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'metaverse_object_id', foreignKeyConstraintName: 'role_member_metaverse_object_id_fkey' })
  metaverseObject?: MetaverseObjectEntity;
}
