import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An API key. Only the SHA-256 of the secret is stored; the secret is shown once, on creation. */
@Entity('api_key')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The first characters of the secret (e.g. `mer_a1B2`), so administrators can recognise a key. */
  @Column({ type: 'varchar', length: 16 })
  keyPrefix: string;

  @Index('uq_api_key_hash', { unique: true })
  @Column({ type: 'char', length: 64 })
  keyHash: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  roles: string[];

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ type: 'boolean', default: true })
  isEnabled: boolean;

  /** Created from MERIDIAN_BOOTSTRAP_API_KEY; kept in step with that variable at every start. */
  @Column({ type: 'boolean', default: false })
  isBootstrap: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'varchar', length: 20, nullable: true })
  createdByType: string | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  createdByName: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
