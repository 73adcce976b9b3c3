import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A trusted certificate (CA) for LDAPS and HTTPS connectors. */
@Entity('trusted_certificate')
@Index('uq_trusted_certificate_thumbprint', ['thumbprint'], { unique: true })
export class TrustedCertificateEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 2000, nullable: true })
  notes: string | null;

  @Column({ type: 'boolean', default: true })
  isEnabled: boolean;

  /** SHA-256 fingerprint, upper-case hex without separators. */
  @Column({ type: 'varchar', length: 64 })
  thumbprint: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text' })
  issuer: string;

  @Column({ type: 'varchar', length: 200 })
  serialNumber: string;

  @Column({ type: 'timestamptz' })
  notBefore: Date;

  @Column({ type: 'timestamptz' })
  notAfter: Date;

  @Column({ type: 'boolean', default: false })
  isCertificateAuthority: boolean;

  /** The certificate itself, PEM encoded. */
  @Column({ type: 'text' })
  pem: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastUpdated: Date | null;
}
