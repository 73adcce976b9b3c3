import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

/** A connected system: one external identity store reached through a connector. */
@Entity('connected_system')
@Index('uq_connected_system_name', { synchronize: false })
export class ConnectedSystemEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** Connector type from the registry, e.g. `File`. */
  @Column({ type: 'varchar', length: 50 })
  connectorType: string;

  /** Non-secret settings by name. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  settings: Record<string, string | number | boolean | null>;

  /** Secret settings, sealed with AES-256-GCM (never returned by the API). */
  @Column({ type: 'text', nullable: true })
  secretSettings: string | null;

  /** `Error`, `Warn` or `Ignore`: what an unresolvable reference does on import. */
  @Column({ type: 'varchar', length: 10, default: 'Warn' })
  unresolvedReferenceHandling: string;

  /** Delta watermark saved by the last completed import. */
  @Column({ type: 'text', nullable: true })
  deltaWatermark: string | null;

  /** Set when a configuration change means the next full synchronisation must re-apply rules. */
  @Column({ type: 'boolean', default: false })
  fullSyncRequired: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  lastSchemaImport: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

@Entity('connected_system_object_type')
@Index('uq_cs_object_type_name', { synchronize: false })
// Target of the connector-space foreign key (connected_system_id, object_type_id): ADR 0003.
@Index('uq_cs_object_type_system_id', ['connectedSystemId', 'id'], { unique: true })
export class ConnectedSystemObjectTypeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  connectedSystemId: number;

  @ManyToOne(() => ConnectedSystemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connected_system_id', foreignKeyConstraintName: 'cs_object_type_connected_system_fkey' })
  connectedSystem?: ConnectedSystemEntity;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'boolean', default: false })
  selected: boolean;

  @Column({ type: 'boolean', default: false })
  removeContributedAttributesOnObsoletion: boolean;

  /** False when the last schema import no longer found this type (kept so selections survive). */
  @Column({ type: 'boolean', default: true })
  presentInSchema: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}

@Entity('connected_system_attribute')
@Index('uq_cs_attribute_name', { synchronize: false })
@Index('ix_cs_attribute_object_type', ['objectTypeId'])
export class ConnectedSystemAttributeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  objectTypeId: number;

  @ManyToOne(() => ConnectedSystemObjectTypeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'object_type_id', foreignKeyConstraintName: 'cs_attribute_object_type_fkey' })
  objectType?: ConnectedSystemObjectTypeEntity;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  className: string | null;

  @Column({ type: 'varchar', length: 20 })
  type: string;

  @Column({ type: 'varchar', length: 10 })
  plurality: string;

  @Column({ type: 'varchar', length: 10, default: 'ReadWrite' })
  writability: string;

  @Column({ type: 'boolean', default: false })
  selected: boolean;

  @Column({ type: 'boolean', default: false })
  isExternalId: boolean;

  @Column({ type: 'boolean', default: false })
  isSecondaryExternalId: boolean;

  @Column({ type: 'boolean', default: true })
  presentInSchema: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}

/** A named operation on one connected system (spec: run profile). */
@Entity('connected_system_run_profile')
@Index('uq_run_profile_name', { synchronize: false })
export class RunProfileEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  connectedSystemId: number;

  @ManyToOne(() => ConnectedSystemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connected_system_id', foreignKeyConstraintName: 'run_profile_connected_system_fkey' })
  connectedSystem?: ConnectedSystemEntity;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 40 })
  runType: string;

  @Column({ type: 'int', default: 1000 })
  pageSize: number;

  @Column({ type: 'text', nullable: true })
  filePath: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

/**
 * A connector space object: the values last seen in a connected system, one row per object, values in
 * a JSONB document keyed by connected-system attribute id.
 */
@Entity('connected_system_object')
@Index('uq_cso_external_id', { synchronize: false })
@Index('ix_cso_secondary_external_id', { synchronize: false })
@Index('ix_cso_system_keyset', ['connectedSystemId', 'id'])
@Index('ix_cso_metaverse_object', { synchronize: false })
@Index('ix_cso_sync_pending', { synchronize: false })
@Index('ix_cso_unjoined', { synchronize: false })
@Index('ix_cso_references_pending', { synchronize: false })
export class ConnectedSystemObjectEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'int' })
  connectedSystemId: number;

  @Column({ type: 'int' })
  objectTypeId: number;

  // No foreign keys on the object type or the metaverse object: the engine writes these rows in bulk, and
  // statement triggers delete them with their object type and unjoin them from a deleted metaverse object
  // (migration 1764100000000-engine).

  @Column({ type: 'text', nullable: true })
  externalId: string | null;

  @Column({ type: 'text', nullable: true })
  secondaryExternalId: string | null;

  @Column({ type: 'text', nullable: true })
  displayName: string | null;

  /** `Normal`, `Obsolete` or `PendingProvisioning`. */
  @Column({ type: 'varchar', length: 30, default: 'Normal' })
  status: string;

  /** `{ "<attributeId>": [values…] }` as imported. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes: Record<string, unknown[]>;

  /** Hash of the imported values, so an unchanged object costs one comparison. */
  @Column({ type: 'bytea', nullable: true })
  contentHash: Buffer | null;

  @Column({ type: 'uuid', nullable: true })
  metaverseObjectId: string | null;

  /** Set by every import write, cleared by the synchronisation that processed the object (delta sync). */
  @Column({ type: 'boolean', default: true })
  syncPending: boolean;

  /** Reference attributes resolved after the import: `{ "<attributeId>": [csoId | null, …] }`. */
  @Column({ type: 'jsonb', nullable: true })
  resolvedReferences: Record<string, Array<string | null>> | null;

  /** `Projected`, `Joined` or `Provisioned`: how the join came about. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  joinType: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}
