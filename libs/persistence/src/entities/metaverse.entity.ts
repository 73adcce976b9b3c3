import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A metaverse object type (built-in User and Group, plus custom ones) with its deletion rule. */
@Entity('metaverse_object_type')
@Index('uq_metaverse_object_type_name', { synchronize: false })
export class MetaverseObjectTypeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: false })
  isBuiltIn: boolean;

  @Column({ type: 'varchar', length: 60, default: 'WhenLastConnectorDisconnected' })
  deletionRule: string;

  /** Grace period in seconds; null or 0 means delete within the synchronisation run. */
  @Column({ type: 'int', nullable: true })
  deletionGracePeriodSeconds: number | null;

  @Column({ type: 'int', array: true, default: () => "'{}'" })
  deletionTriggerConnectedSystemIds: number[];

  /** `Any` or `All` of the trigger systems (WhenAuthoritativeSourceDisconnected). */
  @Column({ type: 'varchar', length: 10, default: 'Any' })
  deletionTriggerMode: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

/** A metaverse attribute; attributes are shared by object types through metaverse_object_type_attribute. */
@Entity('metaverse_attribute')
@Index('uq_metaverse_attribute_name', { synchronize: false })
export class MetaverseAttributeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 20 })
  type: string;

  @Column({ type: 'varchar', length: 10 })
  plurality: string;

  @Column({ type: 'boolean', default: false })
  isBuiltIn: boolean;

  /** Values are kept in metaverse_object_lookup, so filters and matching on it use an index. */
  @Column({ type: 'boolean', default: false })
  isIndexed: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

@Entity('metaverse_object_type_attribute')
export class MetaverseObjectTypeAttributeEntity {
  @PrimaryColumn({ type: 'int' })
  objectTypeId: number;

  @Index('ix_mv_type_attribute_attribute')
  @PrimaryColumn({ type: 'int' })
  attributeId: number;

  @ManyToOne(() => MetaverseObjectTypeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'object_type_id', foreignKeyConstraintName: 'metaverse_object_type_attribute_object_type_id_fkey' })
  objectType?: MetaverseObjectTypeEntity;

  @ManyToOne(() => MetaverseAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'attribute_id', foreignKeyConstraintName: 'metaverse_object_type_attribute_attribute_id_fkey' })
  attribute?: MetaverseAttributeEntity;
}

/**
 * A metaverse object: one row, attribute values in a JSONB document keyed by attribute id
 * (`{"12": [{"v": "Ada", "s": 3}]}` — value and contributing connected system).
 */
@Entity('metaverse_object')
// (type_id, id) INCLUDE (display_name) and a GIN trigram index on lower(display_name): the object list
// (id order, type filter, display-name search). Both are written by the migration, not synchronised.
@Index('ix_metaverse_object_type', { synchronize: false })
@Index('ix_metaverse_object_display_name_trgm', { synchronize: false })
@Index('ix_metaverse_object_pending_deletion', { synchronize: false })
@Index('ix_metaverse_object_deletion_eligible', { synchronize: false })
export class MetaverseObjectEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'int' })
  typeId: number;

  @ManyToOne(() => MetaverseObjectTypeEntity, { onDelete: 'NO ACTION' })
  @JoinColumn({ name: 'type_id', foreignKeyConstraintName: 'metaverse_object_type_id_fkey' })
  type?: MetaverseObjectTypeEntity;

  @Column({ type: 'varchar', length: 20 })
  origin: string;

  @Column({ type: 'varchar', length: 20, default: 'Normal' })
  status: string;

  @Column({ type: 'text', nullable: true })
  displayName: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes: Record<string, Array<{ v: unknown; s?: number | null }>>;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastConnectorDisconnectedDate: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  deletionEligibleDate: Date | null;
}

/**
 * Narrow lookup rows for attributes that are searched or matched on: (attribute, normalised value) →
 * object. Kept in step with metaverse_object.attributes by the writers.
 */
@Entity('metaverse_object_lookup')
export class MetaverseObjectLookupEntity {
  @PrimaryColumn({ type: 'int' })
  attributeId: number;

  @PrimaryColumn({ type: 'text' })
  valueNormalised: string;

  /** No foreign keys (bulk inserts skip the per-row check): a statement trigger deletes rows with their object or attribute. */
  @Index('ix_metaverse_object_lookup_object')
  @PrimaryColumn({ type: 'uuid' })
  objectId: string;
}
