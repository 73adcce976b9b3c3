import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ConnectedSystemAttributeEntity, ConnectedSystemEntity, ConnectedSystemObjectTypeEntity } from './connected-system.entity';
import { MetaverseAttributeEntity, MetaverseObjectTypeEntity } from './metaverse.entity';

/** A sync rule: Import (CS → metaverse) or Export (metaverse → CS) for one pair of object types. */
@Entity('sync_rule')
@Index('ix_sync_rule_connected_system', ['connectedSystemId'])
export class SyncRuleEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'int' })
  connectedSystemId: number;

  @ManyToOne(() => ConnectedSystemEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connected_system_id', foreignKeyConstraintName: 'sync_rule_connected_system_fkey' })
  connectedSystem?: ConnectedSystemEntity;

  /** `Import` or `Export`; immutable. */
  @Column({ type: 'varchar', length: 10 })
  direction: string;

  @Column({ type: 'int' })
  connectedSystemObjectTypeId: number;

  @ManyToOne(() => ConnectedSystemObjectTypeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connected_system_object_type_id', foreignKeyConstraintName: 'sync_rule_cs_object_type_fkey' })
  connectedSystemObjectType?: ConnectedSystemObjectTypeEntity;

  @Column({ type: 'int' })
  metaverseObjectTypeId: number;

  @ManyToOne(() => MetaverseObjectTypeEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'metaverse_object_type_id', foreignKeyConstraintName: 'sync_rule_mv_object_type_fkey' })
  metaverseObjectType?: MetaverseObjectTypeEntity;

  @Column({ type: 'boolean', default: false })
  projectToMetaverse: boolean;

  @Column({ type: 'boolean', default: false })
  provisionToConnectedSystem: boolean;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Import rules: `RemainJoined` or `Disconnect` (default). */
  @Column({ type: 'varchar', length: 20, default: 'Disconnect' })
  inboundOutOfScopeAction: string;

  /** Export rules: `Disconnect` (default) or `Delete`. */
  @Column({ type: 'varchar', length: 20, default: 'Disconnect' })
  outboundDeprovisionAction: string;

  /** Scoping criteria: nested `All`/`Any` groups of comparisons (top-level groups OR together). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  scopingCriteria: unknown[];

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}

/** One attribute mapping of a sync rule (spec 2.12). */
@Entity('sync_rule_mapping')
@Index('ix_sync_rule_mapping_rule', ['syncRuleId'])
export class SyncRuleMappingEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  syncRuleId: number;

  @ManyToOne(() => SyncRuleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sync_rule_id', foreignKeyConstraintName: 'sync_rule_mapping_rule_fkey' })
  syncRule?: SyncRuleEntity;

  @Column({ type: 'int', nullable: true })
  targetMetaverseAttributeId: number | null;

  @ManyToOne(() => MetaverseAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_metaverse_attribute_id', foreignKeyConstraintName: 'sync_rule_mapping_mv_attribute_fkey' })
  targetMetaverseAttribute?: MetaverseAttributeEntity;

  @Column({ type: 'int', nullable: true })
  targetConnectedSystemAttributeId: number | null;

  @ManyToOne(() => ConnectedSystemAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'target_connected_system_attribute_id', foreignKeyConstraintName: 'sync_rule_mapping_cs_attribute_fkey' })
  targetConnectedSystemAttribute?: ConnectedSystemAttributeEntity;

  /** Import mappings: contributor priority for the target metaverse attribute (1 = highest). */
  @Column({ type: 'int', nullable: true })
  priority: number | null;

  /** An empty value from this contributor counts as a value (it asserts the attribute is empty). */
  @Column({ type: 'boolean', default: false })
  nullIsValue: boolean;

  /** Export mappings: flow on Create only. */
  @Column({ type: 'boolean', default: false })
  initialExportOnly: boolean;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}

@Entity('sync_rule_mapping_source')
@Index('ix_sync_rule_mapping_source_mapping', ['mappingId'])
export class SyncRuleMappingSourceEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  mappingId: number;

  @ManyToOne(() => SyncRuleMappingEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'mapping_id', foreignKeyConstraintName: 'sync_rule_mapping_source_mapping_fkey' })
  mapping?: SyncRuleMappingEntity;

  @Column({ type: 'int', default: 0 })
  order: number;

  @Column({ type: 'int', nullable: true })
  connectedSystemAttributeId: number | null;

  @ManyToOne(() => ConnectedSystemAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connected_system_attribute_id', foreignKeyConstraintName: 'sync_rule_mapping_source_cs_attribute_fkey' })
  connectedSystemAttribute?: ConnectedSystemAttributeEntity;

  @Column({ type: 'int', nullable: true })
  metaverseAttributeId: number | null;

  @ManyToOne(() => MetaverseAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'metaverse_attribute_id', foreignKeyConstraintName: 'sync_rule_mapping_source_mv_attribute_fkey' })
  metaverseAttribute?: MetaverseAttributeEntity;

  @Column({ type: 'text', nullable: true })
  expression: string | null;
}

/** An ordered matching rule of an import sync rule: CS attribute(s) → metaverse attribute. */
@Entity('sync_rule_matching_rule')
@Index('ix_sync_rule_matching_rule_rule', ['syncRuleId'])
export class SyncRuleMatchingRuleEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  syncRuleId: number;

  @ManyToOne(() => SyncRuleEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'sync_rule_id', foreignKeyConstraintName: 'sync_rule_matching_rule_rule_fkey' })
  syncRule?: SyncRuleEntity;

  @Column({ type: 'int', default: 0 })
  order: number;

  @Column({ type: 'int', array: true })
  connectedSystemAttributeIds: number[];

  @Column({ type: 'int' })
  metaverseAttributeId: number;

  @ManyToOne(() => MetaverseAttributeEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'metaverse_attribute_id', foreignKeyConstraintName: 'sync_rule_matching_rule_mv_attribute_fkey' })
  metaverseAttribute?: MetaverseAttributeEntity;

  @Column({ type: 'boolean', default: false })
  caseSensitive: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;
}
